"""Issue 34, the last automation event routes Mautic's EventLogApiController answers:
`PUT /campaigns/events/batch/edit` (editEventsAction: each item `{eventId, contactId, ...}` as the
single edit, `events` by id, errors by item), `GET /campaigns/events/contact/{contactId}` (a
contact's log across campaigns, Mautic's standalone log rows), each also under `/automations`, and
Mautic 2's `/campaigns/{id}/contact/add|remove/{leadId}`."""

import pytest

from tests.api.test_automation_events import by_name, later_automation
from tests.api.test_automations import new_automation, tag, tags
from tests.api.test_permissions import _as
from tests.api.test_segments import new_contact

LIMITED = {"lead:leads": ["viewown", "editown"], "campaign:campaigns": ["viewother", "editother"]}


def enrolled(api, automation, *emails, **values):
    people = [new_contact(api, email=email, **values) for email in emails]
    for person in people:
        assert api.post(f"/api/automations/{automation['id']}/contact/{person['id']}/add").status_code == 200
    return people


def test_batch_edit_runs_each_item_as_the_single_edit(api):
    automation = later_automation(api)
    ann, bob = enrolled(api, automation, "ann@example.com", "bob@example.com")
    ids = {e["name"]: e["id"] for e in api.get("/api/automations/events").json["events"]}
    answer = api.put(
        "/api/campaigns/events/batch/edit",
        [
            {"eventId": ids["new2"], "contactId": ann["id"], "triggerDate": "2031-05-06 07:08:09"},
            {"eventId": ids["new1"], "contactId": bob["id"], "triggerDate": "2031-01-01 00:00:00"},  # ran: 409
            {"eventId": ids["new2"], "contactId": bob["id"], "dateTriggered": "2026-01-02 03:04:05"},
            {"eventId": ids["new2"]},  # no contact: 404
            {"eventId": ids["new2"], "contactId": ann["id"], "triggerDate": "not a date"},  # 400, nothing written
        ],
    )
    assert answer.status_code == 200, answer.json
    body = answer.json
    assert body["statusCodes"] == [200, 409, 200, 404, 400]
    assert set(body["errors"]) == {"1", "3", "4"}
    assert body["errors"]["1"]["code"] == 409 and "already been executed" in body["errors"]["1"]["message"]
    assert body["errors"]["3"]["code"] == 404 and "contactId and/or eventId" in body["errors"]["3"]["message"]
    assert "triggerDate" in body["errors"]["4"]["details"]
    assert list(body["events"]) == [str(ids["new1"]), str(ids["new2"])]  # keyed by event id, as Mautic
    assert body["events"][str(ids["new1"])]["contactLog"] == []
    assert "automation" not in body["events"][str(ids["new1"])] and "campaign" not in body["events"][str(ids["new1"])]
    moved, marked = body["events"][str(ids["new2"])]["contactLog"]
    assert moved["isScheduled"] is True and moved["triggerDate"].startswith("2031-05-06T07:08:09")
    assert marked["dateTriggered"] == "2026-01-02T03:04:05+00:00" and marked["isScheduled"] is False
    log = by_name(api.get(f"/api/automations/{automation['id']}/events/contact/{ann['id']}").json["events"])
    assert log["new2"]["contactLog"][0]["triggerDate"].startswith("2031-05-06")  # the refused item wrote nothing
    same = api.put("/api/automations/events/batch/edit", [{"eventId": ids["new2"], "contactId": ann["id"]}])
    assert same.json["statusCodes"] == [200] and "errors" not in same.json and "events" in same.json
    refused = api.put("/api/automations/events/batch/edit", {"eventId": ids["new2"]})
    assert refused.status_code == 400 and "body" in refused.json["errors"][0]["details"]


def test_batch_edit_is_refused_per_item_for_a_limited_user(api):
    automation = later_automation(api)
    her = _as(api, "her", LIMITED)
    mine, theirs = enrolled(api, automation, "mine@example.com", "theirs@example.com")
    api.patch(f"/api/contacts/{mine['id']}/edit", {"owner": her.user_id})
    ids = {e["name"]: e["id"] for e in api.get("/api/automations/events").json["events"]}
    items = [
        {"eventId": ids["new2"], "contactId": theirs["id"], "triggerDate": "2031-01-01 00:00:00"},
        {"eventId": ids["new2"], "contactId": mine["id"], "triggerDate": "2031-01-01 00:00:00"},
    ]
    answer = her.put("/api/campaigns/events/batch/edit", items).json
    assert answer["statusCodes"] == [403, 200] and answer["errors"][0]["code"] == 403
    (log,) = answer["events"][str(ids["new2"])]["contactLog"]
    assert log["triggerDate"].startswith("2031-01-01")
    theirs_log = by_name(api.get(f"/api/automations/{automation['id']}/events/contact/{theirs['id']}").json["events"])
    assert not theirs_log["new2"]["contactLog"][0]["triggerDate"].startswith("2031")  # untouched
    viewer = _as(api, "viewer", {"lead:leads": ["viewother", "editother"], "campaign:campaigns": ["viewother"]})
    assert viewer.put("/api/campaigns/events/batch/edit", items).status_code == 403  # edit needed, as the single edit


def test_a_contacts_events_across_campaigns(api):
    first = later_automation(api)
    second = new_automation(api, [tag("new1", "other")], name="Other")
    ann, bob = enrolled(api, first, "ann@example.com", "bob@example.com", firstname="Ann")
    api.post(f"/api/automations/{second['id']}/contact/{ann['id']}/add")
    answer = api.get(f"/api/campaigns/events/contact/{ann['id']}")
    assert answer.status_code == 200, answer.json
    body = answer.json
    assert int(body["total"]) == 3 and [row["event"]["name"] for row in body["events"]] == ["new1", "new2", "new1"]
    done, pending, other = body["events"]
    assert done["campaign"] == {"id": first["id"], "name": "Welcome", "description": None, "isPublished": True}
    assert other["campaign"]["id"] == second["id"] and "automation" not in other
    assert set(done["event"]) == {"id", "name", "description", "type", "eventType", "channel", "channelId"}
    assert done["lead"]["id"] == ann["id"] and done["lead"]["firstname"] == "Ann" and done["lead"]["points"] == 0
    assert done["dateTriggered"] and done["isScheduled"] is False
    assert pending["isScheduled"] is True and pending["triggerDate"] and pending["dateTriggered"] is None
    ours = api.get(f"/api/automations/events/contact/{ann['id']}?start=1&limit=1").json
    assert int(ours["total"]) == 3 and ours["events"][0]["automation"]["id"] == first["id"]
    assert ours["events"][0]["event"]["name"] == "new2"
    assert api.get("/api/campaigns/events/contact/999").status_code == 404
    assert int(api.get(f"/api/campaigns/events/contact/{bob['id']}").json["total"]) == 2


def test_a_contacts_events_are_decided_on_the_contact_for_a_limited_user(api):
    automation = later_automation(api)
    her = _as(api, "her", LIMITED)
    mine, theirs = enrolled(api, automation, "mine@example.com", "theirs@example.com")
    api.patch(f"/api/contacts/{mine['id']}/edit", {"owner": her.user_id})
    assert her.get(f"/api/campaigns/events/contact/{theirs['id']}").status_code == 403
    assert her.get(f"/api/automations/events/contact/{theirs['id']}").status_code == 403
    assert int(her.get(f"/api/campaigns/events/contact/{mine['id']}").json["total"]) == 2
    nobody = _as(api, "nobody", {"lead:leads": ["viewother"]})
    assert nobody.get(f"/api/campaigns/events/contact/{mine['id']}").status_code == 403


def test_mautic_2_membership_paths_add_and_remove(api):
    campaign = later_automation(api)
    ann = new_contact(api, email="ann@example.com")
    added = api.post(f"/api/campaigns/{campaign['id']}/contact/add/{ann['id']}")
    assert added.status_code == 200 and added.json == {"success": 1}
    assert tags(api, ann["id"]) == ["now"]
    (row,) = api.get(f"/api/campaigns/{campaign['id']}/contacts").json["contacts"]
    assert row["lead_id"] == str(ann["id"])
    assert api.post(f"/api/campaigns/{campaign['id']}/contact/remove/{ann['id']}").json == {"success": 1}
    assert int(api.get(f"/api/campaigns/{campaign['id']}/contacts").json["total"]) == 0
    assert api.post(f"/api/campaigns/999/contact/add/{ann['id']}").status_code == 404
    her = _as(api, "her", LIMITED)
    assert her.post(f"/api/campaigns/{campaign['id']}/contact/add/{ann['id']}").status_code == 403
    assert int(api.get(f"/api/campaigns/{campaign['id']}/contacts").json["total"]) == 0


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_costs_of_the_contact_log_and_the_batch_edit(api):
    from tests.bench.conftest import dynamodb_calls

    automation = later_automation(api)
    people = enrolled(api, automation, *(f"p{n}@example.com" for n in range(4)))
    ids = {e["name"]: e["id"] for e in api.get("/api/automations/events").json["events"]}
    with dynamodb_calls() as calls:
        assert api.get(f"/api/campaigns/events/contact/{people[0]['id']}").status_code == 200
    assert sum(calls.values()) <= 2, dict(calls)
    items = [{"eventId": ids["new2"], "contactId": p["id"], "triggerDate": "2031-01-01 00:00:00"} for p in people]
    with dynamodb_calls() as calls:
        assert api.put("/api/campaigns/events/batch/edit", items).json["statusCodes"] == [200] * 4
    # per item the single edit's 1 GetItem, 1 TransactWriteItems (its event id from the process's block of
    # timeline ids, issue 29: before, 1 UpdateItem each); the versions once (a GetItem)
    assert dict(calls) == {"GetItem": 5, "TransactWriteItems": 4}
