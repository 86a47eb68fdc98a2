"""Background workers: which handler consumes which queue, and the periodic jobs.

On AWS each queue feeds a Lambda function through the `on_sqs_message` handlers of `app.py`, in
batches (SOURCES), and the jobs run from its `schedule` handlers; locally `devstack/workers.py` runs the
very same `consume` in threads (and `drain` runs it synchronously in tests). The registry and the
subscriber table the handlers write through are installed by those callers' composition roots
(`bootstrap.assemble()` in `app.py`, `devstack/server.py`, `tests/conftest.py`), not by this package.
"""

from __future__ import annotations

import importlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from chalicelib import loading, observe
from chalicelib.workers.redelivery import Received, give_back

if TYPE_CHECKING:
    from chalice.app import SQSEvent

log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any]], None]  # one message's JSON body


class EventSource(TypedDict, total=False):
    """The settings of a queue's SQS event source: keyword arguments of Chalice's `on_sqs_message`."""

    batch_size: int
    maximum_batching_window_in_seconds: int
    maximum_concurrency: int


def resolved(path: str) -> Callable[..., Any]:
    """The function `module:name`, imported with the house assembled (`domain.wiring`: the registry
    and the subscriber table every write goes through) but nothing else: a worker function's cold
    start imports its own capability, not every queue's (with the collector paused: chalicelib/loading.py)."""
    from chalicelib import bootstrap

    bootstrap.assemble()
    module, _, name = path.partition(":")
    with loading.imports():
        function: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return function


class Lazy(dict[str, Any]):
    """A table of `module:name` paths (or tuples of them) whose entries are imported on first
    lookup (`resolved`) and kept; an entry set to a function is used as it is."""

    def __getitem__(self, key: str) -> Any:
        value = super().__getitem__(key)
        if isinstance(value, str):
            value = resolved(value)
        elif isinstance(value, tuple) and any(isinstance(path, str) for path in value):
            value = tuple(resolved(path) if isinstance(path, str) else path for path in value)
        else:
            return value
        self[key] = value
        return value


HANDLERS: dict[str, Handler] = Lazy(
    segments="chalicelib.workers.segments:handle",
    webhooks="chalicelib.workers.webhooks:handle",
    automations="chalicelib.workers.automations:handle",
    sends="chalicelib.workers.sends:handle",
    feedback="chalicelib.workers.feedback:handle",
    erasure="chalicelib.workers.erasures:handle",
)
# Per queue, the exceptions of its handlers that mean "not now" (retried with backoff, never
# poison: workers/redelivery.py), besides AWS unavailable and a lost race.
LATER: dict[str, tuple[type[BaseException], ...]] = Lazy(sends="chalicelib.workers.sends:LATER")
JOBS: dict[str, tuple[Callable[[], object], ...]] = Lazy(
    minute=(
        "chalicelib.domain.segments.rebuilds:resend_stuck",
        "chalicelib.domain.webhooks.webhook_events:sweep",
        "chalicelib.domain.automations.automation_runs:dispatch",
        "chalicelib.domain.contacts.contact_merge:resend_lost",
        "chalicelib.domain.web.form_followups:sweep",
        "chalicelib.domain.stages.stages:resend_lost",
        "chalicelib.domain.contacts.erasure:resend_lost",
        "chalicelib.domain.web.upload_purge:resend_lost",
        "chalicelib.domain.messaging.broadcasts:run",
    ),
    hour=(
        "chalicelib.domain.segments.rebuilds:refresh_relative",
        "chalicelib.domain.privacy.retention:run",
        "chalicelib.domain.privacy.stats_retention:run",
        "chalicelib.domain.segments.membership:prune_joins",
        "chalicelib.domain.messaging.broadcast_index:backfill",
    ),
)
# Each queue's SQS event source (docs/deploy.md, "Workers"): up to batch_size messages per
# invocation, gathered for up to the window's seconds. A segments message rebuilds up to
# SEGMENT_REBUILD_BATCH contacts, so fewer of them share a 30 s invocation. A sends message is a batch
# of EMAIL_SEND_BATCH (100) contacts, ~0.6 s at 5 ms per AWS call and ~1.5 s at 20 ms (62 sequential
# round trips, docs/storage.md): 5 an invocation end well inside 30 s. At most maximum_concurrency
# invocations at once: 10 x ~167 messages/s modelled, over 1,000/s, still a cap under SES's quota.
SOURCES: dict[str, EventSource] = {
    "segments": {"batch_size": 5, "maximum_batching_window_in_seconds": 1},
    "webhooks": {"batch_size": 10, "maximum_batching_window_in_seconds": 1},
    "automations": {"batch_size": 10, "maximum_batching_window_in_seconds": 1},
    "sends": {"batch_size": 5, "maximum_batching_window_in_seconds": 1, "maximum_concurrency": 10},
    "feedback": {"batch_size": 10, "maximum_batching_window_in_seconds": 5},
    "erasure": {"batch_size": 5, "maximum_batching_window_in_seconds": 1},
}
RESERVE_MS = 5000  # a message is not started with less time left: it goes back to SQS, not to a timeout


def consume(
    queue: str,
    messages: Sequence[Received],
    milliseconds_left: Callable[[], int] | None = None,
    strict: bool = False,
) -> list[str]:
    """Handle a batch of one queue's messages, each on its own: a failure neither blocks nor repeats
    the others. Returns the ids to give back to SQS for a retry: those that failed and, when
    `milliseconds_left()` runs low, those not started (a timeout would give back the whole batch,
    done ones included); `redelivery.give_back` sets when SQS delivers them again and moves poison
    to the dead-letter queue. `strict` raises the first failure instead (tests)."""
    failed: list[tuple[Received, BaseException]] = []
    unstarted: list[Received] = []
    for position, message in enumerate(messages):
        if milliseconds_left and milliseconds_left() < RESERVE_MS:
            unstarted = list(messages[position:])
            break
        try:
            HANDLERS[queue](json.loads(message.body))
        except Exception as error:  # this message alone goes back to SQS (logged with its traceback below)
            if strict:
                raise
            log.exception("worker %s failed on message %s (receive %d)", queue, message.id, message.receives)
            failed.append((message, error))
    if not failed and not unstarted:
        return []
    return give_back(queue, failed, unstarted, LATER[queue] if queue in LATER else ())


def on_batch(queue: str, event: SQSEvent) -> dict[str, list[dict[str, str]]]:
    """A worker function's answer to an SQS event: Lambda's partial batch response
    (ReportBatchItemFailures), with the batch's size, failures and queue lag as metrics."""
    context = event.context
    observe.begin(getattr(context, "aws_request_id", None), queue=queue)
    records = event.to_dict()["Records"]
    oldest = min(int(record["attributes"]["SentTimestamp"]) for record in records)
    failed = consume(
        queue, [_received(record) for record in records], getattr(context, "get_remaining_time_in_millis", None)
    )
    observe.metrics(
        {"Queue": queue}, Messages=len(records), Failures=len(failed), QueueLag=max(0, int(time.time() * 1000) - oldest)
    )
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failed]}


def _received(record: dict[str, Any]) -> Received:
    """A Lambda SQS record as a received message (its receipt handle and receive count)."""
    count = int(record["attributes"].get("ApproximateReceiveCount") or 1)
    return Received(record["messageId"], record["body"], record["receiptHandle"], count)


def run_jobs(period: str, context: object = None) -> None:
    """Run the periodic jobs of a period (`minute` or `hour`)."""
    observe.begin(getattr(context, "aws_request_id", None), period=period)
    for job in JOBS[period]:
        job()
