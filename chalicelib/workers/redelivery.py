"""What becomes of a worker's message that failed (docs/reliability.md, "Backoff and poison").

A failure that means "not now" (AWS unavailable, a write that lost a race, a handler's own
`LATER` exceptions) is given back to SQS with a visibility of a few seconds, doubling with the
message's receive count up to CAP_SECONDS, instead of the queue's visibility timeout (200 s): a
burst of throttling delays a send by seconds, and the queue's maxReceiveCount (`schema.MAX_RECEIVES`)
lets it retry for many minutes. Any other failure is a bug or a bad body: from its POISON_RECEIVES-th
receive on, the message is put on the queue's dead-letter queue (and acknowledged), where an
operator finds it, without waiting for the receives meant for a burst.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Sequence
from typing import NamedTuple

from chalicelib.ports import outages, queues
from chalicelib.store.common import Stale

BASE_SECONDS = 2  # the first retry's ceiling; each receive doubles it
CAP_SECONDS = 30  # a retry waits at most this: a message is retried within it once AWS is back
POISON_RECEIVES = 5  # a failure that is not "not now" on this receive or a later one: the dead-letter queue
SQS_TRIES = 3  # the visibility change or the move to the dead-letter queue, tried again at once
LATER: tuple[type[BaseException], ...] = (Stale,)  # "not now" whatever the queue
log = logging.getLogger(__name__)


class Received(NamedTuple):
    """A received message: its id in the answer (Lambda's messageId; locally its receipt), JSON
    body, receipt handle and receive count (ApproximateReceiveCount, 1 on the first receive)."""

    id: str
    body: str
    receipt: str
    receives: int


def backoff(receives: int, draw: Callable[[int, int], int] = random.randint) -> int:
    """The seconds a message that failed on its `receives`-th receive stays hidden: between half
    and all of a ceiling of BASE_SECONDS doubling per receive, at most CAP_SECONDS ("equal jitter":
    the batches of one burst do not all come back in the same second)."""
    ceiling = min(CAP_SECONDS, BASE_SECONDS * 2 ** min(max(receives, 1) - 1, 16))
    return draw(ceiling // 2, ceiling)


def is_later(error: BaseException, later: tuple[type[BaseException], ...] = ()) -> bool:
    """Whether the failure means "not now": a dependency unavailable (the outages port), or one of LATER or
    the queue's own `later` exceptions."""
    return isinstance(error, LATER + later) or outages.unavailable(error)


def give_back(
    queue: str,
    failed: Sequence[tuple[Received, BaseException]],
    unstarted: Sequence[Received] = (),
    later: tuple[type[BaseException], ...] = (),
) -> list[str]:
    """Settle a batch's failed and not started messages with SQS; the ids SQS must deliver again.
    Poison goes to the dead-letter queue (and is not given back); the other failures back off;
    the ones not started come back at once."""
    poison = [message for message, error in failed if _is_poison(message, error, later)]
    moved = _dead_lettered(queue, poison)
    again = [message for message, _error in failed if message.id not in moved]
    seconds = {message.receipt: backoff(message.receives) for message in again}
    seconds.update({message.receipt: 0 for message in unstarted})
    _hide(queue, seconds)
    return [message.id for message in [*again, *unstarted]]


def _is_poison(message: Received, error: BaseException, later: tuple[type[BaseException], ...]) -> bool:
    return message.receives >= POISON_RECEIVES and not is_later(error, later)


def _dead_lettered(queue: str, poison: Sequence[Received]) -> set[str]:
    """Put the poison on the dead-letter queue; the ids moved (none if SQS kept refusing: they are
    given back and moved on a later receive)."""
    if poison and _tried(lambda: queues.dead_letter(queue, [message.body for message in poison])):
        log.error("worker %s: %d message(s) moved to the dead-letter queue", queue, len(poison))
        return {message.id for message in poison}
    return set()


def _hide(queue: str, seconds: dict[str, int]) -> None:
    """Change the messages' visibility; if SQS keeps refusing, they wait the queue's visibility timeout."""
    if seconds and not _tried(lambda: queues.change_visibility(queue, seconds)):
        log.warning("worker %s: visibility of %d message(s) unchanged", queue, len(seconds))


def _tried(call: Callable[[], object]) -> bool:
    """call(), up to SQS_TRIES times while it raises; whether it succeeded (the last failure logged)."""
    for attempt in range(SQS_TRIES):
        try:
            call()
            return True
        except Exception:  # an SQS call failed: tried again, logged the last time
            if attempt == SQS_TRIES - 1:
                log.warning("SQS call failed %d times", SQS_TRIES, exc_info=True)
    return False
