"""The rate windows, tokens and idempotency ports in memory: counters per window, secrets kept by the
hash of their key with an expiry and a single-use flag, and the first answers to idempotency keys,
with the semantics of `store/window_counters.py`, `store/tokens.py` and `store/idempotency.py`."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chalicelib.ports.idempotency import MAX_STORED, Record
from chalicelib.ports.window_counters import Clock


def _window(per_second: float) -> tuple[int, int]:
    """(window length in seconds, messages allowed per window) for a rate."""
    length = 1 if per_second >= 1 else math.ceil(1 / per_second)
    return length, max(1, int(per_second * length))


class MemoryWindowCounters:
    """Fixed-window counts by key (`count#<name>#<start>`, `rate#<name>#<start>`)."""

    def __init__(self) -> None:
        self.values: dict[str, int] = {}

    def _key(self, name: str, window: int, clock: Clock) -> tuple[str, int]:
        start = int(clock() // window) * window
        return f"count#{name}#{start}", start + window

    def counted(self, name: str, window: int, clock: Clock = time.time) -> tuple[int, int]:
        """(events counted for `name` in the current window, seconds left in it)."""
        key, end = self._key(name, window, clock)
        return self.values.get(key, 0), max(1, math.ceil(end - clock()))

    def count(self, name: str, window: int, clock: Clock = time.time) -> tuple[int, int]:
        """Count one event: (the count with it, seconds left in the window)."""
        key, end = self._key(name, window, clock)
        self.values[key] = self.values.get(key, 0) + 1
        return self.values[key], max(1, math.ceil(end - clock()))

    def acquire(
        self, name: str, per_second: float, sleep: Callable[[float], None] = time.sleep, clock: Clock = time.time
    ) -> float:
        """Wait until one more `name` message fits the rate; the time it was let through."""
        if per_second <= 0:
            return clock()
        length, allowance = _window(per_second)
        while True:
            now = clock()
            start = int(now // length) * length
            key = f"rate#{name}#{start}"
            self.values[key] = self.values.get(key, 0) + 1
            if self.values[key] <= allowance:
                return now
            sleep(start + length - now)

    def acquire_many(
        self,
        name: str,
        per_second: float,
        n: int,
        sleep: Callable[[float], None] = time.sleep,
        clock: Clock = time.time,
    ) -> list[float]:
        """Wait until `n` more `name` messages fit the rate, a window's share at once; per message,
        the time it was let through."""
        if per_second <= 0:
            return [clock()] * n
        length, allowance = _window(per_second)
        moments: list[float] = []
        while len(moments) < n:
            now = clock()
            start = int(now // length) * length
            key = f"rate#{name}#{start}"
            wanted = min(n - len(moments), allowance)
            self.values[key] = self.values.get(key, 0) + wanted
            moments += [now] * max(0, min(wanted, allowance - (self.values[key] - wanted)))
            if len(moments) < n:
                sleep(start + length - now)
        return moments


@dataclass
class Secret:
    """What a token key holds."""

    data: str
    expires: float | None
    used: bool = False


class MemoryTokens:
    """Secrets by the SHA-256 of (kind, secret)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.secrets: dict[str, Secret] = {}

    @staticmethod
    def _key(kind: str, secret: str) -> str:
        return f"{kind}#{hashlib.sha256(secret.encode()).hexdigest()}"

    def put(self, kind: str, secret: str, data: Any, seconds: float | None = None, only_new: bool = False) -> bool:
        """Store data under (kind, secret); with `only_new`, False when the key exists (expired or not,
        as DynamoDB's condition sees the item until its TTL removes it)."""
        key = self._key(kind, secret)
        if only_new and key in self.secrets:
            return False
        self.secrets[key] = Secret(json.dumps(data), self.clock() + seconds if seconds else None)
        return True

    def get(self, kind: str, secret: str) -> tuple[Any, bool]:
        """(data, used) for a live key, or (None, False)."""
        found = self.secrets.get(self._key(kind, secret))
        if found is None or (found.expires is not None and found.expires < self.clock()):
            return None, False
        return json.loads(found.data), found.used

    def use(self, kind: str, secret: str) -> bool:
        """Mark a key used; True only for the first call on an existing key."""
        found = self.secrets.get(self._key(kind, secret))
        if found is None or found.used:
            return False
        found.used = True
        return True

    def delete(self, kind: str, secret: str) -> None:
        """Forget a secret."""
        self.secrets.pop(self._key(kind, secret), None)


@dataclass
class Held:
    """An idempotency key: its record and when it expires."""

    record: Record
    expires: float


class MemoryRecords:
    """Idempotency records by (scope, key), with `store/idempotency.py`'s lease and keep times."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.held: dict[tuple[str, str], Held] = {}

    def claim(self, scope: str, key: str, fingerprint: str, lease: float) -> Record | None:
        """Take the key for `lease` seconds: None when taken, else the live Record there."""
        found = self.held.get((scope, key))
        if found is not None and found.expires >= self.clock():
            return found.record
        self.held[(scope, key)] = Held(Record(fingerprint, None), self.clock() + lease)
        return None

    def finish(
        self,
        scope: str,
        key: str,
        fingerprint: str,
        status: int,
        headers: dict[str, str | list[str]],
        body: bytes,
        keep: float,
    ) -> bool:
        """Keep the answer for `keep` seconds; one too large (compressed, as stored on AWS) releases the key."""
        if len(base64.b64encode(zlib.compress(body))) > MAX_STORED:
            self.release(scope, key)
            return False
        self.held[(scope, key)] = Held(Record(fingerprint, (status, dict(headers), bytes(body))), self.clock() + keep)
        return True

    def release(self, scope: str, key: str) -> None:
        """Forget the key."""
        self.held.pop((scope, key), None)
