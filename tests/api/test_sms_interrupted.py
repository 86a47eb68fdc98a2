"""Text messages left `sending` by a crash (as an email's, `recipients.interrupted`): a record whose send
record exists settles `sent` when the batch comes again; one without settles `unknown` (it may have gone
out: never sent again) once older than STUCK_SECONDS, by a `text-stuck` message queued that long after the
batch met it; a fresh one is left alone meanwhile (another worker may be sending it)."""

from collections import Counter

import pytest
from botocore.exceptions import ClientError

from chalicelib.domain.automations import automation_runs
from chalicelib.domain.messaging import broadcasts, send_batches, text_sends
from chalicelib.ports import queues
from chalicelib.store import port as store
from chalicelib.workers import sends
from tests.api.test_sms_send import sms_messages
from tests.api.test_sms_send_costs import _audience, _batches, _sent_count, _statuses, _text

ONE_A_DAY = {"sms": {"frequency_number": 1, "frequency_time": "DAY"}}


def _looked_at_later(monkeypatch):
    """The `text-stuck` messages queued (body, delay), kept off the queue for the test to deliver."""
    real, held = queues.send, []

    def send(queue, bodies, delay=0, dead_letter=False):
        bodies = list(bodies)
        held.extend((body, delay) for body in bodies if body.get("type") == text_sends.STUCK)
        real(queue, [body for body in bodies if body.get("type") != text_sends.STUCK], delay, dead_letter)

    monkeypatch.setattr(queues, "send", send)
    return held


def _crash(*args):
    raise ClientError({"Error": {"Code": "ValidationException"}}, "BatchWriteItem")  # not an outage: a crash


def test_a_record_left_sending_settles_unknown_once_stuck_and_is_never_resent(api, drain, frozen, monkeypatch):
    segment, ids = _audience(api, drain, 10)
    text = _text(api, segment)
    (batch,) = _batches(text)
    with monkeypatch.context() as patched, pytest.raises(ClientError):
        patched.setattr(send_batches, "_store_sent", _crash)
        broadcasts.batch(**batch)
    assert len(sms_messages()) == 10 and _statuses(text, ids) == Counter({"sending": 10})
    later = _looked_at_later(monkeypatch)
    broadcasts.batch(**batch)  # SQS delivers it again: fresh, so maybe another worker's; left alone
    assert _statuses(text, ids) == Counter({"sending": 10}) and len(sms_messages()) == 10
    ((body, delay),) = later
    assert delay == 900 and sorted(body["contacts"]) == sorted(ids)
    sends.handle(dict(body))  # too early (the clock held): still fresh, looked at later again
    assert _statuses(text, ids) == Counter({"sending": 10}) and len(later) == 2
    frozen.advance(minutes=16)  # past STUCK_SECONDS: the `text-stuck` message, delayed that long, comes
    sends.handle(dict(later[-1][0]))
    assert _statuses(text, ids) == Counter({"unknown": 10}) and len(sms_messages()) == 10
    record = store.get(text_sends.record_kind(text["id"]), ids[0])
    assert record["reason"] == "Interrupted while sending; not sent again."
    broadcasts.batch(**batch)  # and once more: nothing resent
    assert len(sms_messages()) == 10 and _batches(text) == [] and len(later) == 2


def test_a_crash_after_the_send_records_counts_the_contacts_as_sent(api, drain, monkeypatch):
    segment, ids = _audience(api, drain, 5)
    text = _text(api, segment)
    (batch,) = _batches(text)
    real = store.put_many

    def crash_before_settling(items):
        real([(kind, doc) for kind, doc in items if not kind.startswith("smssend#")])  # the send records
        raise RuntimeError("worker died")

    with monkeypatch.context() as patched, pytest.raises(RuntimeError):
        patched.setattr(store, "put_many", crash_before_settling)
        broadcasts.batch(**batch)
    assert _statuses(text, ids) == Counter({"sending": 5})
    later = _looked_at_later(monkeypatch)
    broadcasts.batch(**batch)  # SQS delivers it again: each send record found, each contact `sent`
    assert _statuses(text, ids) == Counter({"sent": 5}) and len(sms_messages()) == 5
    assert later == []  # nothing left to look at


def test_a_deferred_text_interrupted_while_sending_is_never_sent_again(api, drain, frozen, monkeypatch):
    segment, (ann,) = _audience(api, drain, 1, frequencyRules=ONE_A_DAY)
    first = _text(api, segment)
    for batch in _batches(first):
        broadcasts.batch(**batch)
    second = _text(api, segment)
    for batch in _batches(second):
        broadcasts.batch(**batch)
    assert _statuses(second, [ann]) == Counter({"deferred": 1})
    frozen.advance(days=1, minutes=1)
    with monkeypatch.context() as patched, pytest.raises(ClientError):
        patched.setattr(send_batches, "_store_sent", _crash)
        automation_runs.dispatch()
        drain()
    assert _statuses(second, [ann]) == Counter({"sending": 1}) and len(sms_messages()) == 2
    frozen.advance(minutes=20)  # past STUCK_SECONDS
    automation_runs.dispatch()  # its due item stays until done: the sweep wakes it again
    drain()
    assert _statuses(second, [ann]) == Counter({"unknown": 1}) and len(sms_messages()) == 2
    assert _sent_count(api, second) == 0
