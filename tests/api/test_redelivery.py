"""Issue 43: a worker's failed message backs off with its own visibility over the embedded SQS
(seconds doubling with its receive count, `workers/redelivery.py`); a failure that means AWS is
unavailable keeps retrying past the fifth receive; poison (a bug, a bad body) reaches the
dead-letter queue on its fifth receive. Time is the queues' clock (`devstack.workers.settle`)."""

import pytest
from botocore.exceptions import ClientError

from chalicelib import workers
from chalicelib.store import queues, schema
from chalicelib.workers import redelivery
from devstack import workers as local

pytestmark = pytest.mark.aws  # about AWS itself (SQS visibility, DynamoDB calls and keys): over moto

THROTTLED = ClientError({"Error": {"Code": "ThrottlingException"}, "ResponseMetadata": {}}, "Query")


@pytest.fixture
def attempts(fresh, monkeypatch):
    """The segments handler replaced: each call's time on the queues' clock, and the failures to
    raise, one per call, in order (then it succeeds)."""
    seen: list[float] = []
    failures: list[Exception] = []

    def handle(body):
        seen.append(local.queue_time())
        if failures:
            raise failures.pop(0)

    monkeypatch.setitem(workers.HANDLERS, "segments", handle)
    return seen, failures


def _gaps(times):
    return [later - earlier for earlier, later in zip(times, times[1:], strict=False)]


def test_poison_reaches_the_dead_letter_queue_on_its_fifth_receive_and_backs_off_doubling(attempts):
    seen, failures = attempts
    failures += [RuntimeError("a bug")] * 10
    queues.send("segments", [{"type": "rebuild", "segment": 7}])
    local.settle(600)
    assert len(seen) == redelivery.POISON_RECEIVES  # then moved, not received again
    assert [body for _receipt, body, _count in queues.receive("segments", dead_letter=True)] == [
        {"type": "rebuild", "segment": 7}
    ]
    assert queues.receive("segments") == []
    for gap, ceiling in zip(_gaps(seen), (2, 4, 8, 16), strict=True):
        assert ceiling // 2 <= gap <= ceiling + 2, _gaps(seen)  # + the clock's 1 s steps and handling
    print("poison retried after", [round(g, 1) for g in _gaps(seen)], "s")


def test_a_message_meeting_aws_unavailable_keeps_retrying_past_five_receives_then_is_handled(attempts):
    seen, failures = attempts
    failures += [THROTTLED] * 9
    queues.send("segments", [{"type": "rebuild", "segment": 8}])
    took = local.settle(1200)
    assert len(seen) == 10 and not failures  # the tenth receive succeeded
    assert queues.receive("segments", dead_letter=True) == [] and queues.receive("segments") == []
    assert all(15 <= gap <= redelivery.CAP_SECONDS + 2 for gap in _gaps(seen)[4:])  # capped
    print(f"10 receives in {took:.0f} s: gaps", [round(g, 1) for g in _gaps(seen)])


def test_a_message_unavailable_past_max_receives_waits_in_the_dead_letter_queue(attempts, monkeypatch):
    seen, failures = attempts
    monkeypatch.setattr(redelivery, "CAP_SECONDS", 2)  # the same path, fewer clock steps
    failures += [THROTTLED] * (schema.MAX_RECEIVES + 5)
    queues.send("segments", [{"type": "rebuild", "segment": 9}])
    local.settle(3600)
    assert len(seen) == schema.MAX_RECEIVES  # SQS's redrive policy: the backstop for a long outage
    assert len(queues.receive("segments", dead_letter=True)) == 1


def test_the_lambda_handler_hides_a_failed_message_for_its_backoff_by_its_receipt_handle(attempts):
    """On AWS: the SQS record's receipt handle and ApproximateReceiveCount drive the visibility."""
    from chalice.app import SQSEvent

    from chalicelib import aws

    seen, failures = attempts
    failures += [THROTTLED]
    queues.send("segments", [{"type": "rebuild", "segment": 10}])
    answer = aws.client("sqs").receive_message(
        QueueUrl=queues.url("segments"), AttributeNames=["All"], VisibilityTimeout=200
    )
    (message,) = answer["Messages"]
    record = {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": dict(message["Attributes"]),
    }
    result = workers.on_batch("segments", SQSEvent({"Records": [record]}, None))
    assert result == {"batchItemFailures": [{"itemIdentifier": message["MessageId"]}]}
    assert queues.receive("segments") == []  # hidden for its backoff (1 or 2 s), not the 200 s
    local.advance(2.5)
    ((_receipt, body, count),) = queues.receive("segments")
    assert body == {"type": "rebuild", "segment": 10} and count == 2
