"""The workers on one machine: queue pollers and the job clock as threads (devserver), or a
synchronous `drain` (tests). Handlers reach the embedded AWS one call at a time, like requests."""
import logging
import threading
import time

from chalicelib import workers
from chalicelib.store import queues

POLL_SECONDS = 0.2
PERIODS = {"minute": 60, "hour": 3600}
log = logging.getLogger("workers")


def _step(queue, raise_errors, after=None):
    """Receive and handle one batch of a queue; the number of messages received."""
    messages = queues.receive(queue)
    for receipt, body, _count in messages:
        try:
            workers.consume(queue, [body])
        except Exception:  # noqa: BLE001 - a failed message stays queued for SQS's retry
            if raise_errors:
                raise
            log.exception("worker %s failed on %s", queue, body)
            continue
        queues.delete(queue, receipt)
        if after:
            after()
    return len(messages)


def drain(raise_errors=True, rounds=10000):
    """Handle queued messages of every queue until all are empty; the number handled."""
    handled = 0
    for _ in range(rounds):
        step = sum(_step(queue, raise_errors) for queue in workers.HANDLERS)
        if not step:
            return handled
        handled += step
    raise RuntimeError("queues did not drain")


def _poll(stop, after):
    while not stop.is_set():
        if not sum(_step(queue, False, after) for queue in workers.HANDLERS):
            stop.wait(POLL_SECONDS)


def _clock(stop, after):
    due = {period: time.monotonic() + seconds for period, seconds in PERIODS.items()}
    while not stop.wait(1.0):
        for period, seconds in PERIODS.items():
            if time.monotonic() >= due[period]:
                due[period] += seconds
                try:
                    workers.run_jobs(period)
                except Exception:  # noqa: BLE001 - the next tick tries again
                    log.exception("jobs of the %s failed", period)
                after()


def start(stop, after):
    """Start the queue poller and the job clock as daemon threads; `after()` follows each piece of work."""
    for target in (_poll, _clock):
        threading.Thread(target=target, args=(stop, after), daemon=True).start()
