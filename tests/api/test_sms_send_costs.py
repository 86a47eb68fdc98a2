"""Budgets of text-message broadcasts (issue 43), which go through the email's batch machinery
(`send_batches.py` over `text_sends.TEXT`): a batch makes at most 5 AWS calls per message, SNS's
included, with several messages in flight; a walk step's round trips do not grow with the segment;
a retried batch sends nobody twice and calls SNS only for the contacts left; do-not-contact on `sms`
and contacts without a mobile number are skipped without SNS."""

from collections import Counter
from datetime import timedelta

import pytest
from botocore.exceptions import ClientError

from chalicelib.domain.kernel import clock
from chalicelib.domain.messaging import broadcasts, send_batches, text_sends
from chalicelib.domain.messaging.recipients import SendLater
from chalicelib.ports import queues, sms
from chalicelib.store import port as store
from tests.api.test_send_costs import CALLS_PER_MESSAGE, POLLER
from tests.api.test_sms_send import sms_messages
from tests.round_trips import api_calls, modelled

pytestmark = pytest.mark.aws  # about AWS itself (DynamoDB and SNS calls, SQS messages): over moto


@pytest.fixture(autouse=True)
def rate(configure):
    """A send rate that lets a batch through at once (its window still counted: one call a chunk)."""
    configure(SMS_SEND_RATE=1000)


def _audience(api, drain, count, city="Prague", **values):
    """A segment of `count` new contacts in `city` with mobile numbers; the segment and contact ids."""
    rule = {"glue": "and", "field": "city", "object": "lead", "type": "text", "operator": "="}
    segment = api.post("/api/segments/new", {"name": city, "filters": [dict(rule, properties={"filter": city})]})
    ids = []
    for n in range(count):
        body = dict({"firstname": f"C{n}", "city": city, "mobile": f"+4207770{len(city)}{n:04d}"}, **values)
        ids.append(api.post("/api/contacts/new", body).json["contact"]["id"])
    drain()
    return segment.json["list"], ids


def _text(api, segment):
    """A published `list` text message to the segment (its `publishUp` a minute ago: on air)."""
    since = clock.iso(clock.now() - timedelta(minutes=1))
    body = {"name": "Flash", "message": "Hi {contactfield=firstname}", "smsType": "list", "lists": [segment["id"]]}
    answer = api.post("/api/smses/new", dict(body, publishUp=since))
    assert answer.status_code == 201, answer.json
    return answer.json["sms"]


def _batches(text):
    """Walk the broadcast once: the batch bodies it queued (taken off the queue)."""
    broadcasts.walk("sms", text["id"])
    bodies = []
    for receipt, body, _ in queues.receive("sends"):
        queues.delete("sends", receipt)
        assert body.pop("type") == "broadcast-batch"
        bodies.append(body)
    return bodies


def _statuses(text, ids):
    records = store.batch_get(text_sends.record_kind(text["id"]), ids)
    return Counter((records.get(c) or {}).get("status") for c in ids)


def _sent_count(api, text):
    return api.get(f"/api/smses/{text['id']}").json["sms"]["sentCount"]


def test_a_text_batch_makes_at_most_five_calls_per_message(api, drain, configure):
    configure(VERSIONS_TTL=60)  # as on AWS: the versions item once a second per container
    segment, ids = _audience(api, drain, 50)
    text = _text(api, segment)
    (batch,) = _batches(text)
    calls: Counter[str] = Counter()

    def counted(call, client, operation, params):
        calls[operation] += 1
        return call(client, operation, params)

    with api_calls(counted):
        broadcasts.batch(**batch)
    assert calls["Publish"] == len(sms_messages()) == len(ids) == 50
    made = sum(n for operation, n in calls.items() if operation not in POLLER)
    assert made <= CALLS_PER_MESSAGE * len(ids), calls
    assert calls["GetItem"] <= 2, calls  # the message, its broadcast index entry: nothing read per contact alone
    assert calls["TransactWriteItems"] == 0, calls  # no contact rewritten for its `sms.sent`
    assert _statuses(text, ids) == Counter({"sent": 50})
    assert _sent_count(api, text) == 50
    activity = api.get(f"/api/contacts/{ids[7]}/activity").json["events"]
    (event,) = [e for e in activity if e["event"] == "sms.sent"]
    assert event["details"]["content"] == "Hi C7" and event["details"]["smsId"] == text["id"]


def test_a_text_batch_keeps_several_messages_in_flight(api, drain):
    segment, ids = _audience(api, drain, 40)
    text = _text(api, segment)
    (batch,) = _batches(text)
    with modelled(delay=0.02) as trips:
        broadcasts.batch(**batch)
    assert len(sms_messages()) == len(ids)
    assert trips.rounds * 3 <= trips.calls, (trips.rounds, trips.calls)


def _walk_rounds(api, drain, members, city):
    segment, ids = _audience(api, drain, members, city)
    text = _text(api, segment)
    with modelled(delay=0.02) as trips:
        broadcasts.walk("sms", text["id"])
    bodies = [body for receipt, body, _ in queues.receive("sends")]
    assert sorted(c for body in bodies for c in body["contacts"]) == sorted(ids)
    for receipt, _, _ in queues.receive("sends"):
        queues.delete("sends", receipt)
    return trips.rounds


def test_a_walk_step_waits_on_the_same_round_trips_whatever_the_segment(api, drain, configure):
    configure(EMAIL_SEND_BATCH=20)  # several batches: 150 members make 8 of them
    small = _walk_rounds(api, drain, 30, "Prague")
    large = _walk_rounds(api, drain, 150, "Paris")
    assert large <= small + 1, (small, large)


def _failing_third(monkeypatch):
    """SNS unavailable for the third text it is given; the numbers it was called with."""
    original, called = sms.send, []

    def send(number, text):
        called.append(number)
        if len(called) == 3:
            raise sms.Unavailable("Rate exceeded")
        return original(number, text)

    monkeypatch.setattr(sms, "send", send)
    return called


def test_a_retried_batch_sends_nobody_twice_and_calls_sns_only_for_the_rest(api, drain, configure, monkeypatch):
    configure(EMAIL_SEND_CONCURRENCY=1)  # SNS's answers in the contacts' order: the fault stops the fourth
    segment, ids = _audience(api, drain, 30)
    text = _text(api, segment)
    (batch,) = _batches(text)
    called = _failing_third(monkeypatch)
    with pytest.raises(SendLater):
        broadcasts.batch(**batch)
    assert len(called) == 3 and len(sms_messages()) == 2
    assert _statuses(text, ids) == Counter({"sent": 2, "retry": 1, None: 27})
    monkeypatch.undo()
    called = []
    original = sms.send
    monkeypatch.setattr(sms, "send", lambda number, body: called.append(number) or original(number, body))
    broadcasts.batch(**batch)  # SQS delivers it again
    assert len(called) == 28  # the 2 sent were skipped without SNS
    broadcasts.batch(**batch)  # and once more: nothing left
    assert len(called) == 28
    numbers = Counter(number for number, _ in sms_messages())
    assert len(numbers) == 30 and set(numbers.values()) == {1}
    assert _statuses(text, ids) == Counter({"sent": 30})
    assert _sent_count(api, text) == 30


def test_a_batch_interrupted_after_sns_took_its_texts_never_sends_them_again(api, drain, configure, monkeypatch):
    segment, ids = _audience(api, drain, 10)
    text = _text(api, segment)
    (batch,) = _batches(text)

    def crash(*args):
        raise ClientError({"Error": {"Code": "ValidationException"}}, "BatchWriteItem")  # not an outage: a crash

    monkeypatch.setattr(send_batches, "_store_sent", crash)
    with pytest.raises(ClientError):
        broadcasts.batch(**batch)
    monkeypatch.undo()
    assert len(sms_messages()) == 10 and _statuses(text, ids) == Counter({"sending": 10})
    broadcasts.batch(**batch)  # SQS delivers it again: the claimed contacts may have got it, so never again
    assert len(sms_messages()) == 10
    assert _batches(text) == []  # and a later walk does not queue them either


def test_do_not_contact_and_no_number_are_skipped_without_sns(api, drain):
    segment, ids = _audience(api, drain, 5)
    for contact in ids[:2]:
        assert api.post(f"/api/contacts/{contact}/dnc/sms/add", {"reason": 1}).status_code == 200
    api.post(f"/api/contacts/{ids[2]}/dnc/email/add", {"reason": 1})  # email's do-not-contact: still texted
    landline = api.post("/api/contacts/new", {"firstname": "L", "city": "Prague", "phone": "777 123 456"})
    ids.append(landline.json["contact"]["id"])  # no number in E.164
    drain()
    text = _text(api, segment)
    for batch in _batches(text):
        broadcasts.batch(**batch)
    assert sorted(number for number, _ in sms_messages()) == ["+420777060002", "+420777060003", "+420777060004"]
    records = store.batch_get(text_sends.record_kind(text["id"]), ids)
    assert [records[c]["status"] for c in ids] == ["skipped", "skipped", "sent", "sent", "sent", "skipped"]
    assert "do not contact" in records[ids[0]]["reason"] and "mobile number" in records[ids[5]]["reason"]
    assert _sent_count(api, text) == 3


def test_a_text_messages_rows_spread_over_their_family_shards_and_old_rows_move(configure, api, drain):
    """`smssend#*` and `smsstat#*` in SHARDED_KINDS (one text message's broadcast at 1,000 messages/s
    would throttle one key at 500/s): its records and send records land under 16 partition keys each,
    and a row written before the family was sharded is moved by `storage reshard`."""
    from chalicelib import config
    from chalicelib.store import entities, reshard
    from chalicelib.store.models import Entity

    segment, ids = _audience(api, drain, 40)
    text = _text(api, segment)
    for batch in _batches(text):
        broadcasts.batch(**batch)
    for family in ("smssend", "smsstat"):
        keys = {item.kind for item in Entity.scan() if item.kind.startswith(f"{family}#{text['id']}")}
        assert len(keys) == config.active().SHARDED_KINDS[f"{family}#*"] == 16, keys
    assert _statuses(text, ids) == Counter({"sent": 40}) and _sent_count(api, text) == 40
    sharded = dict(config.active().SHARDED_KINDS)
    configure(SHARDED_KINDS={k: n for k, n in sharded.items() if k != "smssend#*"})  # the layout before
    entities.put_if("smssend#9", {"id": 5, "status": "sent"})
    configure(SHARDED_KINDS=sharded)
    assert entities.get("smssend#9", 5) is None  # under the old key
    reshard.reshard()
    assert entities.get("smssend#9", 5)["status"] == "sent"


def test_frequency_rules_keep_a_batch_within_five_calls_per_message(api, drain, configure):
    """Every contact has a rule on `sms` (one a DAY): the first broadcast sends to all (one Query of
    each one's timeline more), the second defers all (no SNS call) within the budget."""
    configure(VERSIONS_TTL=60)  # as on AWS: the versions item once a second per container
    segment, ids = _audience(api, drain, 50, frequencyRules={"sms": {"frequency_number": 1, "frequency_time": "DAY"}})
    measured = {}
    for name in ("first", "second"):
        text = _text(api, segment)
        (batch,) = _batches(text)
        calls: Counter[str] = Counter()

        def counted(call, client, operation, params, calls=calls):
            calls[operation] += 1
            return call(client, operation, params)

        with api_calls(counted):
            broadcasts.batch(**batch)
        made = sum(n for operation, n in calls.items() if operation not in POLLER)
        assert made <= CALLS_PER_MESSAGE * len(ids), calls
        measured[name] = (calls, _statuses(text, ids))
    assert measured["first"][1] == Counter({"sent": 50}) and measured["first"][0]["Query"] == 50
    assert measured["second"][1] == Counter({"deferred": 50}) and measured["second"][0]["Publish"] == 0
    assert len(sms_messages()) == 50
