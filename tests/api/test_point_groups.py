"""Point groups (Mautic 5): the `/points/groups` resource, a contact's group scores and their
operations, point actions and triggers that name a group, and what deleting a group does."""

import pytest

from tests.api.payloads import ISO_UTC, assert_error
from tests.api.test_forms_submit import make_form, post
from tests.api.test_point_triggers import gained, make_trigger, new_contact, tags

BASE = "/api/points/groups"
AUDIT = {"isPublished", "dateAdded", "dateModified", "createdBy", "createdByUser", "modifiedBy", "modifiedByUser"}


def make_group(api, name="Product", **extra):
    r = api.post(f"{BASE}/new", dict({"name": name, "description": "d"}, **extra))
    assert r.status_code == 201, r.json
    return r.json["pointGroup"]


def scores(api, contact_id):
    r = api.get(f"/api/contacts/{contact_id}/points/groups")
    assert r.status_code == 200, r.json
    return r.json


def change(api, contact_id, group_id, operator, value, body=None):
    return api.post(f"/api/contacts/{contact_id}/points/groups/{group_id}/{operator}/{value}", body or {})


# --- the resource -------------------------------------------------------------------------------------


def test_create_get_and_list_have_mautic_keys_and_shapes(api):
    group = make_group(api)
    assert set(group) == {"id", "name", "description"} | AUDIT
    assert group["name"] == "Product" and group["isPublished"] is True and ISO_UTC.match(group["dateAdded"])
    assert api.get(f"{BASE}/{group['id']}").json == {"pointGroup": group}
    second = make_group(api, "Support", isPublished=False)
    listed = api.get(BASE).json
    assert int(listed["total"]) == 2 and listed["pointGroups"] == [group, second]  # an array, not keyed by id
    assert api.get(f"{BASE}?search=is:unpublished").json["pointGroups"] == [second]
    assert api.get(f"{BASE}?search=is:published").json["pointGroups"] == [group]
    assert [g["id"] for g in api.get(f"{BASE}?search=ids:{second['id']}").json["pointGroups"]] == [second["id"]]


def test_an_empty_list_is_an_array(api):
    assert api.get(BASE).json == {"total": 0, "pointGroups": []}


def test_name_is_required_and_nothing_is_written(api):
    assert_error(api.post(f"{BASE}/new", {"description": "no name"}), 400, field="name")
    assert_error(api.post(f"{BASE}/new", {"name": ""}), 400, field="name")
    assert int(api.get(BASE).json["total"]) == 0


def test_patch_put_and_delete(api):
    group = make_group(api)
    patched = api.patch(f"{BASE}/{group['id']}/edit", {"name": "Renamed"}).json["pointGroup"]
    assert patched["name"] == "Renamed" and patched["description"] == "d" and patched["dateModified"]
    put = api.put(f"{BASE}/{group['id']}/edit", {"name": "Put"}).json["pointGroup"]
    assert put["name"] == "Put" and put["description"] is None
    assert_error(api.patch(f"{BASE}/{group['id']}/edit", {"name": ""}), 400, field="name")
    created = api.put(f"{BASE}/9999/edit", {"name": "New"})
    assert created.status_code == 201 and created.json["pointGroup"]["name"] == "New"
    deleted = api.delete(f"{BASE}/{group['id']}/delete")
    assert deleted.status_code == 200 and deleted.json["pointGroup"]["id"] is None
    assert deleted.json["pointGroup"]["name"] == "Put"
    assert_error(api.get(f"{BASE}/{group['id']}"), 404)
    assert_error(api.delete(f"{BASE}/{group['id']}/delete"), 404)


def test_batch_routes(api):
    r = api.post(f"{BASE}/batch/new", [{"name": "A"}, {"name": "B"}])
    assert r.status_code == 201 and r.json["statusCodes"] == [201, 201]
    ids = [g["id"] for g in r.json["pointGroups"]]
    r = api.patch(f"{BASE}/batch/edit", [{"id": ids[0], "name": "A2"}])
    assert r.json["statusCodes"] == [200] and r.json["pointGroups"][0]["name"] == "A2"
    r = api.delete(f"{BASE}/batch/delete?ids={ids[0]},{ids[1]}")
    assert r.status_code == 200 and int(api.get(BASE).json["total"]) == 0


def test_groups_do_not_collide_with_point_actions_and_triggers(api):
    group = make_group(api)
    action = api.post("/api/points/new", {"name": "Open", "type": "email.open"}).json["point"]
    trigger = make_trigger(api)
    assert api.get(f"/api/points/{action['id']}").json["point"]["name"] == "Open"
    assert api.get(f"/api/points/triggers/{trigger['id']}").json["trigger"]["name"] == "Hot"
    assert api.get(f"{BASE}/{group['id']}").json["pointGroup"]["name"] == "Product"
    assert int(api.get("/api/points").json["total"]) == 1 and int(api.get("/api/points/triggers").json["total"]) == 1


# --- a contact's group scores ---------------------------------------------------------------------------


def test_a_contact_starts_without_group_scores(api):
    person = new_contact(api)
    make_group(api)
    assert scores(api, person["id"]) == {"total": 0, "groupScores": []}
    assert "groupScores" not in api.get(f"/api/contacts/{person['id']}").json["contact"]  # as Mautic's serializer


@pytest.mark.parametrize(
    "operator, value, expected",
    [("plus", 5, 15), ("minus", 4, 6), ("times", 3, 30), ("divide", 4, 2), ("set", 7, 7), ("plus", -3, 7)],
)
def test_operations(api, operator, value, expected):
    person, group = new_contact(api), make_group(api)
    change(api, person["id"], group["id"], "plus", 10)
    r = change(api, person["id"], group["id"], operator, value)
    assert r.status_code == 200, r.json
    shown = {"id": group["id"], "name": "Product", "description": "d"}
    assert r.json == {"groupScore": {"score": expected, "group": shown}}
    assert scores(api, person["id"]) == {"total": 1, "groupScores": [{"score": expected, "group": shown}]}
    assert api.get(f"/api/contacts/{person['id']}").json["contact"]["points"] == 0  # the points stay


def test_one_group_score_and_scores_in_group_order(api):
    person = new_contact(api)
    first, second = make_group(api, "First"), make_group(api, "Second")
    assert api.get(f"/api/contacts/{person['id']}/points/groups/{first['id']}").json == {"groupScore": None}
    change(api, person["id"], second["id"], "set", 4)
    change(api, person["id"], first["id"], "plus", 2)
    assert [(s["group"]["name"], s["score"]) for s in scores(api, person["id"])["groupScores"]] == [
        ("First", 2),
        ("Second", 4),
    ]
    one = api.get(f"/api/contacts/{person['id']}/points/groups/{second['id']}").json
    assert one["groupScore"]["score"] == 4 and one["groupScore"]["group"]["id"] == second["id"]


def test_a_change_is_on_the_timeline_with_its_group(api):
    person, group = new_contact(api), make_group(api)
    change(api, person["id"], group["id"], "plus", 5, {"eventName": "Webinar", "actionName": "Attended"})
    change(api, person["id"], group["id"], "times", 3)
    first, second = [g for g in gained(api, person["id"]) if "group" in g]
    assert first == {
        "action": "Attended",
        "type": "API",
        "group": {"id": group["id"], "name": "Product"},
        "delta": 5,
        "operator": "plus",
        "oldPoints": 0,
        "newPoints": 5,
    }
    assert second["delta"] == 10 and second["oldPoints"] == 5 and second["newPoints"] == 15
    assert second["action"] == "API"


def test_unknown_contact_or_group_is_404_and_bad_input_400_writing_nothing(api):
    person, group = new_contact(api), make_group(api)
    assert_error(api.get("/api/contacts/999/points/groups"), 404)
    assert_error(api.get(f"/api/contacts/999/points/groups/{group['id']}"), 404)
    assert_error(api.get(f"/api/contacts/{person['id']}/points/groups/999"), 404)
    assert_error(change(api, 999, group["id"], "plus", 1), 404)
    assert_error(change(api, person["id"], 999, "plus", 1), 404)
    assert_error(change(api, person["id"], group["id"], "power", 2), 400, field="operator")
    assert_error(change(api, person["id"], group["id"], "plus", "many"), 400, field="value")
    assert_error(change(api, person["id"], group["id"], "divide", 0), 400, field="value")
    assert int(scores(api, person["id"])["total"]) == 0 and gained(api, person["id"]) == []
    assert api.get(f"/api/contacts/{person['id']}/points/groups").status_code == 200
    assert api.get(f"/api/contacts/{person['id']}/points/groups/1/plus/1").status_code == 405


def test_plus_zero_creates_the_score_without_an_event(api):
    person, group = new_contact(api), make_group(api)
    assert change(api, person["id"], group["id"], "plus", 0).json["groupScore"]["score"] == 0
    assert int(scores(api, person["id"])["total"]) == 1 and gained(api, person["id"]) == []


def test_the_main_points_route_still_answers(api):
    person = new_contact(api)
    assert api.post(f"/api/contacts/{person['id']}/points/plus/3").json == {"success": 1}
    assert api.get(f"/api/contacts/{person['id']}").json["contact"]["points"] == 3


# --- point actions and triggers naming a group -------------------------------------------------------------


def test_a_point_action_with_a_group_scores_in_the_group(api):
    group, form = make_group(api), make_form(api)
    action = api.post(
        "/api/points/new", {"name": "Submits", "type": "form.submit", "delta": 5, "group": group["id"]}
    ).json["point"]
    assert action["group"] == {"id": group["id"], "name": "Product", "description": "d"}
    person = new_contact(api)
    post(api, form["id"], {"email": "pat@example.com"})
    post(api, form["id"], {"email": "pat@example.com"})  # not repeatable: once
    assert api.get(f"/api/contacts/{person['id']}").json["contact"]["points"] == 0
    assert [s["score"] for s in scores(api, person["id"])["groupScores"]] == [5]
    (event,) = [g for g in gained(api, person["id"]) if "group" in g]
    assert event["pointActionId"] == action["id"] and event["group"]["id"] == group["id"]


def test_a_point_action_naming_an_unknown_group_is_refused(api):
    assert_error(api.post("/api/points/new", {"name": "X", "type": "form.submit", "group": 999}), 400, field="group")
    assert int(api.get("/api/points").json["total"]) == 0


def test_a_trigger_with_a_group_fires_on_the_group_score_only(api):
    group = make_group(api)
    trigger = make_trigger(api, points=10, tag="engaged", group=group["id"])
    assert trigger["group"]["id"] == group["id"]
    person = new_contact(api)
    api.patch(f"/api/contacts/{person['id']}/edit", {"points": 50})  # the points do not fire it
    assert tags(api, person["id"]) == []
    change(api, person["id"], group["id"], "plus", 6)
    assert tags(api, person["id"]) == []
    change(api, person["id"], group["id"], "plus", 6)
    assert tags(api, person["id"]) == ["engaged"]
    noted = [g for g in gained(api, person["id"]) if "group" in g][-1]
    assert noted["triggerEvents"] == [e["id"] for e in trigger["events"]]
    assert api.get(f"/api/contacts/{person['id']}").json["contact"]["color"] is None


def test_a_group_action_crossing_a_group_trigger_fires_in_the_same_write(api):
    group, form = make_group(api), make_form(api)
    api.post("/api/points/new", {"name": "Submits", "type": "form.submit", "delta": 10, "group": group["id"]})
    make_trigger(api, points=10, tag="engaged", group=group["id"])
    make_trigger(api, points=10, tag="hot")  # on the points: not reached
    person = new_contact(api)
    post(api, form["id"], {"email": "pat@example.com"})
    assert tags(api, person["id"]) == ["engaged"]


def test_existing_contacts_at_a_group_threshold_get_the_events(api, drain):
    group = make_group(api)
    low, high = new_contact(api, "low@example.com", points=50), new_contact(api, "high@example.com")
    change(api, high["id"], group["id"], "set", 20)
    make_trigger(api, points=10, tag="engaged", group=group["id"], triggerExistingLeads=True)
    drain()
    assert tags(api, high["id"]) == ["engaged"] and tags(api, low["id"]) == []


# --- deleting a group -----------------------------------------------------------------------------------------


def test_deleting_a_group_removes_its_scores_actions_and_triggers(api):
    group, other = make_group(api), make_group(api, "Other")
    action = api.post("/api/points/new", {"name": "In group", "type": "email.open", "group": group["id"]}).json
    kept = api.post("/api/points/new", {"name": "Main", "type": "email.open"}).json["point"]
    make_trigger(api, group=group["id"])
    person = new_contact(api)
    change(api, person["id"], group["id"], "set", 5)
    change(api, person["id"], other["id"], "set", 3)
    assert api.delete(f"{BASE}/{group['id']}/delete").status_code == 200
    assert [s["group"]["id"] for s in scores(api, person["id"])["groupScores"]] == [other["id"]]
    assert_error(api.get(f"/api/points/{action['point']['id']}"), 404)
    assert [p["id"] for p in api.get("/api/points").json["points"]] == [kept["id"]]
    assert int(api.get("/api/points/triggers").json["total"]) == 0
    change(api, person["id"], other["id"], "plus", 1)
    assert scores(api, person["id"])["groupScores"] == [
        {"score": 4, "group": {"id": other["id"], "name": "Other", "description": "d"}}
    ]


def test_merged_contacts_add_their_group_scores_up(api):
    group = make_group(api)
    ann, bob = new_contact(api, "ann@example.com"), new_contact(api, "bob@example.com")
    change(api, ann["id"], group["id"], "set", 2)
    change(api, bob["id"], group["id"], "set", 5)
    api.patch(f"/api/contacts/{bob['id']}/edit", {"email": "ann@example.com"})
    assert [s["score"] for s in scores(api, ann["id"])["groupScores"]] == [7]
