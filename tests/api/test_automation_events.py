"""Issue 17: automation events on their own and a contact's event log, as Mautic's CampaignBundle
EventApiController (`GET /campaigns/events`, `/campaigns/events/{id}`: `{"total", "events": [...]}`
and `{"event": {...}}`) and EventLogApiController (`GET /campaigns/{id}/events/contact/{contactId}`:
the automation's events each with its `contactLog`, the automation and the membership;
`PUT /campaigns/events/{eventId}/contact/{contactId}/edit`: EventLogModel::updateContactEvent,
201 when a log is created, 409 for its refusals), campaigns renamed automations."""

from chalicelib.domain.automations import automation_runs, journey_routing
from chalicelib.store import port as store
from tests.api.test_automations import contact, new_automation, run_due, tag, tags
from tests.api.test_segments import new_contact


def later_automation(api):
    return new_automation(
        api,
        [
            tag("new1", "now"),
            tag("new2", "tomorrow", parent="new1", triggerMode="interval", triggerInterval=1, triggerIntervalUnit="d"),
        ],
    )


def by_name(events):
    return {e["name"]: e for e in events}


def test_events_list_and_one(api):
    first = later_automation(api)
    second = new_automation(api, [tag("new1", "other")], name="Other")
    listed = api.get("/api/automations/events").json
    assert listed["total"] == 3 and isinstance(listed["events"], list)
    assert [e["automation"]["id"] for e in listed["events"]] == [first["id"], first["id"], second["id"]]
    page = api.get("/api/automations/events?orderBy=id&orderByDir=DESC&limit=1&start=1").json
    assert page["total"] == 3 and [e["id"] for e in page["events"]] == [listed["events"][1]["id"]]
    assert api.get("/api/automations/events?search=new2").json["total"] == 1
    assert api.get("/api/automations/events?orderBy=nope").status_code == 400
    one = api.get(f"/api/automations/events/{listed['events'][1]['id']}").json["event"]
    assert one["name"] == "new2" and one["parent"]["id"] == listed["events"][0]["id"]
    assert one["triggerMode"] == "interval" and one["automation"]["name"] == "Welcome"
    assert api.get("/api/automations/events/999").status_code == 404


def test_a_contacts_event_log_in_the_automation(api):
    automation = later_automation(api)
    ann = new_contact(api, email="ann@example.com")
    path = f"/api/automations/{automation['id']}/events/contact/{ann['id']}"
    refused = api.get(path)
    assert refused.status_code == 409 and "is not in the campaign" in refused.json["errors"][0]["message"]
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    answer = api.get(path).json
    assert answer["total"] == 2 and answer["automation"]["id"] == automation["id"]
    assert answer["membership"][0]["contact"] == ann["id"] and answer["membership"][0]["manuallyAdded"] is True
    events = by_name(answer["events"])
    (done,) = events["new1"]["contactLog"]
    assert done["dateTriggered"] and done["isScheduled"] is False
    (scheduled,) = events["new2"]["contactLog"]
    assert scheduled["isScheduled"] is True and scheduled["triggerDate"] and scheduled["dateTriggered"] is None
    assert api.get(f"/api/automations/999/events/contact/{ann['id']}").status_code == 404
    assert api.get(f"/api/automations/{automation['id']}/events/contact/999").status_code == 404


def test_rescheduling_and_triggering_a_pending_event(api, drain, frozen):
    automation = later_automation(api)
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    events = by_name(api.get(f"/api/automations/{automation['id']}/events/contact/{ann['id']}").json["events"])
    edit = f"/api/automations/events/{events['new2']['id']}/contact/{ann['id']}/edit"
    later = frozen.moment.replace(year=frozen.moment.year + 1, microsecond=0)
    moved = api.put(edit, {"triggerDate": later.strftime("%Y-%m-%d %H:%M:%S")})
    assert moved.status_code == 200 and moved.json["event"]["id"] == events["new2"]["id"]
    (log,) = moved.json["event"]["contactLog"]
    assert log["isScheduled"] is True and log["triggerDate"].startswith(str(later.year))
    frozen.advance(days=2)
    run_due(drain)
    assert tags(api, ann["id"]) == ["now"]  # no longer due tomorrow
    assert api.put(edit, {}).status_code == 200  # no triggerDate: rescheduled for now...
    run_due(drain)
    assert tags(api, ann["id"]) == ["now"]  # ...run by the next minute job, as Mautic's next campaign:trigger
    frozen.advance(minutes=1)
    run_due(drain)
    assert tags(api, ann["id"]) == ["now", "tomorrow"]
    again = api.put(edit, {"triggerDate": later.isoformat()})
    assert again.status_code == 409 and "already been executed" in again.json["errors"][0]["message"]


def test_editing_refusals_and_created_logs(api):
    automation = new_automation(
        api,
        [
            tag("new1", "now"),
            {
                "id": "new2",
                "name": "opened",
                "type": "email.open",
                "eventType": "decision",
                "properties": {},
                "parent": "new1",
                "decisionPath": None,
            },
        ],
    )
    ann = new_contact(api, email="ann@example.com")
    ids = {e["name"]: e["id"] for e in api.get("/api/automations/events").json["events"]}
    edit = f"/api/automations/events/{ids['opened']}/contact/{ann['id']}/edit"
    assert api.put(edit, {"triggerDate": "2030-01-01 00:00:00"}).status_code == 409  # not a member
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    refused = api.put(edit, {"triggerDate": "2030-01-01 00:00:00"})
    assert refused.status_code == 409 and "cannot be scheduled" in refused.json["errors"][0]["message"]
    assert api.put(edit, {}).status_code == 409  # nothing scheduled and no date: nothing to do
    marked = api.put(edit, {"dateTriggered": "2026-01-02 03:04:05"})
    assert marked.status_code == 201
    (log,) = marked.json["event"]["contactLog"]
    assert log["dateTriggered"] == "2026-01-02T03:04:05+00:00" and log["isScheduled"] is False
    assert api.put(edit, {"dateTriggered": "not a date"}).status_code == 409  # executed already
    assert api.put(f"/api/automations/events/999/contact/{ann['id']}/edit", {}).status_code == 404
    assert contact(api, ann["id"])["id"] == ann["id"]


def _scheduled_row(api, automation, ann):
    events = by_name(api.get(f"/api/automations/{automation['id']}/events/contact/{ann['id']}").json["events"])
    return events["new2"]["contactLog"]


def test_a_past_date_set_by_a_client_stays_editable_until_the_next_run(api, drain, frozen):
    """Issue 39: PUT a past `triggerDate`, then edit again: the second edit is taken (no "has already been
    executed"), because the event waits for the next minute job as Mautic's log waits for campaign:trigger."""
    automation = later_automation(api)
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    edit = f"/api/automations/events/{_event_id(api, 'new2')}/contact/{ann['id']}/edit"
    past = frozen.moment.replace(year=frozen.moment.year - 1, microsecond=0)
    assert api.put(edit, {"triggerDate": past.isoformat()}).status_code == 200
    drain()  # the workers run whatever is queued: nothing is
    run_due(drain)  # nor does the minute job of this very minute take it
    (row,) = _scheduled_row(api, automation, ann)
    assert row["isScheduled"] is True and row["triggerDate"].startswith(str(past.year))
    later = frozen.moment.replace(year=frozen.moment.year + 1, microsecond=0)
    assert api.put(edit, {"triggerDate": later.isoformat()}).status_code == 200  # the edit wins
    frozen.advance(minutes=5)
    run_due(drain)
    assert tags(api, ann["id"]) == ["now"]
    (row,) = _scheduled_row(api, automation, ann)
    assert row["triggerDate"].startswith(str(later.year))


def test_a_worker_that_read_the_contact_before_an_edit_does_not_run_the_old_schedule(api, frozen, monkeypatch):
    """The worker's claim is conditional on the contact's revision: a fire message for the schedule a
    client replaced, read just before the edit was stored, finds on its fresh read that it is gone."""
    automation = later_automation(api)
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    edit = f"/api/automations/events/{_event_id(api, 'new2')}/contact/{ann['id']}/edit"
    assert api.put(edit, {"triggerDate": "2020-01-01 00:00:00"}).status_code == 200
    (due,) = list(store.iterate(journey_routing.due_kind(ann["id"])))
    read_before_edit = store.get("contact", ann["id"])
    assert api.put(edit, {"triggerDate": "2099-01-01 00:00:00"}).status_code == 200
    real_get, reads = store.get, []

    def stale_first(kind, entity_id):
        reads.append(kind)
        return read_before_edit if kind == "contact" and reads.count("contact") == 1 else real_get(kind, entity_id)

    monkeypatch.setattr(store, "get", stale_first)
    automation_runs.fire(ann["id"], due["id"])
    monkeypatch.undo()
    assert reads.count("contact") == 2  # the stale claim was refused, the fresh read found nothing due
    assert tags(api, ann["id"]) == ["now"]
    (row,) = _scheduled_row(api, automation, ann)
    assert row["isScheduled"] is True and row["triggerDate"].startswith("2099")


def _event_id(api, name):
    return next(e["id"] for e in api.get("/api/automations/events").json["events"] if e["name"] == name)
