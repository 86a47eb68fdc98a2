"""The idempotency records port: the first answer to an `Idempotency-Key`, held while its request
runs (a lease) and kept once done. AWS: items of the tokens table (`store/idempotency.py`); in
memory: `devstack/memory/counting.py`."""

from dataclasses import dataclass
from typing import Protocol, TypeAlias

from chalicelib.ports.slot import Slot

MAX_STORED = 300 * 1024  # compressed answer bytes that fit an item (400 KB) with room to spare
Answer: TypeAlias = tuple[int, dict[str, str | list[str]], bytes]  # status, kept headers, body


@dataclass(eq=False, repr=False)
class Record:
    """What a key holds: `fingerprint` of its first request; `answer` (status, headers, body bytes)
    once done, None while it runs."""

    fingerprint: str
    answer: Answer | None


class Records(Protocol):
    """Idempotency records by (scope, key)."""

    def claim(self, scope: str, key: str, fingerprint: str, lease: float) -> Record | None:
        """Take the key for a first request for `lease` seconds: None when taken, else the Record there."""

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
        """Store the answer for `keep` seconds; an answer too large releases the key. True when stored."""

    def release(self, scope: str, key: str) -> None:
        """Forget the key (its request failed in a way a retry may fix)."""


slot: Slot[Records] = Slot("idempotency")


def claim(scope: str, key: str, fingerprint: str, lease: float) -> Record | None:
    """Take the key for a first request: None when taken, else the Record already there."""
    return slot.get().claim(scope, key, fingerprint, lease)


def finish(
    scope: str, key: str, fingerprint: str, status: int, headers: dict[str, str | list[str]], body: bytes, keep: float
) -> bool:
    """Store the answer for `keep` seconds; True when stored."""
    return slot.get().finish(scope, key, fingerprint, status, headers, body, keep)


def release(scope: str, key: str) -> None:
    """Forget the key."""
    slot.get().release(scope, key)
