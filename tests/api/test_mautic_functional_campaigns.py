"""Mautic's campaign API functional tests (`InfiniteLoopValidatorFunctionalTest`, `EventLogApiControllerTest`,
LeadBundle's `CampaignSubscriberFunctionalTest`), read as HTTP requests with the same assertions."""

import pytest

from tests.api.test_automations import run_due
from tests.api.test_mautic_functional import posted
from tests.api.test_segments import new_contact


def _loop_payload(segment_id, mode, interval, unit):
    """The campaign of `testValidationViaCampaignApi`: a segment source, `campaign.addremovelead` adding
    the contact to `this` campaign again, and a points change, both with the timing under test."""
    timing = {"triggerMode": mode, "triggerInterval": interval, "triggerIntervalUnit": unit}

    def event(ref, name, type_, properties):
        inner = dict(timing, anchor="leadsource", type=type_, eventType="action", anchorEventType="source")
        inner.update(properties=properties, **properties)
        return dict(
            timing,
            id=ref,
            name=name,
            type=type_,
            eventType="action",
            properties=dict(inner, canvasSettings={"droppedX": "833", "droppedY": "155"}),
            decisionPath=None,
            parent=None,
            children=[],
        )

    return {
        "name": "Loop test",
        "events": [
            event("new_30", "Change campaigns", "campaign.addremovelead", {"addTo": ["this"], "removeFrom": []}),
            event("new_31", "Change points", "lead.changepoints", {"points": 2}),
        ],
        "lists": [segment_id],
        "canvasSettings": {
            "nodes": [
                {"id": "new_30", "positionX": 833, "positionY": 155},
                {"id": "new_31", "positionX": 833, "positionY": 155},
                {"id": "lists", "positionX": 933, "positionY": 50},
            ],
            "connections": [
                {"sourceId": "lists", "targetId": ref, "anchors": {"source": "leadsource", "target": "top"}}
                for ref in ("new_30", "new_31")
            ],
        },
    }


@pytest.mark.parametrize(
    "mode, interval, unit, message",
    [
        ("immediate", 1, "i", "Campaign cannot restart itself without a delay. Please add at least 30 minute delay."),
        ("interval", 29, "i", "Your delay is only 29 minutes. It must be at least 30 minutes."),
        ("interval", 30, "i", None),
        ("interval", 1, "h", None),
    ],
)
def test_validation_via_campaign_api(api, mode, interval, unit, message):
    """`InfiniteLoopValidatorFunctionalTest::testValidationViaCampaignApi`: 422 naming the delay, nothing saved."""
    segment = api.post("/api/segments/new", {"name": "Test", "alias": "test"}).json["list"]["id"]
    answer = posted(api, "POST", "/api/campaigns/new", _loop_payload(segment, mode, interval, unit))
    assert answer.status_code == (422 if message else 201), answer.json
    if message:
        assert message in answer.body.decode()
        assert answer.json["errors"][0]["code"] == 422
        assert api.get("/api/campaigns").json["total"] in (0, "0")


def test_a_restart_too_soon_is_refused_on_edit_too(api):
    """An edit that makes an automation restart itself immediately is refused the same way (PATCH)."""
    segment = api.post("/api/segments/new", {"name": "Test"}).json["list"]["id"]
    created = posted(api, "POST", "/api/campaigns/new", _loop_payload(segment, "interval", 1, "d")).json["campaign"]
    events = [{"id": event["id"], "triggerMode": "immediate"} for event in created["events"]]
    answer = api.patch(f"/api/campaigns/{created['id']}/edit", {"events": events})
    assert answer.status_code == 422, answer.json
    assert {
        event["triggerMode"] for event in api.get(f"/api/campaigns/{created['id']}").json["campaign"]["events"]
    } == {"interval"}


def test_update_lead_action(api, drain):
    """`CampaignSubscriberFunctionalTest::testUpdateLeadAction`: `lead.updatelead` with `points` 42 sets
    every member's points to 42 (from none, 0 and 1); empty fields are left alone."""
    people = [
        new_contact(api, email="contact1@email.com", firstname="Isaac", lastname="Asimov"),
        new_contact(api, email="contact2@email.com", firstname="Robert A.", lastname="Heinlein", points=0),
        new_contact(api, email="contact3@email.com", firstname="Arthur C.", lastname="Clarke", points=1),
    ]
    fields = {"firstname": "", "lastname": "", "city": "", "points": 42}
    campaign = api.post(
        "/api/campaigns/new",
        {
            "name": "Update",
            "events": [
                {"id": "new1", "name": "Update", "type": "lead.updatelead", "eventType": "action", "properties": fields}
            ],
        },
    ).json["campaign"]
    for person in people:
        assert api.post(f"/api/campaigns/{campaign['id']}/contact/{person['id']}/add").status_code == 200
    run_due(drain)
    shown = [api.get(f"/api/contacts/{person['id']}").json["contact"] for person in people]
    assert [contact["points"] for contact in shown] == [42, 42, 42]
    assert [contact["fields"]["all"]["firstname"] for contact in shown] == ["Isaac", "Robert A.", "Arthur C."]


def test_batch_edit_events_put(api):
    """`EventLogApiControllerTest::testBatchEditEventsPut`, with Mautic's messages. Mautic's own test pins a
    bug: its second item (another contact, same event) is refused with the first contact's date, as its
    batch looks the log up on the event it just added to; here each contact's own log decides, so that
    item schedules the event (docs/mautic-compat.md)."""
    events = [
        {"id": f"new{n}", "name": f"Test Event {n}", "type": kind, "eventType": role, "properties": props}
        for n, kind, role, props in (
            (1, "lead.changepoints", "action", {"points": 1}),
            (2, "lead.changepoints", "action", {"points": 1}),
            (3, "asset.download", "decision", {}),
        )
    ]
    campaign = api.post("/api/campaigns/new", {"name": "Test Campaign", "isPublished": False, "events": events})
    campaign = campaign.json["campaign"]
    first, second, third = (event["id"] for event in campaign["events"])
    people = [
        new_contact(api, email=email)["id"] for email in ("johana@doe.nohama", "johana@doe.mohana", "johana@doe.monana")
    ]
    for person in people[:2]:
        assert api.post(f"/api/campaigns/{campaign['id']}/contact/{person}/add").status_code == 200
    one, two, three = people
    payload = [
        {"contactId": one, "eventId": first, "dateTriggered": "2016-01-10 00:00:00"},
        {"contactId": two, "eventId": first, "triggerDate": "2017-01-10 00:00:00"},
        {"contactId": one, "eventId": second, "triggerDate": "2016-01-11 00:00:00"},
        {"contactId": two, "eventId": second, "triggerDate": "2016-01-11 00:00:00"},
        {"contactId": three, "eventId": second, "triggerDate": "2017-01-10 00:00:00"},
        {"contactId": one, "eventId": third, "triggerDate": "2016-01-11 00:00:00"},
    ]
    answer = posted(api, "PUT", "/api/campaigns/events/batch/edit", payload).json
    assert [len(answer["events"][str(event)]["contactLog"]) for event in (first, second, third)] == [2, 2, 0]
    messages = [error["message"] for error in answer["errors"].values()]
    assert messages == [
        f"The contact {three} is not in the campaign {campaign['id']}.",
        f"A decision type event cannot be scheduled. Event: {third}, campaign: {campaign['id']}, contact: {one}.",
    ]
    again = posted(api, "PUT", "/api/campaigns/events/batch/edit", payload[:1]).json
    assert again["errors"][0]["message"] == (  # one error at index 0: a list, as PHP encodes it
        f"The event {first} in the campaign {campaign['id']} has already been executed at 2016-01-10T00:00:00+00:00 "
        f"for the contact {one}."
    )
