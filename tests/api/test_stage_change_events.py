"""The contact's stage changed by a point trigger event and by a form submit action, both `stage.change`
with the property `stage` (Mautic's only stage-changing event, its campaign action; Mautic core has
neither a stage point-trigger event nor a stage form action, see docs/stages.md): the contact enters
the stage as `POST /stages/{id}/contact/{contactId}/add` puts it (whatever the weights), with its
`stage.changed` event and its contacts-by-stage index item, in the write that fired them."""

from tests.api.payloads import assert_error
from tests.api.test_forms_submit import make_form, post
from tests.api.test_permissions import _as
from tests.api.test_point_triggers import gained, new_contact
from tests.api.test_stages import changes, new_stage, stage_of


def stage_trigger(api, stage_id, points=10, **extra):
    events = [{"name": "To stage", "type": "stage.change", "properties": {"stage": stage_id}}]
    r = api.post("/api/points/triggers/new", dict({"name": "Qualified", "points": points, "events": events}, **extra))
    assert r.status_code == 201, r.json
    return r.json["trigger"]


def staged_ids(api, name):
    r = api.get(f"/api/contacts?search=stage:{name}&limit=0")
    assert r.status_code == 200, r.json
    return sorted(int(i) for i in r.json["contacts"])


def test_a_point_trigger_moves_the_contact_into_the_stage(api):
    low, high = new_stage(api, "Lead", 10), new_stage(api, "Customer", 50)
    trigger = stage_trigger(api, low["id"])
    ann = new_contact(api, "ann@example.com", stage=high["id"], points=0)
    r = api.post(f"/api/contacts/{ann['id']}/points/plus/12")
    assert r.status_code == 200, r.json
    assert stage_of(api, ann["id"])["id"] == low["id"]  # whatever the weights, as the add endpoint
    assert changes(api, ann["id"])[-1] == (
        f"{low['id']}: Lead",
        {"reference": low["id"], "eventName": f"{low['id']}: Lead", "actionName": "Point trigger Qualified"},
    )
    assert staged_ids(api, "Lead") == [ann["id"]] and staged_ids(api, "Customer") == []
    assert gained(api, ann["id"])[-1]["triggerEvents"] == [trigger["events"][0]["id"]]
    # once per contact: crossing the threshold again does not move it back
    api.post(f"/api/stages/{high['id']}/contact/{ann['id']}/add")
    api.post(f"/api/contacts/{ann['id']}/points/minus/12")
    api.post(f"/api/contacts/{ann['id']}/points/plus/12")
    assert stage_of(api, ann["id"])["id"] == high["id"]


def test_triggered_for_existing_contacts_in_the_background(api, drain):
    stage = new_stage(api, "Lead")
    rich, poor = new_contact(api, "rich@example.com", points=20), new_contact(api, "poor@example.com", points=2)
    stage_trigger(api, stage["id"], triggerExistingLeads=True)
    drain()
    assert stage_of(api, rich["id"])["id"] == stage["id"] and stage_of(api, poor["id"]) is None
    assert changes(api, rich["id"])[-1][1]["actionName"] == "Point trigger Qualified"
    assert staged_ids(api, "Lead") == [rich["id"]]


def test_a_trigger_naming_no_or_an_unknown_stage_is_400_and_writes_nothing(api):
    for properties in ({}, {"stage": 999}):
        events = [{"name": "x", "type": "stage.change", "properties": properties}]
        r = api.post("/api/points/triggers/new", {"name": "T", "points": 1, "events": events})
        assert_error(r, 400, field="events[0][properties][stage]")
    assert int(api.get("/api/points/triggers").json["total"]) == 0


def test_the_trigger_event_catalogue_stays_mautics(api):
    assert "stage.change" not in api.get("/api/points/triggers/events/types").json["eventTypes"]


def test_a_trigger_whose_stage_was_deleted_does_nothing_and_stays_due(api):
    stage = new_stage(api, "Lead")
    stage_trigger(api, stage["id"])
    api.delete(f"/api/stages/{stage['id']}/delete")
    ann = new_contact(api, "ann@example.com", points=0)
    assert api.post(f"/api/contacts/{ann['id']}/points/plus/12").status_code == 200
    assert stage_of(api, ann["id"]) is None and "triggerEvents" not in gained(api, ann["id"])[-1]


# --- the form action ------------------------------------------------------------------------------


def stage_form(api, stage_id):
    return make_form(api, actions=[{"name": "Qualify", "type": "stage.change", "properties": {"stage": stage_id}}])


def test_a_form_submission_moves_the_contact_into_the_stage(api):
    stage = new_stage(api, "Lead")
    form = stage_form(api, stage["id"])
    r = post(api, form["id"], {"email": "ann@example.com"})
    assert r.status_code in (200, 302), r.body
    ann = api.get("/api/contacts?search=email:ann@example.com").json["contacts"]
    (contact_id,) = [int(i) for i in ann]
    assert stage_of(api, contact_id)["id"] == stage["id"]
    assert changes(api, contact_id) == [
        (
            f"{stage['id']}: Lead",
            {"reference": stage["id"], "eventName": f"{stage['id']}: Lead", "actionName": "Form Newsletter"},
        )
    ]
    assert staged_ids(api, "Lead") == [contact_id]
    post(api, form["id"], {"email": "ann@example.com"})  # already there: no second event
    assert len(changes(api, contact_id)) == 1


def test_a_form_action_naming_no_or_an_unknown_stage_is_400_and_writes_nothing(api):
    for properties in ({}, {"stage": 999}):
        actions = [{"name": "Qualify", "type": "stage.change", "properties": properties}]
        assert_error(
            api.post("/api/forms/new", {"name": "F", "actions": actions}), 400, field="actions[0][properties][stage]"
        )
    assert int(api.get("/api/forms").json["total"]) == 0


def test_a_form_action_whose_stage_was_deleted_is_recorded_as_failed(api):
    stage = new_stage(api, "Lead")
    form = stage_form(api, stage["id"])
    api.delete(f"/api/stages/{stage['id']}/delete")
    post(api, form["id"], {"email": "ann@example.com"})
    (contact_id,) = [int(i) for i in api.get("/api/contacts?search=email:ann@example.com").json["contacts"]]
    assert stage_of(api, contact_id) is None
    r = api.get(f"/api/contacts/{contact_id}/activity?filters[includeEvents][]=form.action.failed")
    assert [e["details"]["action"]["type"] for e in r.json["events"]] == ["stage.change"]


# --- access ---------------------------------------------------------------------------------------


def test_naming_a_stage_needs_its_view_and_a_refusal_writes_and_reveals_nothing(api):
    stage = new_stage(api, "Secret stage")
    limited = _as(api, "limited", {"form:forms": ["full"], "point:triggers": ["full"]})
    actions = [{"name": "Qualify", "type": "stage.change", "properties": {"stage": stage["id"]}}]
    r = limited.post("/api/forms/new", {"name": "F", "actions": actions})
    assert r.status_code == 403 and "Secret" not in r.body.decode()
    events = [{"name": "x", "type": "stage.change", "properties": {"stage": stage["id"]}}]
    r = limited.post("/api/points/triggers/new", {"name": "T", "points": 1, "events": events})
    assert r.status_code == 403 and "Secret" not in r.body.decode()
    assert int(api.get("/api/forms").json["total"]) == 0 and int(api.get("/api/points/triggers").json["total"]) == 0
    viewer = _as(api, "viewer", {"form:forms": ["full"], "point:triggers": ["full"], "stage:stages": ["view"]})
    assert viewer.post("/api/forms/new", {"name": "F", "actions": actions}).status_code == 201
    assert viewer.post("/api/points/triggers/new", {"name": "T", "points": 1, "events": events}).status_code == 201
