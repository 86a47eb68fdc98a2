"""The queues port: JSON messages to the service's queues by short name (`schema.QUEUES`), each
with a dead-letter queue. AWS: SQS (`store/queues.py`); in memory: `devstack/memory/queues.py`.
Both keep SQS's rules the workers rely on: a delay hides a message, a received message stays
invisible for the queue's visibility timeout (or the seconds a worker gives it back for) and counts
its receives, and after `schema.MAX_RECEIVES` receives it moves to the dead-letter queue (where a
worker puts its poison sooner: `workers/redelivery.py`)."""

import logging
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from chalicelib.ports.slot import Slot

BATCH = 10  # SendMessageBatch / ReceiveMessage maximum
MAX_DELAY = 900  # DelaySeconds maximum
log = logging.getLogger(__name__)


class QueueError(Exception):
    """The queue refused a message."""


class Queues(Protocol):
    """What the domain and the workers ask of queues."""

    def send(self, queue: str, bodies: Iterable[Any], delay: float = 0, dead_letter: bool = False) -> None:
        """Queue JSON messages (to the DLQ with `dead_letter`), `delay` seconds (at most MAX_DELAY);
        QueueError if any is refused."""

    def receive(self, queue: str, dead_letter: bool = False, limit: int = BATCH) -> list[tuple[str, Any, int]]:
        """Up to `limit` visible messages as (receipt, body, receive count); no waiting."""

    def delete(self, queue: str, receipt: str, dead_letter: bool = False) -> None:
        """Acknowledge a received message."""

    def change_visibility(self, queue: str, seconds: Mapping[str, int]) -> list[str]:
        """Make received messages (receipt -> seconds) visible again after their seconds (0: at once)
        instead of the visibility timeout; the receipts refused (a message deleted or moved meanwhile)."""

    def dead_letter(self, queue: str, bodies: Iterable[str]) -> None:
        """Put message bodies, as received (JSON or not), on the queue's dead-letter queue;
        QueueError if refused."""

    def redrive(self, queue: str) -> int:
        """Move every message of the queue's DLQ back to the queue; how many moved."""


slot: Slot[Queues] = Slot("queues")


def send(queue: str, bodies: Iterable[Any], delay: float = 0, dead_letter: bool = False) -> None:
    """Queue JSON messages; QueueError if any is refused."""
    slot.get().send(queue, bodies, delay=delay, dead_letter=dead_letter)


def receive(queue: str, dead_letter: bool = False, limit: int = BATCH) -> list[tuple[str, Any, int]]:
    """Up to `limit` visible messages as (receipt, body, receive count)."""
    return slot.get().receive(queue, dead_letter=dead_letter, limit=limit)


def delete(queue: str, receipt: str, dead_letter: bool = False) -> None:
    """Acknowledge a received message."""
    slot.get().delete(queue, receipt, dead_letter=dead_letter)


def change_visibility(queue: str, seconds: Mapping[str, int]) -> list[str]:
    """Make received messages (receipt -> seconds) visible again after their seconds; the receipts refused."""
    return slot.get().change_visibility(queue, seconds)


def dead_letter(queue: str, bodies: Iterable[str]) -> None:
    """Put message bodies, as received, on the queue's dead-letter queue."""
    slot.get().dead_letter(queue, bodies)


def redrive(queue: str) -> int:
    """Move the queue's dead letters back to it; how many moved."""
    return slot.get().redrive(queue)


def send_stored(queue: str, derived: Iterable[tuple[str, Any, Any]], kind: str, message_type: str) -> None:
    """After a commit: one `{"type": message_type, "id"}` message per derived item of `kind` the
    change stored (outbox items). Never raises: if the queue fails the items stay stored and the
    owner's sweep queues them."""
    ids = [item_id for item_kind, item_id, _ in derived if item_kind == kind]
    if not ids:
        return
    try:
        send(queue, [{"type": message_type, "id": item_id} for item_id in ids])
    except (
        Exception
    ):  # logged with its traceback (so no BLE001): the change and its items are stored; the sweep queues them
        log.warning("%s items kept for the sweep", kind, exc_info=True)
