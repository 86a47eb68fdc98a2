"""Issue 34, frequency caps: a contact's own email rule caps marketing sends (segment sends, an
automation's marketing emails) as Mautic's `MessageQueueModel::processFrequencyRules` does: the capped
send is deferred one DAY/WEEK/MONTH (a due item woken by the minute job, a `message.queue` event),
sent when due unless still capped (then deferred one more period, three tries in all), exactly once,
and erased with its contact. Transactional sends and contacts without a rule are not affected."""

import pytest

from chalicelib.domain.automations import automation_runs
from chalicelib.domain.kernel import due_items
from chalicelib.domain.messaging import deferred_sends, recipients
from chalicelib.ports import queues
from chalicelib.store import port as store
from tests.api.test_automations import action, executed, new_automation
from tests.api.test_email_segment_send import PRAGUE
from tests.api.test_email_send import make_email, sent_messages
from tests.bench.conftest import dynamodb_calls

ONE_A_DAY = {"email": {"frequency_number": 1, "frequency_time": "DAY"}}


def _contact(api, name, rules=None):
    body = {"email": f"{name}@example.com", "firstname": name, "city": "Prague"}
    if rules:
        body["frequencyRules"] = rules
    response = api.post("/api/contacts/new", body)
    assert response.status_code == 201, response.json
    return response.json["contact"]


def _segment(api, drain):
    segment = api.post("/api/segments/new", {"name": "Prague", "filters": PRAGUE}).json["list"]
    drain()
    return segment


def _received(name):
    return [m["Subject"] for m in sent_messages() if m["To"].addresses[0].addr_spec == f"{name}@example.com"]


def _run_due(drain):
    automation_runs.dispatch()
    drain()


def _record(mail, contact):
    return store.get(recipients.record_kind(mail["id"]), contact["id"])


def _due(contact):
    return [item for item in store.iterate(due_items.due_kind(contact["id"])) if item.get("contact") == contact["id"]]


def _queued_events(api, contact):
    events = api.get(f"/api/contacts/{contact['id']}/activity").json["events"]
    return [e for e in events if e["event"] == "message.queue"]


@pytest.fixture
def capped(api, drain, frozen):
    """Ann (one email a DAY) and Bob (no rule), both sent the segment email `First`, then `Second`."""
    ann, bob = _contact(api, "ann", ONE_A_DAY), _contact(api, "bob")
    segment = _segment(api, drain)
    first = make_email(api, name="First", subject="First", emailType="list", lists=[segment["id"]])
    second = make_email(api, name="Second", subject="Second", emailType="list", lists=[segment["id"]])
    assert api.post(f"/api/emails/{first['id']}/send").json["sentCount"] == 2
    drain()
    frozen.advance(hours=1)
    answer = api.post(f"/api/emails/{second['id']}/send").json
    drain()
    return ann, bob, first, second, answer


def test_a_capped_contact_gets_the_second_segment_email_when_its_day_is_over(api, drain, frozen, capped):
    ann, bob, first, second, answer = capped
    assert answer["sentCount"] == 1  # Bob now, Ann deferred
    assert _received("bob") == ["First", "Second"] and _received("ann") == ["First"]
    record = _record(second, ann)
    assert record["status"] == "deferred" and record["queueAttempts"] == 0
    (queued,) = _queued_events(api, ann)
    assert queued["eventLabel"] == f"Message Queued for channel - email {second['id']}"
    assert queued["details"]["scheduledDate"] == record["dueAt"] and queued["details"]["status"] == "pending"
    assert api.get(f"/api/emails/{second['id']}").json["email"]["sendProgress"]["deferred"] == 1
    assert api.post(f"/api/emails/{second['id']}/send").json["sentCount"] == 0  # a new run leaves Ann out
    drain()
    frozen.advance(hours=22)
    _run_due(drain)
    assert _received("ann") == ["First"]  # not due yet
    frozen.advance(hours=2)
    _run_due(drain)
    assert _received("ann") == ["First", "Second"]
    assert _record(second, ann)["status"] == "sent" and _due(ann) == []
    frozen.advance(days=2)
    _run_due(drain)
    assert _received("ann") == ["First", "Second"]  # once


def test_still_capped_when_due_it_waits_one_more_day_and_gives_up_after_three_tries(api, drain, frozen, capped):
    ann, _, first, second, _ = capped
    transactional = make_email(api, name="Receipt", subject="Receipt")
    for attempt in (1, 2, 3):
        frozen.advance(hours=22)  # an hour before it is due, a transactional email: capped again when due
        assert api.post(f"/api/emails/{transactional['id']}/contact/{ann['id']}/send").json == {"success": True}
        frozen.advance(hours=2)
        _run_due(drain)
        record = _record(second, ann)
        if attempt < 3:
            assert record["status"] == "deferred" and record["queueAttempts"] == attempt
            assert _queued_events(api, ann)[0]["details"]["status"] == "rescheduled"
        assert len(_due(ann)) == (1 if attempt < 3 else 0)
    assert record["status"] == "skipped" and "not sent after 3 attempts" in record["reason"]
    assert "Second" not in _received("ann")


def test_transactional_sends_are_not_capped(api, drain, frozen, capped):
    ann, _, first, second, _ = capped
    assert api.post(f"/api/emails/{first['id']}/contact/{ann['id']}/send").json == {"success": True}
    transactional = new_automation(api, [action("new1", "email.send", {"email": second["id"]})])
    api.post(f"/api/automations/{transactional['id']}/contact/{ann['id']}/add")
    drain()
    assert _received("ann") == ["First", "First", "Second"]  # capped at one a day, sent three
    assert executed(api, ann["id"]) == [("new1", "ok")]


def test_an_automations_marketing_email_is_deferred_and_its_event_passes(api, drain, frozen, capped):
    ann, _, first, _, _ = capped
    later = make_email(api, name="Later", subject="Later")
    marketing = new_automation(api, [action("new1", "email.send", {"email": later["id"], "email_type": "marketing"})])
    frozen.advance(hours=1)
    api.post(f"/api/automations/{marketing['id']}/contact/{ann['id']}/add")
    drain()
    assert executed(api, ann["id"]) == [("new1", "ok")] and "Later" not in _received("ann")
    assert _record(later, ann)["source"] == ["campaign", marketing["events"][0]["id"]]
    frozen.advance(days=1, minutes=1)
    _run_due(drain)
    assert _received("ann") == ["First", "Second"]  # `Second` was due first: `Later` not yet
    frozen.advance(hours=1)
    _run_due(drain)
    assert _received("ann") == ["First", "Second"]  # `Later` capped by `Second`: one more day
    assert _record(later, ann)["status"] == "deferred" and _record(later, ann)["queueAttempts"] == 1
    frozen.advance(days=1)
    _run_due(drain)
    assert _received("ann") == ["First", "Second", "Later"]
    (stat,) = [s for s in api.get("/api/stats/email_stats").json["stats"] if str(s["email_id"]) == str(later["id"])]
    assert stat["source"] == "campaign" and str(stat["source_id"]) == str(marketing["events"][0]["id"])


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_a_contact_without_a_rule_costs_no_call_more(api, drain, frozen, configure):
    """docs/email.md: a contact without an email rule is sent to as before (no timeline read); one
    with a rule that does not cap it costs one Query of its timeline more, nothing else."""
    configure(EMAIL_SEND_INLINE=0)  # every send in the worker
    costs = {}
    weekly = {"email": {"frequency_number": 5, "frequency_time": "WEEK"}}
    for name, rules in (("cat", None), ("bob", None), ("ann", weekly)):  # cat: counters and caches warmed
        contact = _contact(api, name, rules)
        drain()
        mail = make_email(api, name=name, subject=name, emailType="list", lists=[_segment(api, drain)["id"]])
        api.post(f"/api/emails/{mail['id']}/send")
        with dynamodb_calls() as calls:
            drain()
        costs[name] = dict(calls)
        api.delete(f"/api/contacts/{contact['id']}/delete")
        drain()
    assert _received("bob") == ["bob"] and _received("ann") == ["ann"]
    assert dict(costs["ann"], Query=costs["ann"]["Query"] - 1) == costs["bob"], costs


def test_a_deferred_send_is_erased_with_its_contact(api, drain, frozen, capped):
    ann, _, _, second, _ = capped
    assert len(_due(ann)) == 1 and _record(second, ann) is not None
    assert api.delete(f"/api/contacts/{ann['id']}/delete").status_code == 200
    drain()
    assert _due(ann) == [] and _record(second, ann) is None
    frozen.advance(days=2)
    _run_due(drain)
    assert _received("ann") == ["First"]


def test_a_redelivered_wake_up_sends_once(api, drain, frozen, capped):
    ann, _, _, second, _ = capped
    (item,) = _due(ann)
    frozen.advance(days=1, minutes=1)
    message = {"type": "deferred", "contact": ann["id"], "due": item["id"]}
    queues.send(recipients.QUEUE, [message, message])  # SQS delivers at least once
    _run_due(drain)  # and the minute job wakes it too
    deferred_sends.deferred(ann["id"], item["id"])  # a late redelivery
    assert _received("ann") == ["First", "Second"]
    assert _record(second, ann)["status"] == "sent" and _due(ann) == []


def test_a_wake_up_interrupted_after_sending_never_sends_twice(api, drain, frozen, capped, monkeypatch):
    from chalicelib.domain.messaging import frequency_caps

    ann, _, _, second, _ = capped
    (item,) = _due(ann)
    frozen.advance(days=1, minutes=1)

    def crash(contact, due):
        raise RuntimeError("the worker stopped before removing the due item")

    with monkeypatch.context() as patched, pytest.raises(RuntimeError):
        patched.setattr(frequency_caps, "drop", crash)
        deferred_sends.deferred(ann["id"], item["id"])
    assert _received("ann") == ["First", "Second"] and _record(second, ann)["status"] == "sent"
    _run_due(drain)  # the item is still there (its message lost): the sweep wakes it again later
    frozen.advance(minutes=15)
    _run_due(drain)
    assert _received("ann") == ["First", "Second"] and _due(ann) == []


def test_a_wake_up_interrupted_between_its_claim_and_its_record_is_never_sent_again(api, drain, frozen, capped):
    from chalicelib.domain.messaging import sending

    ann, _, _, second, _ = capped
    (item,) = _due(ann)
    frozen.advance(days=1, minutes=1)

    def crash(*args, **kwargs):
        raise RuntimeError("the worker stopped after SES accepted the message")

    with pytest.MonkeyPatch.context() as patched, pytest.raises(RuntimeError):
        patched.setattr(sending, "record_sent", crash)
        deferred_sends.deferred(ann["id"], item["id"])
    assert _record(second, ann)["status"] == "sending" and _received("ann") == ["First", "Second"]
    frozen.advance(minutes=20)  # past STUCK_SECONDS: it may have gone out, so it is not sent again
    _run_due(drain)
    assert _record(second, ann)["status"] == "unknown" and _due(ann) == []
    assert _received("ann") == ["First", "Second"]


def test_a_send_due_while_the_reputation_guard_pauses_waits_a_quarter_hour(api, drain, frozen, capped):
    from chalicelib.domain.messaging import reputation

    ann, _, _, second, _ = capped
    store.put(reputation.KIND, {"id": 1, "paused": True, "epoch": 0, "reason": "test pause"})
    frozen.advance(days=1, minutes=1)
    _run_due(drain)
    record = _record(second, ann)
    assert record["status"] == "deferred" and record["queueAttempts"] == 0 and "reputation guard" in record["reason"]
    assert _received("ann") == ["First"] and len(_due(ann)) == 1
    reputation.resume("cli:test")
    frozen.advance(minutes=16)
    _run_due(drain)
    assert _received("ann") == ["First", "Second"] and _due(ann) == []


def test_a_limited_user_sees_no_deferred_send_of_anothers_contact(api, drain, frozen, capped):
    from tests.api.test_permissions import _as

    ann, _, _, second, _ = capped
    mallory = _as(api, "mallory", {"lead:leads": ["viewown", "editown", "create"], "email:emails": ["viewown"]})
    assert mallory.get(f"/api/contacts/{ann['id']}/activity").status_code == 403
    feed = mallory.get("/api/contacts/activity").json
    assert not [e for e in feed.get("events") or [] if e["event"] == "message.queue"]
    assert mallory.get(f"/api/emails/{second['id']}").status_code == 403  # its sendProgress with it
    assert len(_queued_events(api, ann)) == 1


def test_the_configured_default_caps_contacts_without_a_rule_of_their_own(api, drain, frozen, configure):
    configure(EMAIL_FREQUENCY_NUMBER=1)
    configure(EMAIL_FREQUENCY_TIME="WEEK")
    bob, cid = _contact(api, "bob"), _contact(api, "cid", {"email": {"frequency_number": 5, "frequency_time": "DAY"}})
    segment = _segment(api, drain)
    for name in ("First", "Second"):
        mail = make_email(api, name=name, subject=name, emailType="list", lists=[segment["id"]])
        api.post(f"/api/emails/{mail['id']}/send")
        drain()
    assert _received("bob") == ["First"] and _received("cid") == ["First", "Second"]  # cid's own rule wins
    assert _record(mail, bob)["status"] == "deferred" and _record(mail, bob)["dueAt"] > _record(mail, bob)["updatedAt"]
    frozen.advance(days=7, minutes=1)
    _run_due(drain)
    assert _received("bob") == ["First", "Second"] and _due(bob) == [] and _due(cid) == []
