"""Background workers: which handler consumes which queue, and the periodic jobs.

On AWS each queue feeds a Lambda function through the `on_sqs_message` handlers of `app.py`, in
batches (SOURCES), and the jobs run from its `schedule` handlers; locally `devstack/workers.py` runs the
very same `consume` in threads (and `drain` runs it synchronously in tests).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from chalicelib import observe
from chalicelib.domain import wiring  # noqa: F401 - installs the registry and the subscriber table
from chalicelib.domain.automations import automation_runs
from chalicelib.domain.contacts import contact_merge, erasure
from chalicelib.domain.messaging import broadcast_index, broadcasts
from chalicelib.domain.privacy import retention, stats_retention
from chalicelib.domain.segments import membership, rebuilds
from chalicelib.domain.stages import stages
from chalicelib.domain.web import form_followups, upload_purge
from chalicelib.domain.webhooks import webhook_events
from chalicelib.workers import automations, erasures, feedback, segments, sends, webhooks

if TYPE_CHECKING:
    from chalice.app import SQSEvent

log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any]], None]  # one message's JSON body


class EventSource(TypedDict, total=False):
    """The settings of a queue's SQS event source: keyword arguments of Chalice's `on_sqs_message`."""

    batch_size: int
    maximum_batching_window_in_seconds: int
    maximum_concurrency: int


HANDLERS: dict[str, Handler] = {
    "segments": segments.handle,
    "webhooks": webhooks.handle,
    "automations": automations.handle,
    "sends": sends.handle,
    "feedback": feedback.handle,
    "erasure": erasures.handle,
}
JOBS: dict[str, tuple[Callable[[], object], ...]] = {
    "minute": (
        rebuilds.resend_stuck,
        webhook_events.sweep,
        automation_runs.dispatch,
        contact_merge.resend_lost,
        form_followups.sweep,
        stages.resend_lost,
        erasure.resend_lost,
        upload_purge.resend_lost,
        broadcasts.run,
    ),
    "hour": (
        rebuilds.refresh_relative,
        retention.run,
        stats_retention.run,
        membership.prune_joins,
        broadcast_index.backfill,
    ),
}
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
    messages: Sequence[tuple[str, str]],
    milliseconds_left: Callable[[], int] | None = None,
    strict: bool = False,
) -> list[str]:
    """Handle a batch of one queue's messages, `(id, JSON body)` pairs, each on its own: a failure
    neither blocks nor repeats the others. Returns the ids to give back to SQS for a retry: those
    that failed and, when `milliseconds_left()` runs low, those not started (a timeout would give
    back the whole batch, done ones included). `strict` raises the first failure instead (tests)."""
    failed: list[str] = []
    for position, (message_id, body) in enumerate(messages):
        if milliseconds_left and milliseconds_left() < RESERVE_MS:
            failed += [later for later, _ in messages[position:]]
            break
        try:
            HANDLERS[queue](json.loads(body))
        except Exception:  # this message alone goes back to SQS (logged with its traceback below)
            if strict:
                raise
            log.exception("worker %s failed on message %s", queue, message_id)
            failed.append(message_id)
    return failed


def on_batch(queue: str, event: SQSEvent) -> dict[str, list[dict[str, str]]]:
    """A worker function's answer to an SQS event: Lambda's partial batch response
    (ReportBatchItemFailures), with the batch's size, failures and queue lag as metrics."""
    context = event.context
    observe.begin(getattr(context, "aws_request_id", None), queue=queue)
    records = event.to_dict()["Records"]
    oldest = min(int(record["attributes"]["SentTimestamp"]) for record in records)
    failed = consume(
        queue,
        [(record["messageId"], record["body"]) for record in records],
        getattr(context, "get_remaining_time_in_millis", None),
    )
    observe.metrics(
        {"Queue": queue}, Messages=len(records), Failures=len(failed), QueueLag=max(0, int(time.time() * 1000) - oldest)
    )
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failed]}


def run_jobs(period: str, context: object = None) -> None:
    """Run the periodic jobs of a period (`minute` or `hour`)."""
    observe.begin(getattr(context, "aws_request_id", None), period=period)
    for job in JOBS[period]:
        job()
