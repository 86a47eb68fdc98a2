"""Workers on AWS (`workers.on_batch`): a batch of SQS messages, each handled on its own, the failed
ones named in Lambda's partial batch response, so one bad message neither blocks nor repeats the
others; metrics and log lines in the shapes CloudWatch reads (`observe`)."""

import json
import logging
import sys

import pytest
from botocore.exceptions import ClientError
from chalice.app import SQSEvent

from chalicelib import observe, workers
from chalicelib.domain.messaging.recipients import SendLater
from chalicelib.ports import queues
from chalicelib.workers import redelivery
from chalicelib.workers.redelivery import Received


class _Context:
    aws_request_id = "request-1"

    def __init__(self, milliseconds_left=30000):
        self.left = milliseconds_left

    def get_remaining_time_in_millis(self):
        return self.left


def _event(bodies, context, receives=1):
    records = [
        {
            "messageId": f"m{i}",
            "receiptHandle": f"r{i}",
            "body": body,
            "attributes": {"SentTimestamp": "1000", "ApproximateReceiveCount": str(receives)},
        }
        for i, body in enumerate(bodies)
    ]
    return SQSEvent({"Records": records}, context)


THROTTLED = ClientError({"Error": {"Code": "ThrottlingException"}, "ResponseMetadata": {}}, "GetItem")


@pytest.fixture
def handled(monkeypatch):
    """The sends handler replaced: records each body, fails on `{"fail": true}` (a bug), on
    `{"throttled": true}` (AWS unavailable) and `{"later": true}` (SendLater)."""
    seen = []

    def handle(body):
        if body.get("fail"):
            raise RuntimeError("bad message")
        if body.get("throttled"):
            raise THROTTLED
        if body.get("later"):
            raise SendLater("contact held by another worker")
        seen.append(body["n"])

    monkeypatch.setitem(workers.HANDLERS, "sends", handle)
    return seen


@pytest.fixture
def sqs(monkeypatch):
    """The worker's SQS calls recorded instead of made: visibility changes and dead-letter moves."""
    calls = {"visibility": [], "dead_letter": []}
    monkeypatch.setattr(queues, "change_visibility", lambda queue, seconds: calls["visibility"].append(dict(seconds)))
    monkeypatch.setattr(queues, "dead_letter", lambda queue, bodies: calls["dead_letter"].append(list(bodies)))
    return calls


@pytest.fixture
def written(monkeypatch):
    lines = []
    monkeypatch.setattr(observe, "_write", lambda line: lines.append(json.loads(line)))
    return lines


def test_one_bad_message_is_the_only_one_given_back(handled, written, sqs):
    bodies = [json.dumps({"n": 1}), json.dumps({"fail": True}), "not json", json.dumps({"n": 4})]
    answer = workers.on_batch("sends", _event(bodies, _Context()))
    assert answer == {"batchItemFailures": [{"itemIdentifier": "m1"}, {"itemIdentifier": "m2"}]}
    assert handled == [1, 4]
    (metric,) = written
    assert (metric["Messages"], metric["Failures"], metric["Queue"]) == (4, 2, "sends")
    assert metric["QueueLag"] > 0 and metric["requestId"] == "request-1"


def test_messages_not_started_in_time_go_back_unhandled_and_visible_at_once(handled, written, sqs):
    answer = workers.on_batch("sends", _event([json.dumps({"n": 1}), json.dumps({"n": 2})], _Context(1000)))
    assert answer == {"batchItemFailures": [{"itemIdentifier": "m0"}, {"itemIdentifier": "m1"}]}
    assert handled == [] and sqs["visibility"] == [{"r0": 0, "r1": 0}]


def _received(body, receives=1, name="a"):
    return Received(name, json.dumps(body), f"receipt-{name}", receives)


def test_the_local_drain_raises_what_a_worker_function_gives_back(handled, sqs):
    with pytest.raises(RuntimeError):
        workers.consume("sends", [_received({"fail": True})], strict=True)
    assert workers.consume("sends", [_received({"n": 1}), _received({"fail": True}, name="b")]) == ["b"]


def test_backoff_doubles_with_the_receive_count_up_to_the_cap():
    ceilings = [redelivery.backoff(n, draw=lambda low, high: high) for n in range(1, 9)]
    floors = [redelivery.backoff(n, draw=lambda low, high: low) for n in range(1, 9)]
    assert ceilings == [2, 4, 8, 16, 30, 30, 30, 30]
    assert floors == [1, 2, 4, 8, 15, 15, 15, 15]
    drawn = [redelivery.backoff(3) for _ in range(200)]
    assert min(drawn) >= 4 and max(drawn) <= 8 and len(set(drawn)) > 1  # jittered inside its ceiling
    assert redelivery.backoff(10**6, draw=lambda low, high: high) == redelivery.CAP_SECONDS


def test_a_failed_message_backs_off_with_its_own_visibility(handled, written, sqs):
    answer = workers.on_batch("sends", _event([json.dumps({"throttled": True})], _Context(), receives=4))
    assert answer == {"batchItemFailures": [{"itemIdentifier": "m0"}]}
    ((receipt, seconds),) = sqs["visibility"][0].items()
    assert receipt == "r0" and 8 <= seconds <= 16 and sqs["dead_letter"] == []


def test_poison_goes_to_the_dead_letter_queue_from_its_fifth_receive(handled, written, sqs):
    bad = [json.dumps({"fail": True}), "not json"]
    assert workers.on_batch("sends", _event(bad, _Context(), receives=4))["batchItemFailures"] == [
        {"itemIdentifier": "m0"},
        {"itemIdentifier": "m1"},
    ]
    assert sqs["dead_letter"] == []
    answer = workers.on_batch("sends", _event(bad, _Context(), receives=5))
    assert answer == {"batchItemFailures": []}  # acknowledged: Lambda deletes them from the queue
    assert sqs["dead_letter"] == [bad]  # the bodies as received, JSON or not


@pytest.mark.parametrize("body", [{"throttled": True}, {"later": True}])
def test_a_message_that_meets_aws_unavailable_keeps_retrying_past_the_fifth_receive(handled, written, sqs, body):
    answer = workers.on_batch("sends", _event([json.dumps(body)], _Context(), receives=30))
    assert answer == {"batchItemFailures": [{"itemIdentifier": "m0"}]}
    assert sqs["dead_letter"] == [] and 15 <= sqs["visibility"][0]["r0"] <= 30


def test_a_failing_sqs_call_is_tried_again_and_poison_not_moved_is_given_back(handled, monkeypatch):
    calls = []

    def refusing(queue, bodies):
        calls.append(queue)
        raise THROTTLED

    changes = []

    def once_refused(queue, seconds):
        changes.append(dict(seconds))
        if len(changes) == 1:
            raise THROTTLED
        return []

    monkeypatch.setattr(queues, "dead_letter", refusing)
    monkeypatch.setattr(queues, "change_visibility", once_refused)
    assert workers.consume("sends", [_received({"fail": True}, receives=7)]) == ["a"]
    assert calls == ["sends"] * redelivery.SQS_TRIES
    assert len(changes) == 2 and changes[0] == changes[1] and 15 <= changes[1]["receipt-a"] <= 30


def test_metrics_are_embedded_metric_format(written):
    observe.metrics({"Outcome": "sent"}, EmailSends=1)
    (record,) = written
    (directive,) = record["_aws"]["CloudWatchMetrics"]
    assert directive["Namespace"] == observe.NAMESPACE
    assert directive["Dimensions"] == [["Stack", "Outcome"]]
    assert directive["Metrics"] == [{"Name": "EmailSends", "Unit": "Count"}]
    assert record["EmailSends"] == 1 and record["Outcome"] == "sent" and record["Stack"]
    assert isinstance(record["_aws"]["Timestamp"], int)


def test_log_lines_are_json_with_the_request_id_and_caller():
    observe.begin("request-2", apiRequestId="api-2")
    observe.identify({"user": 1, "client": None})
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed %s", ("here",), sys.exc_info())
    line = json.loads(observe.JsonFormatter().format(record))
    assert line["message"] == "failed here" and line["level"] == "ERROR"
    assert (line["requestId"], line["apiRequestId"], line["caller"]) == (
        "request-2",
        "api-2",
        {"user": 1, "client": None},
    )
    assert "ValueError: boom" in line["exception"]
