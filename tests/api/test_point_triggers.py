"""Issue 9, point triggers: they fire when a contact's points are written through the contact API
(create, PATCH, PUT, batch), once per contact, with the change on the timeline; and a trigger with
`triggerExistingLeads` gives its events, in the background, to contacts already at its threshold."""

import pytest


def make_trigger(api, points=10, tag="hot", segment=None, **extra):
    events = [{"name": "Tag", "type": "lead.changetags", "properties": {"add_tags": [tag]}}]
    if segment:
        events.append({"name": "Add", "type": "lead.changelists", "properties": {"addToLists": [segment]}})
    response = api.post("/api/points/triggers/new", dict({"name": "Hot", "points": points, "events": events}, **extra))
    assert response.status_code == 201, response.json
    return response.json["trigger"]


def new_contact(api, email="pat@example.com", **values):
    response = api.post("/api/contacts/new", dict({"email": email}, **values))
    assert response.status_code in (200, 201), response.json
    return response.json["contact"]


def tags(api, contact_id):
    return [t["tag"] for t in api.get(f"/api/contacts/{contact_id}").json["contact"]["tags"]]


def segments(api, contact_id):
    return {int(k) for k in api.get(f"/api/contacts/{contact_id}/segments").json["lists"]}


def gained(api, contact_id):
    query = "filters[includeEvents][]=point.gained&limit=100"
    events = api.get(f"/api/contacts/{contact_id}/activity?{query}").json["events"]
    return [e["details"] for e in sorted(events, key=lambda e: int(e["eventId"].removeprefix("point.gained")))]


# --- points written through the contact API ----------------------------------------------------------


def test_patch_crossing_the_threshold_fires_once_and_is_on_the_timeline(api):
    segment = api.post("/api/segments/new", {"name": "Hot"}).json["list"]
    trigger = make_trigger(api, segment=segment["id"])
    person = new_contact(api)
    api.patch(f"/api/contacts/{person['id']}/edit", {"points": 5})
    assert tags(api, person["id"]) == [] and segments(api, person["id"]) == set()
    answer = api.patch(f"/api/contacts/{person['id']}/edit", {"points": 12})
    assert answer.status_code == 200 and answer.json["contact"]["points"] == 12
    assert [t["tag"] for t in answer.json["contact"]["tags"]] == ["hot"]
    assert segments(api, person["id"]) == {segment["id"]}
    first, second = gained(api, person["id"])
    assert first == {"action": "API", "delta": 5, "operator": "set", "oldPoints": 0, "newPoints": 5}
    assert second["oldPoints"] == 5 and second["newPoints"] == 12 and second["delta"] == 7
    assert second["triggerEvents"] == [e["id"] for e in trigger["events"]]
    api.patch(f"/api/contacts/{person['id']}/edit", {"tags": ["-hot"]})
    api.post(f"/api/segments/{segment['id']}/contact/{person['id']}/remove")
    api.patch(f"/api/contacts/{person['id']}/edit", {"points": 3})
    api.patch(f"/api/contacts/{person['id']}/edit", {"points": 20})
    assert tags(api, person["id"]) == [] and segments(api, person["id"]) == set()
    assert [g.get("triggerEvents") for g in gained(api, person["id"])][2:] == [None, None]


def test_patch_without_a_points_change_records_nothing(api):
    make_trigger(api)
    person = new_contact(api, points=4)
    api.patch(f"/api/contacts/{person['id']}/edit", {"city": "Prague", "points": 4})
    assert len(gained(api, person["id"])) == 1 and tags(api, person["id"]) == []


def test_put_crossing_the_threshold_fires(api):
    make_trigger(api)
    person = new_contact(api)
    answer = api.put(f"/api/contacts/{person['id']}/edit", {"email": "pat@example.com", "points": 10})
    assert answer.status_code == 200 and [t["tag"] for t in answer.json["contact"]["tags"]] == ["hot"]


def test_batch_edit_fires_for_the_contacts_that_cross(api):
    make_trigger(api)
    ann, bob = new_contact(api, "ann@example.com"), new_contact(api, "bob@example.com")
    answer = api.patch("/api/contacts/batch/edit", [{"id": ann["id"], "points": 11}, {"id": bob["id"], "points": 9}])
    assert answer.json["statusCodes"] == [200, 200]
    assert tags(api, ann["id"]) == ["hot"] and tags(api, bob["id"]) == []


@pytest.mark.parametrize("how", ["new", "batch/new", "put"])
def test_a_contact_created_with_points_fires(api, how):
    trigger = make_trigger(api)
    body = {"email": "pat@example.com", "points": 15}
    if how == "new":
        created = api.post("/api/contacts/new", body).json["contact"]
    elif how == "batch/new":
        (created,) = api.post("/api/contacts/batch/new", [body]).json["contacts"]
    else:
        created = api.put("/api/contacts/77/edit", body).json["contact"]
    assert [t["tag"] for t in created["tags"]] == ["hot"]
    (change,) = gained(api, created["id"])
    assert change["oldPoints"] == 0 and change["newPoints"] == 15
    assert change["triggerEvents"] == [e["id"] for e in trigger["events"]]


def test_points_going_down_do_not_fire(api):
    person = new_contact(api, points=30)
    make_trigger(api)
    for points in (20, 10, 2):
        api.patch(f"/api/contacts/{person['id']}/edit", {"points": points})
    assert tags(api, person["id"]) == []
    assert [g["newPoints"] for g in gained(api, person["id"])] == [30, 20, 10, 2]


def test_a_create_that_updates_a_duplicate_counts_from_its_points(api):
    make_trigger(api)
    person = new_contact(api, points=8)
    again = api.post("/api/contacts/new", {"email": "pat@example.com", "points": 12}).json["contact"]
    assert again["id"] == person["id"] and [t["tag"] for t in again["tags"]] == ["hot"]
    assert [(g["oldPoints"], g["newPoints"]) for g in gained(api, person["id"])] == [(0, 8), (8, 12)]


def test_a_patch_of_points_reaches_the_points_webhook(api, drain, receiver):
    api.post("/api/hooks/new", {"name": "R", "webhookUrl": receiver.url, "triggers": ["mautic.lead_points_change"]})
    person = new_contact(api)
    api.patch(f"/api/contacts/{person['id']}/edit", {"points": 7})
    drain()
    (request,) = receiver.received
    (event,) = request.json["mautic.lead_points_change"]
    assert event["points"] == {"old_points": 0, "new_points": 7} and event["contact"]["id"] == person["id"]


# --- triggerExistingLeads ----------------------------------------------------------------------------


def existing(api):
    return {points: new_contact(api, f"p{points}@example.com", points=points)["id"] for points in (5, 10, 20)}


def test_existing_contacts_at_the_threshold_get_the_events_in_the_background(api, drain):
    segment = api.post("/api/segments/new", {"name": "Hot"}).json["list"]
    people = existing(api)
    trigger = make_trigger(api, segment=segment["id"], triggerExistingLeads=True)
    assert tags(api, people[20]) == []  # not in the request
    drain()
    assert {points: tags(api, contact_id) for points, contact_id in people.items()} == {5: [], 10: ["hot"], 20: ["hot"]}
    assert segments(api, people[10]) == {segment["id"]} and segments(api, people[5]) == set()
    noted = gained(api, people[20])[-1]
    assert noted["action"] == "Trigger" and noted["pointTriggerId"] == trigger["id"] and noted["delta"] == 0
    assert noted["triggerEvents"] == [e["id"] for e in trigger["events"]]


def test_a_trigger_without_the_flag_leaves_existing_contacts_alone(api, drain):
    people = existing(api)
    make_trigger(api)
    drain()
    assert all(tags(api, contact_id) == [] for contact_id in people.values())


def test_an_unpublished_trigger_waits_until_it_is_published(api, drain):
    people = existing(api)
    trigger = make_trigger(api, triggerExistingLeads=True, isPublished=False)
    drain()
    assert tags(api, people[20]) == []
    api.patch(f"/api/points/triggers/{trigger['id']}/edit", {"isPublished": True})
    drain()
    assert tags(api, people[20]) == ["hot"] and tags(api, people[5]) == []


def test_lowering_the_threshold_reaches_more_contacts(api, drain):
    people = existing(api)
    trigger = make_trigger(api, points=15, triggerExistingLeads=True)
    drain()
    assert tags(api, people[20]) == ["hot"] and tags(api, people[10]) == []
    api.patch(f"/api/points/triggers/{trigger['id']}/edit", {"points": 8})
    drain()
    assert tags(api, people[10]) == ["hot"] and tags(api, people[5]) == []
    assert len([g for g in gained(api, people[20]) if g["action"] == "Trigger"]) == 1


def test_a_pass_run_twice_changes_nothing_more(api, drain):
    from chalicelib.ports import queues

    segment = api.post("/api/segments/new", {"name": "Hot"}).json["list"]
    people = existing(api)
    trigger = make_trigger(api, segment=segment["id"], triggerExistingLeads=True)
    drain()
    before = api.get(f"/api/contacts/{people[20]}/activity?limit=100").json["total"]
    batch = {"type": "trigger-batch", "trigger": trigger["id"], "first": 1, "last": 100}
    queues.send("segments", [batch, batch, {"type": "trigger-plan", "trigger": trigger["id"]}])
    drain()
    assert int(api.get(f"/api/contacts/{people[20]}/activity?limit=100").json["total"]) == before
    assert tags(api, people[20]) == ["hot"] and segments(api, people[20]) == {segment["id"]}


def test_email_events_reach_patched_and_existing_contacts_once(api, drain):
    from tests.api.test_email_send import make_email, sent_messages

    mail_doc = make_email(api)
    new_contact(api, "ann@example.com", points=30)
    bob = new_contact(api, "bob@example.com")
    send = {"type": "email.send", "name": "Send", "properties": {"email": mail_doc["id"]}}
    trigger = api.post(
        "/api/points/triggers/new", {"name": "Hot", "points": 10, "triggerExistingLeads": True, "events": [send]}
    ).json["trigger"]
    api.patch(f"/api/contacts/{bob['id']}/edit", {"points": 10})
    drain()
    api.patch(f"/api/points/triggers/{trigger['id']}/edit", {"points": 5})
    api.patch(f"/api/contacts/{bob['id']}/edit", {"points": 0})
    api.patch(f"/api/contacts/{bob['id']}/edit", {"points": 10})
    drain()
    assert sorted(m["To"].addresses[0].addr_spec for m in sent_messages()) == ["ann@example.com", "bob@example.com"]


def test_a_contact_written_during_the_pass_keeps_both_changes(api):
    from chalicelib.domain.kernel.context import Context
    from chalicelib.domain.points import point_triggers
    from chalicelib.store import port as store

    person = new_contact(api, points=20)
    stale = store.get("contact", person["id"])
    trigger = make_trigger(api, triggerExistingLeads=True)
    api.patch(f"/api/contacts/{person['id']}/edit", {"city": "Prague"})
    point_triggers._give(stale, trigger["id"], Context())
    after = api.get(f"/api/contacts/{person['id']}").json["contact"]
    assert after["fields"]["all"]["city"] == "Prague" and [t["tag"] for t in after["tags"]] == ["hot"]


@pytest.mark.aws  # counts DynamoDB calls: over moto
def test_the_pass_reads_its_contacts_in_batches_not_by_shard(api, drain):
    """A batch of the existing-contacts pass reads its contacts in one BatchGetItem (it was a range
    Query per contact shard, 32 a batch); what remains is a timeline Query per contact at the threshold,
    which tells whether the trigger's events were given before."""
    from tests.bench.conftest import dynamodb_calls

    due = [new_contact(api, f"d{n}@example.com", points=20)["id"] for n in range(20)]
    below = [new_contact(api, f"b{n}@example.com", points=5)["id"] for n in range(20)]
    make_trigger(api, triggerExistingLeads=True)
    with dynamodb_calls() as calls:
        drain()
    assert calls["Query"] <= len(due) + 3 and calls["BatchGetItem"] <= 2, dict(calls)
    assert all(tags(api, c) == ["hot"] for c in due) and all(tags(api, c) == [] for c in below)
