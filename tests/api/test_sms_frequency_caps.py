"""Frequency rules on text messages (Mautic's `SmsModel::sendSms` -> `processFrequencyRules('sms')`): a
contact's rule on `sms` (else SMS_FREQUENCY_NUMBER/TIME for contacts with no rule at all) counts its
sent and failed texts in the last DAY/WEEK/MONTH. A capped broadcast contact is deferred one period
and sent when due (three tries, then skipped); a capped single send (the API's, an automation's) is
answered "Scheduled" and sent when due; single sends go at SMS_SEND_RATE."""

import time
from collections import Counter
from datetime import timedelta

import pytest

from chalicelib.domain.automations import automation_runs
from chalicelib.domain.kernel import clock
from chalicelib.domain.messaging import broadcasts, email_stats, frequency_caps, text_sends
from chalicelib.store import port as store
from tests.api.test_automations import action, executed, new_automation
from tests.api.test_frequency_caps import _due, _queued_events
from tests.api.test_sms_send import make_sms, sms_messages

ONE_A_DAY = {"sms": {"frequency_number": 1, "frequency_time": "DAY"}}
SCHEDULED = {
    "success": False,
    "status": "Scheduled",
    "result": {"sent": False, "status": "Scheduled"},
    "errors": [{"message": "Scheduled"}],
}


def _contact(api, name, rules=None, number=None):
    body = {"firstname": name, "city": "Prague", "mobile": number or f"+42077700{len(name)}{ord(name[0]):03d}"}
    if rules:
        body["frequencyRules"] = rules
    response = api.post("/api/contacts/new", body)
    assert response.status_code == 201, response.json
    return dict(response.json["contact"], number=body["mobile"])


def _texts_to(contact):
    return [text for number, text in sms_messages() if number == contact["number"]]


def _send(api, text, contact):
    return api.get(f"/api/smses/{text['id']}/contact/{contact['id']}/send").json


def _broadcast(api, drain, name="Flash"):
    """A published `list` text message to everyone in Prague, walked and its batches sent."""
    rule = {"glue": "and", "field": "city", "object": "lead", "type": "text", "operator": "="}
    segment = api.post("/api/segments/new", {"name": name, "filters": [dict(rule, properties={"filter": "Prague"})]})
    drain()
    since = clock.iso(clock.now() - timedelta(minutes=1))
    body = {"name": name, "message": name, "smsType": "list", "lists": [segment.json["list"]["id"]]}
    text = api.post("/api/smses/new", dict(body, publishUp=since)).json["sms"]
    broadcasts.walk("sms", text["id"])
    drain()
    return text


def _record(text, contact):
    return store.get(text_sends.record_kind(text["id"]), contact["id"])


def _run_due(drain):
    automation_runs.dispatch()
    drain()


@pytest.fixture
def capped(api, drain, frozen):
    """Ann (one text a DAY) sent `Hello` through the API; then the broadcast `Flash` to Ann and Bob (no rule)."""
    ann, bob = _contact(api, "ann", ONE_A_DAY), _contact(api, "bob")
    hello = make_sms(api, "Hello")
    assert _send(api, hello, ann)["success"] is True
    frozen.advance(hours=1)
    return ann, bob, _broadcast(api, drain)


def test_a_capped_contact_gets_the_broadcast_when_its_day_is_over(api, drain, frozen, capped):
    ann, bob, flash = capped
    assert _texts_to(bob) == ["Flash"] and _texts_to(ann) == ["Hello"]
    record = _record(flash, ann)
    assert record["status"] == "deferred" and record["queueAttempts"] == 0
    assert record["reason"].startswith("Frequency cap: 1 text message(s) per DAY")
    (queued,) = _queued_events(api, ann)
    assert queued["eventLabel"] == f"Message Queued for channel - sms {flash['id']}"
    assert queued["details"]["channelName"] == "sms" and queued["details"]["scheduledDate"] == record["dueAt"]
    broadcasts.walk("sms", flash["id"])  # a later walk leaves Ann to her wake-up
    drain()
    frozen.advance(hours=22)
    _run_due(drain)
    assert _texts_to(ann) == ["Hello"]  # not due yet
    frozen.advance(hours=2)
    _run_due(drain)
    assert _texts_to(ann) == ["Hello", "Flash"] and _record(flash, ann)["status"] == "sent" and _due(ann) == []
    frozen.advance(days=2)
    _run_due(drain)
    assert _texts_to(ann) == ["Hello", "Flash"]  # once
    assert api.get(f"/api/smses/{flash['id']}").json["sms"]["sentCount"] == 2


def test_still_capped_when_due_it_waits_one_more_day_and_is_skipped_after_three_tries(
    api, drain, frozen, capped, monkeypatch
):
    ann, _, flash = capped
    monkeypatch.setattr(frequency_caps, "capped", lambda contact, now, channel="email": "DAY")  # capped every time
    for attempt in (1, 2, 3):
        frozen.advance(days=1, minutes=1)
        _run_due(drain)
        record = _record(flash, ann)
        if attempt < 3:
            assert record["status"] == "deferred" and record["queueAttempts"] == attempt
        assert len(_due(ann)) == (1 if attempt < 3 else 0)
    assert record["status"] == "skipped" and "not sent after 3 attempts" in record["reason"]
    assert _texts_to(ann) == ["Hello"]


def test_deferred_texts_are_erased_with_their_contact(api, drain, frozen, capped):
    ann, _, flash = capped
    hello = make_sms(api, "Again")
    assert _send(api, hello, ann) == SCHEDULED
    assert len(_due(ann)) == 2 and _record(flash, ann)["status"] == "deferred"
    assert api.delete(f"/api/contacts/{ann['id']}/delete").status_code == 200
    drain()
    assert _due(ann) == [] and _record(flash, ann) is None
    frozen.advance(days=2)
    _run_due(drain)
    assert _texts_to(ann) == ["Hello"]


def test_a_failed_text_counts_as_a_send(api, drain, frozen, monkeypatch):
    from chalicelib.ports import sms

    ann, hello = _contact(api, "ann", ONE_A_DAY), make_sms(api, "Hello")

    def refuse(number, text):
        raise sms.Rejected("InvalidParameter")

    with monkeypatch.context() as patched:
        patched.setattr(sms, "send", refuse)
        assert _send(api, hello, ann)["success"] is False  # `sms.failed`: a row of Mautic's sms_message_stats
    assert _send(api, hello, ann) == SCHEDULED and sms_messages() == []


def test_a_capped_single_send_is_scheduled_and_sent_when_due(api, drain, frozen):
    ann, hello = _contact(api, "ann", ONE_A_DAY), make_sms(api, "Hello")
    assert _send(api, hello, ann)["success"] is True
    frozen.advance(hours=1)
    assert _send(api, hello, ann) == SCHEDULED
    frozen.advance(hours=22)
    assert _send(api, hello, ann) == SCHEDULED  # queued already: not queued twice (Mautic's findMessage)
    assert _texts_to(ann) == ["Hello"] and len(_queued_events(api, ann)) == 1 and len(_due(ann)) == 1
    frozen.advance(hours=1)
    _run_due(drain)
    assert _texts_to(ann) == ["Hello"]  # due a day after it was queued
    frozen.advance(hours=1)
    _run_due(drain)
    assert _texts_to(ann) == ["Hello", "Hello"] and _due(ann) == []
    stats = list(store.iterate(email_stats.kind("sms", hello["id"])))
    assert [stat["source"] for stat in stats] == ["api", "api"]
    assert api.get(f"/api/smses/{hello['id']}").json["sms"]["sentCount"] == 2


def test_an_automations_text_to_a_capped_contact_passes_and_is_sent_later(api, drain, frozen):
    ann, hello = _contact(api, "ann", ONE_A_DAY), make_sms(api, "Hello")
    later = make_sms(api, "Later")
    assert _send(api, hello, ann)["success"] is True
    automation = new_automation(api, [action("new1", "sms.send_text_sms", {"sms": later["id"]})])
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    drain()
    assert executed(api, ann["id"]) == [("new1", "ok")]  # Mautic's passWithError: the event passes
    assert _texts_to(ann) == ["Hello"]
    frozen.advance(days=1, minutes=1)
    _run_due(drain)
    assert _texts_to(ann) == ["Hello", "Later"]
    (stat,) = store.iterate(email_stats.kind("sms", later["id"]))
    assert (stat["source"], stat["sourceId"]) == ("campaign", automation["events"][0]["id"])


def test_the_default_caps_only_contacts_without_any_rule(api, drain, frozen, configure):
    configure(SMS_FREQUENCY_NUMBER=1, SMS_FREQUENCY_TIME="WEEK")
    bob = _contact(api, "bob")
    cid = _contact(api, "cid", {"sms": {"frequency_number": 5, "frequency_time": "DAY"}})
    dan = _contact(api, "dan", {"email": {"frequency_number": 5, "frequency_time": "DAY"}})
    hello = make_sms(api, "Hello")
    for contact in (bob, cid, dan):
        assert _send(api, hello, contact)["success"] is True
    assert _send(api, hello, bob) == SCHEDULED
    assert _send(api, hello, cid)["success"] is True  # its own rule wins
    assert _send(api, hello, dan)["success"] is True  # a rule on another channel: no default (Mautic's NOT EXISTS)


def test_single_sends_hold_the_send_rate(api, configure):
    configure(SMS_SEND_RATE=2)
    hello = make_sms(api, "Hello")
    contacts = [_contact(api, name) for name in ("ann", "bob", "cid", "dan", "eve")]
    started = time.monotonic()
    for contact in contacts:
        assert _send(api, hello, contact)["success"] is True
    assert time.monotonic() - started > 1.0
    per_second = Counter(stat["dateSent"] for stat in store.iterate(email_stats.kind("sms", hello["id"])))
    assert max(per_second.values()) <= 2 and sum(per_second.values()) == 5


def test_a_limited_user_cannot_send_to_or_see_the_queue_of_anothers_contact(api, drain, frozen, capped):
    from tests.api.test_permissions import _as

    ann, _, flash = capped
    mallory = _as(api, "mallory", {"lead:leads": ["viewown", "editown", "create"], "sms:smses": ["viewown"]})
    assert mallory.get(f"/api/smses/{flash['id']}/contact/{ann['id']}/send").status_code == 403
    assert mallory.get(f"/api/contacts/{ann['id']}/activity").status_code == 403
    feed = mallory.get("/api/contacts/activity").json
    assert not [e for e in feed.get("events") or [] if e["event"] == "message.queue"]
    assert len(_queued_events(api, ann)) == 1 and _texts_to(ann) == ["Hello"]


def test_a_marketing_messages_scheduled_text_fails_the_event_and_is_sent_later(api, drain, frozen):
    ann, hello, later = _contact(api, "ann", ONE_A_DAY), make_sms(api, "Hello"), make_sms(api, "Later")
    assert _send(api, hello, ann)["success"] is True
    channels = {"sms": {"channelId": later["id"], "isEnabled": 1}}
    message = api.post("/api/messages/new", {"name": "Texts", "channels": channels}).json["message"]
    automation = new_automation(api, [action("new1", "message.send", {"marketingMessage": message["id"]})])
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    drain()
    assert executed(api, ann["id"]) == [("new1", "failed")]  # Mautic's removePsuedoFailures: no channel reached
    frozen.advance(days=1, minutes=1)
    _run_due(drain)
    assert _texts_to(ann) == ["Hello", "Later"]  # the text itself stayed queued, as in Mautic
