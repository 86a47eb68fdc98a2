"""The workers on one machine: queue pollers and the job clock as threads (devserver), or a
synchronous `drain` (tests). Each queue is read in batches of up to ten and consumed by
`workers.consume`, as its Lambda function does, through the queues port (the embedded SQS or the
memory queues): a failed message backs off with its visibility (`workers/redelivery.py`), which both
honour. `settle` runs them over minutes of the embedded SQS's clock (`advance`) without sleeping.
Handlers reach the embedded AWS one call at a time."""

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from chalicelib import aws, workers
from chalicelib.ports import queues
from chalicelib.store import queues as sqs
from chalicelib.store import schema
from chalicelib.workers.redelivery import Received
from devstack import capture

POLL_SECONDS = 0.2
PERIODS = {"minute": 60, "hour": 3600}
log = logging.getLogger("workers")


def _step(queue: str, raise_errors: bool, after: Callable[[], None] | None = None) -> int:
    """Receive one batch of a queue and consume it as its worker function would; acknowledge the
    messages it did not give back. The number of messages received."""
    received = [Received(receipt, json.dumps(body), receipt, count) for receipt, body, count in queues.receive(queue)]
    if not received:
        return 0
    given_back = set(workers.consume(queue, received, strict=raise_errors))
    for message in received:
        if message.id not in given_back:
            queues.delete(queue, message.receipt)
    if after:
        after()
    return len(received)


def drain(raise_errors: bool = True, rounds: int = 10000) -> int:
    """Handle queued messages of every queue until all are empty; the number handled."""
    handled = 0
    for _ in range(rounds):
        step = sum(_step(queue, raise_errors) for queue in workers.HANDLERS)
        if not step:
            return handled
        handled += step
    raise RuntimeError("queues did not drain")


def settle(seconds: float, until: Callable[[], bool] | None = None, step: float = 1.0) -> float:
    """Run the workers as SQS and Lambda would for up to `seconds` of the queues' clock: drain what
    is visible and, while messages wait hidden (a failed one backing off, a delayed one), move the
    clock on by `step` and drain again; stop early when the queues are empty or `until()` holds.
    The seconds the clock moved, handling time included. A fault in the poller's own SQS calls
    (fault injection) only ends a round, as a poll Lambda retries."""
    start = queue_time()
    while queue_time() - start < seconds and not (until and until()):
        try:
            drain(raise_errors=False)
            if not _waiting():
                break
        except Exception as error:
            if not aws.unavailable(error):
                raise
        advance(step)
    return queue_time() - start


def _waiting() -> int:
    """How many messages every queue holds: hidden (in flight or backing off), delayed, or visible
    (one whose backoff ended since the drain looked)."""
    names = [
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesNotVisible",
        "ApproximateNumberOfMessagesDelayed",
    ]
    client = aws.client("sqs")
    return sum(
        int(value)
        for queue in schema.QUEUES
        for value in client.get_queue_attributes(QueueUrl=sqs.url(queue), AttributeNames=names)["Attributes"].values()
    )


_sqs_clock: dict[str, Any] = {"offset": 0.0, "original": None}


def queue_time() -> float:
    """The queues' clock (the embedded SQS's, in seconds): real time plus what `advance` added."""
    return time.time() + float(_sqs_clock["offset"])


def advance(seconds: float) -> None:
    """Move the embedded SQS's clock (moto's: visibility, delays) on by `seconds`, so the messages
    hidden that long come back without waiting for them; nothing else's time moves."""
    from moto.sqs import models

    if _sqs_clock["original"] is None:
        _sqs_clock["original"] = models.unix_time
        models.unix_time = _shifted  # moto's SQS reads its clock through these two names
        models.unix_time_millis = _shifted_millis
    _sqs_clock["offset"] += seconds


def _shifted(dt: Any = None) -> float:
    return float(_sqs_clock["original"](dt)) + (0.0 if dt else float(_sqs_clock["offset"]))


def _shifted_millis(dt: Any = None) -> float:
    return _shifted(dt) * 1000.0


def _waits(queue: str) -> bool:
    """Whether the embedded SQS holds a message of `queue` that a receive would get now, looked up in
    process: an idle poll makes no call (six receives every POLL_SECONDS took a tenth of a core of a
    busy stack). A queue it does not hold (another adapter) is received from as before."""
    from moto.sqs.models import sqs_backends

    name = schema.queue_name(queue)
    with capture.serialized():
        held = [b.queues[name] for r in list(sqs_backends.values()) for b in list(r.values()) if name in b.queues]
        return not held or any(q.messages for q in held)


def _poll(stop: threading.Event, after: Callable[[], None]) -> None:
    """Consume every queue until `stop`, resting POLL_SECONDS when all are empty."""
    while not stop.is_set():
        if not sum(_step(queue, False, after) for queue in workers.HANDLERS if _waits(queue)):
            stop.wait(POLL_SECONDS)


def _clock(stop: threading.Event, after: Callable[[], None]) -> None:
    """Run each period's jobs when it falls due, until `stop`."""
    due = {period: time.monotonic() + seconds for period, seconds in PERIODS.items()}
    while not stop.wait(1.0):
        for period, seconds in PERIODS.items():
            if time.monotonic() >= due[period]:
                due[period] += seconds
                try:
                    workers.run_jobs(period)
                except Exception:  # logged; the next tick tries again
                    log.exception("jobs of the %s failed", period)
                after()


def start(stop: threading.Event, after: Callable[[], None]) -> None:
    """Start the queue poller and the job clock as daemon threads; `after()` follows each piece of work."""
    for target in (_poll, _clock):
        threading.Thread(target=target, args=(stop, after), daemon=True).start()
