"""Ids reserved in blocks per process, so no id counter item is written on every request.

A counter named in `config.active().ID_BLOCKS` hands this process a block of that many ids with one
UpdateItem (`ADD <size>` on `id#<name>`); the process takes ids from it until it is spent or older
than `config.active().ID_BLOCK_SECONDS`, then reserves the next one. A request asking for more ids than
are left gets them all from one new block of at least its size (a batch create still makes one
call). Ids stay unique (every block comes from the atomic counter) and increasing within a process;
between processes they follow time only to within the block's age, and the ids left in a dropped
block are gaps (docs/storage.md, "Ids"). Shared by every store implementation (`store/port.py` calls
it); thread-safe, as the local server answers requests in threads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from chalicelib import config

Reserve = Callable[[str, int], list[int]]  # the store's own allocate_ids: n consecutive ids, one call


@dataclass(eq=False, repr=False)
class Block:
    """Ids `next`..`last` of a counter, reserved by this process at `at` (clock seconds)."""

    next: int
    last: int
    at: float

    def left(self) -> int:
        """How many ids the block still holds."""
        return self.last - self.next + 1


# Wall-clock seconds: a container frozen between invocations finds its block old when it thaws.
clock: Callable[[], float] = time.time  # replaced by tests that drive time
_blocks: dict[str, Block] = {}
_lock = threading.Lock()


def allocate(name: str, n: int, reserve: Reserve) -> list[int]:
    """N consecutive new ids of the counter `name`: from this process's block when it takes blocks,
    else straight from `reserve`."""
    size = config.active().ID_BLOCKS.get(name, 0)
    if size <= 1 or n < 1:
        return reserve(name, n)
    with _lock:
        block = _blocks.get(name)
        now = clock()
        if block is None or block.left() < n or not 0 <= now - block.at < config.active().ID_BLOCK_SECONDS:
            ids = reserve(name, max(n, size))
            block = _blocks[name] = Block(ids[0], ids[-1], now)
        taken = list(range(block.next, block.next + n))
        block.next += n
        return taken


def forget() -> None:
    """Drop the blocks (tests restore older table states, whose counters are lower)."""
    with _lock:
        _blocks.clear()
