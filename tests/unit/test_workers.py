"""Workers on AWS (`workers.on_batch`): a batch of SQS messages, each handled on its own, the failed
ones named in Lambda's partial batch response, so one bad message neither blocks nor repeats the
others; metrics and log lines in the shapes CloudWatch reads (`observe`)."""

import json
import logging
import sys

import pytest
from chalice.app import SQSEvent

from chalicelib import observe, workers


class _Context:
    aws_request_id = "request-1"

    def __init__(self, milliseconds_left=30000):
        self.left = milliseconds_left

    def get_remaining_time_in_millis(self):
        return self.left


def _event(bodies, context):
    records = [
        {"messageId": f"m{i}", "receiptHandle": f"r{i}", "body": body, "attributes": {"SentTimestamp": "1000"}}
        for i, body in enumerate(bodies)
    ]
    return SQSEvent({"Records": records}, context)


@pytest.fixture
def handled(monkeypatch):
    """The sends handler replaced: records each body, fails on `{"fail": true}`."""
    seen = []

    def handle(body):
        if body.get("fail"):
            raise RuntimeError("bad message")
        seen.append(body["n"])

    monkeypatch.setitem(workers.HANDLERS, "sends", handle)
    return seen


@pytest.fixture
def written(monkeypatch):
    lines = []
    monkeypatch.setattr(observe, "_write", lambda line: lines.append(json.loads(line)))
    return lines


def test_one_bad_message_is_the_only_one_given_back(handled, written):
    bodies = [json.dumps({"n": 1}), json.dumps({"fail": True}), "not json", json.dumps({"n": 4})]
    answer = workers.on_batch("sends", _event(bodies, _Context()))
    assert answer == {"batchItemFailures": [{"itemIdentifier": "m1"}, {"itemIdentifier": "m2"}]}
    assert handled == [1, 4]
    (metric,) = written
    assert (metric["Messages"], metric["Failures"], metric["Queue"]) == (4, 2, "sends")
    assert metric["QueueLag"] > 0 and metric["requestId"] == "request-1"


def test_messages_not_started_in_time_go_back_unhandled(handled, written):
    answer = workers.on_batch("sends", _event([json.dumps({"n": 1}), json.dumps({"n": 2})], _Context(1000)))
    assert answer == {"batchItemFailures": [{"itemIdentifier": "m0"}, {"itemIdentifier": "m1"}]}
    assert handled == []


def test_the_local_drain_raises_what_a_worker_function_gives_back(handled):
    with pytest.raises(RuntimeError):
        workers.consume("sends", [("a", json.dumps({"fail": True}))], strict=True)
    assert workers.consume("sends", [("a", json.dumps({"n": 1})), ("b", json.dumps({"fail": True}))]) == ["b"]


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
