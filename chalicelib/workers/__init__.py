"""Background workers: which handler consumes which queue, and the periodic jobs.

On AWS each queue feeds a Lambda function through the `on_sqs_message` handlers of `app.py`, in
batches (SOURCES), and the jobs run from its `schedule` handlers; locally `devstack/workers.py` runs the
very same `consume` in threads (and `drain` runs it synchronously in tests). The registry and the
subscriber table the handlers write through are installed by those callers' composition roots
(`bootstrap.assemble()` in `app.py`, `devstack/server.py`, `tests/conftest.py`), not by this package.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from chalicelib import observe
from chalicelib.domain.automations import automation_runs
from chalicelib.domain.contacts import contact_merge, erasure
from chalicelib.domain.messaging import broadcast_index, broadcasts
from chalicelib.domain.privacy import retention, stats_retention
from chalicelib.domain.segments import membership, rebuilds
from chalicelib.domain.stages import stages
from chalicelib.domain.web import form_followups, upload_purge
from chalicelib.domain.webhooks import webhook_events
from chalicelib.workers import automations, erasures, feedback, segments, sends, webhooks
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


HANDLERS: dict[str, Handler] = {
    "segments": segments.handle,
    "webhooks": webhooks.handle,
    "automations": automations.handle,
    "sends": sends.handle,
    "feedback": feedback.handle,
    "erasure": erasures.handle,
}
# Per queue, the exceptions of its handlers that mean "not now" (retried with backoff, never
# poison: workers/redelivery.py), besides AWS unavailable and a lost race.
LATER: dict[str, tuple[type[BaseException], ...]] = {"sends": sends.LATER}
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
# SEGMENT_REBUILD_BATCH contacts, so fewer of them share a 30 s invocation. The sends worker runs
# at most maximum_concurrency invocations at once: 10 messages each, one SES call per message,
# so a 1M-contact send keeps under SES's send rate and DynamoDB's on-demand ramp.
SOURCES: dict[str, EventSource] = {
    "segments": {"batch_size": 5, "maximum_batching_window_in_seconds": 1},
    "webhooks": {"batch_size": 10, "maximum_batching_window_in_seconds": 1},
    "automations": {"batch_size": 10, "maximum_batching_window_in_seconds": 1},
    "sends": {"batch_size": 10, "maximum_batching_window_in_seconds": 1, "maximum_concurrency": 5},
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
    return give_back(queue, failed, unstarted, LATER.get(queue, ()))


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
