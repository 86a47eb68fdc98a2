"""The workers on one machine: queue pollers and the job clock as threads (devserver), or a
synchronous `drain` (tests). Each queue is read in batches of up to ten and consumed by
`workers.consume`, as its Lambda function does. Handlers reach the embedded AWS one call at a time."""

import json
import logging
import threading
import time
from collections.abc import Callable

from chalicelib import workers
from chalicelib.ports import queues

POLL_SECONDS = 0.2
PERIODS = {"minute": 60, "hour": 3600}
log = logging.getLogger("workers")


def _step(queue: str, raise_errors: bool, after: Callable[[], None] | None = None) -> int:
    """Receive one batch of a queue and consume it as its worker function would; acknowledge the
    messages it did not give back. The number of messages received."""
    messages = queues.receive(queue)
    if not messages:
        return 0
    failed = set(
        workers.consume(queue, [(receipt, json.dumps(body)) for receipt, body, _count in messages], strict=raise_errors)
    )
    for receipt, _body, _count in messages:
        if receipt not in failed:
            queues.delete(queue, receipt)
    if after:
        after()
    return len(messages)


def drain(raise_errors: bool = True, rounds: int = 10000) -> int:
    """Handle queued messages of every queue until all are empty; the number handled."""
    handled = 0
    for _ in range(rounds):
        step = sum(_step(queue, raise_errors) for queue in workers.HANDLERS)
        if not step:
            return handled
        handled += step
    raise RuntimeError("queues did not drain")


def _poll(stop: threading.Event, after: Callable[[], None]) -> None:
    """Consume every queue until `stop`, resting POLL_SECONDS when all are empty."""
    while not stop.is_set():
        if not sum(_step(queue, False, after) for queue in workers.HANDLERS):
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
