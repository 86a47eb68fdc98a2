"""The rate windows port: fixed windows counted for every container at once (sends per second,
failed sign-ins, public submissions per address). AWS: counters in the tokens table
(`store/window_counters.py`); in memory: `devstack/memory/counting.py`."""

import time
from collections.abc import Callable
from typing import Protocol

from chalicelib.ports.slot import Slot

Clock = Callable[[], float]  # Unix seconds now (time.time, or a test's clock)


class WindowCounters(Protocol):
    """Counts per named fixed window."""

    def counted(self, name: str, window: int, clock: Clock = time.time) -> tuple[int, int]:
        """(events counted for `name` in the current window of `window` seconds, seconds left in it)."""

    def count(self, name: str, window: int, clock: Clock = time.time) -> tuple[int, int]:
        """Count one event: (the count with it, seconds left in the window)."""

    def acquire(
        self, name: str, per_second: float, sleep: Callable[[float], None] = time.sleep, clock: Clock = time.time
    ) -> float:
        """Wait until one more `name` message fits the rate (0 or less: no limit); the time of the
        window it was let through in."""

    def acquire_many(
        self,
        name: str,
        per_second: float,
        n: int,
        sleep: Callable[[float], None] = time.sleep,
        clock: Clock = time.time,
    ) -> list[float]:
        """Wait until `n` more `name` messages fit the rate, a window's share at once; per message,
        the time of the window it was let through in."""


slot: Slot[WindowCounters] = Slot("window counters")


def counted(name: str, window: int, clock: Clock = time.time) -> tuple[int, int]:
    """(events counted in the current window, seconds left in it)."""
    return slot.get().counted(name, window, clock=clock)


def count(name: str, window: int, clock: Clock = time.time) -> tuple[int, int]:
    """Count one event: (the count with it, seconds left in the window)."""
    return slot.get().count(name, window, clock=clock)


def acquire(
    name: str, per_second: float, sleep: Callable[[float], None] = time.sleep, clock: Clock = time.time
) -> float:
    """Wait until one more `name` message fits the rate; the time it was let through."""
    return slot.get().acquire(name, per_second, sleep=sleep, clock=clock)


def acquire_many(
    name: str, per_second: float, n: int, sleep: Callable[[float], None] = time.sleep, clock: Clock = time.time
) -> list[float]:
    """Wait until `n` more `name` messages fit the rate; per message, the time it was let through."""
    return slot.get().acquire_many(name, per_second, n, sleep=sleep, clock=clock)
