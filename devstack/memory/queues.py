"""The queues port in memory, with the rules of SQS the workers rely on: a delay hides a message
until it passes, a received message stays invisible for the visibility timeout and counts its
receives, a message received `max_receives` times moves to the dead-letter queue on its next
receive (SQS's redrive policy, `maxReceiveCount` as `schema.ensure_resources` sets), and a
receipt names one receive. Bodies travel as JSON, so they read back as from SQS."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from chalicelib.ports.queues import BATCH, MAX_DELAY, QueueError
from chalicelib.store.queue_names import MAX_RECEIVES

VISIBILITY = 30  # seconds: SQS's default visibility timeout (the queues' own)


@dataclass
class Message:
    """One queued message: its JSON, when it is visible again, its receives and latest receipt."""

    body: str
    visible_at: float
    receives: int = 0
    receipt: str = ""


class MemoryQueues:
    """Queues by name, each with its dead-letter queue (`<name>-dlq`); `sent` keeps every body ever
    sent by queue name, for tests to read."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.queues: dict[str, list[Message]] = {}
        self.sent: dict[str, list[Any]] = {}
        self._receipts = itertools.count(1)

    @staticmethod
    def _name(queue: str, dead_letter: bool) -> str:
        return queue + "-dlq" if dead_letter else queue

    def send(self, queue: str, bodies: Iterable[Any], delay: float = 0, dead_letter: bool = False) -> None:
        """Queue JSON messages, each visible after `delay` seconds (at most MAX_DELAY)."""
        if not 0 <= int(delay) <= MAX_DELAY:
            raise QueueError(f"{queue}: a delay of {delay} s is not between 0 and {MAX_DELAY}")
        name = self._name(queue, dead_letter)
        for body in list(bodies):
            text = json.dumps(body)
            self.sent.setdefault(name, []).append(json.loads(text))
            self.queues.setdefault(name, []).append(Message(text, self.clock() + int(delay)))

    def receive(self, queue: str, dead_letter: bool = False, limit: int = BATCH) -> list[tuple[str, Any, int]]:
        """Up to `limit` visible messages as (receipt, body, receive count), each then invisible for
        VISIBILITY seconds; one received MAX_RECEIVES times already moves to the DLQ instead."""
        now, name = self.clock(), self._name(queue, dead_letter)
        found: list[tuple[str, Any, int]] = []
        for message in [m for m in self.queues.get(name, []) if m.visible_at <= now]:
            if len(found) == limit:
                break
            if not dead_letter and message.receives >= MAX_RECEIVES:
                self.queues[name].remove(message)
                self.queues.setdefault(self._name(queue, True), []).append(message)
                continue
            message.receives += 1
            message.receipt = f"{name}#{next(self._receipts)}"
            message.visible_at = now + VISIBILITY
            found.append((message.receipt, json.loads(message.body), message.receives))
        return found

    def _received(self, name: str, receipt: str) -> Message | None:
        return next((m for m in self.queues.get(name, []) if m.receipt == receipt), None)

    def delete(self, queue: str, receipt: str, dead_letter: bool = False) -> None:
        """Acknowledge a received message (an unknown receipt: nothing, as SQS)."""
        name = self._name(queue, dead_letter)
        message = self._received(name, receipt)
        if message is not None:
            self.queues[name].remove(message)

    def change_visibility(self, queue: str, seconds: Mapping[str, int]) -> list[str]:
        """Make received messages (receipt -> seconds) visible again after their seconds; the
        receipts of no message received (deleted or moved meanwhile), as SQS refuses them."""
        refused: list[str] = []
        for receipt, wait in seconds.items():
            message = self._received(self._name(queue, False), receipt)
            if message is None:
                refused.append(receipt)
            else:
                message.visible_at = self.clock() + max(0, int(wait))
        return refused

    def dead_letter(self, queue: str, bodies: Iterable[str]) -> None:
        """Put bodies, as received (JSON or not), on the queue's dead-letter queue."""
        name = self._name(queue, True)
        self.queues.setdefault(name, []).extend(Message(text, self.clock()) for text in bodies)

    def redrive(self, queue: str) -> int:
        """Move every dead letter back to the queue (receive, send, delete, as over SQS); how many."""
        moved = 0
        while True:
            messages = self.receive(queue, dead_letter=True)
            if not messages:
                return moved
            self.send(queue, [body for _receipt, body, _count in messages])
            for receipt, _body, _count in messages:
                self.delete(queue, receipt, dead_letter=True)
            moved += len(messages)

    def empty(self) -> None:
        """Drop every message and what was sent."""
        self.queues.clear()
        self.sent.clear()
