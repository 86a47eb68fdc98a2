"""The clock port: the current instant. The system clock in production (`bootstrap.SystemClock`);
a clock a test may hold still and move in memory (`devstack/memory/clock.py`).
`domain/kernel/clock.py` reads it."""

from datetime import datetime, timezone
from typing import Protocol

from chalicelib.ports.slot import Slot


class Clock(Protocol):
    """Tells the time."""

    def now(self) -> datetime:
        """The current instant, timezone-aware UTC, to the second."""


slot: Slot[Clock] = Slot("clock")


def now() -> datetime:
    """The current instant in UTC, to the second."""
    return slot.get().now()


class SystemClock:
    """The machine's clock (production, and memory tests that do not hold time)."""

    def now(self) -> datetime:
        """The current instant in UTC, to the second."""
        return datetime.now(timezone.utc).replace(microsecond=0)
