"""Issue 29, part 1: ids reserved in blocks per process (store/id_blocks.py), and part 2: the cached
kinds' versions kept per process for VERSIONS_TTL (store/version_cache.py), over the in-memory store."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest

from chalicelib.domain.kernel import cached
from chalicelib.domain.kernel.context import Context
from chalicelib.store import id_blocks, version_cache
from chalicelib.store import port as store
from devstack.memory import MemoryStore


class Counter:
    """A counter standing in for the store's `allocate_ids`, recording each reservation."""

    def __init__(self) -> None:
        self.value = 0
        self.calls: list[int] = []

    def __call__(self, name: str, n: int) -> list[int]:
        self.calls.append(n)
        self.value += n
        return list(range(self.value - n + 1, self.value + 1))


class Clock:
    """Monotonic seconds held still; `now` moved by the test."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(configure, monkeypatch: pytest.MonkeyPatch) -> Clock:
    held = Clock()
    monkeypatch.setattr(id_blocks, "clock", held)
    monkeypatch.setattr(version_cache, "clock", held)
    configure(ID_BLOCKS={"contact": 10})
    configure(ID_BLOCK_SECONDS=10.0)
    id_blocks.forget()
    version_cache.forget()
    return held


def test_a_block_serves_ids_until_spent_then_the_next_one_is_reserved(clock: Clock) -> None:
    counter = Counter()
    ids = [id_blocks.allocate("contact", 1, counter)[0] for _ in range(25)]
    assert ids == list(range(1, 26))
    assert counter.calls == [10, 10, 10]  # three ADDs for 25 ids, not 25


def test_a_request_for_more_than_is_left_gets_one_new_block_of_its_size(clock: Clock) -> None:
    counter = Counter()
    assert id_blocks.allocate("contact", 3, counter) == [1, 2, 3]
    assert id_blocks.allocate("contact", 8, counter) == list(range(11, 19))  # 7 left: a gap of 4..10
    assert counter.calls == [10, 10]
    assert id_blocks.allocate("contact", 200, counter) == list(range(21, 221))  # a batch: one call of its n
    assert counter.calls == [10, 10, 200]
    assert id_blocks.allocate("contact", 1, counter) == [221]  # the batch's block is spent: a new one
    assert counter.calls == [10, 10, 200, 10]


def test_a_block_older_than_the_bound_is_dropped_so_ids_follow_time_across_processes(clock: Clock) -> None:
    counter = Counter()
    assert id_blocks.allocate("contact", 1, counter) == [1]
    clock.now += 9.9
    assert id_blocks.allocate("contact", 1, counter) == [2]
    clock.now += 0.1
    assert id_blocks.allocate("contact", 1, counter) == [11]
    assert counter.calls == [10, 10]


def test_other_processes_blocks_never_overlap_and_counters_not_named_take_no_block(clock: Clock) -> None:
    counter = Counter()
    mine = id_blocks.allocate("contact", 1, counter)
    counter(name="contact", n=10)  # another process reserved the next block
    id_blocks.forget()  # ...and this one is dropped (a new container)
    theirs = id_blocks.allocate("contact", 1, counter)
    assert (mine, theirs) == ([1], [21])
    assert id_blocks.allocate("generation", 1, counter) == [31] and counter.calls[-1] == 1


def test_threads_get_unique_ids(clock: Clock) -> None:
    counter = Counter()
    taken: list[int] = []

    def work() -> None:
        for _ in range(100):
            taken.extend(id_blocks.allocate("contact", 1, counter))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(taken) == list(range(1, 801)) and len(counter.calls) == 80


def test_the_port_takes_ids_from_blocks_over_any_store(memory_store: MemoryStore, clock: Clock) -> None:
    ids = [store.allocate_ids("contact")[0] for _ in range(10)]
    assert ids == list(range(1, 11)) and store.last_id("contact") == 10
    assert store.allocate_ids("contact") == [11] and store.last_id("contact") == 20


class CountingVersions:
    """The store's `versions`, counting reads."""

    def __init__(self, backing: MemoryStore) -> None:
        self.read, self.reads = backing.versions, 0

    def __call__(self, kinds: Sequence[str]) -> dict[str, int]:
        self.reads += 1
        return self.read(kinds)


def test_versions_are_read_once_per_interval_and_own_writes_seen_at_once(
    configure, memory_store: MemoryStore, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(VERSIONS_TTL=1.0)
    reads = CountingVersions(memory_store)
    monkeypatch.setattr(memory_store, "versions", reads)
    for _ in range(5):  # five requests in one second
        assert cached.version("segment", Context()) == 0
    assert reads.reads == 1
    store.create("segment", {"id": 1, "name": "mine"}, versioned=True)  # this process writes
    assert cached.version("segment", Context()) == 1 and reads.reads == 1  # seen at once, no read
    assert [d["name"] for d in cached.documents("segment", Context())] == ["mine"]
    memory_store.create("segment", {"id": 2, "name": "theirs"}, versioned=True)  # another container writes
    assert cached.version("segment", Context()) == 1  # not seen within the interval
    clock.now += 1.0
    assert cached.version("segment", Context()) == 2 and reads.reads == 2
    assert [d["name"] for d in cached.documents("segment", Context())] == ["mine", "theirs"]


def test_versions_ttl_zero_reads_every_time(
    configure, memory_store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(VERSIONS_TTL=0.0)
    reads = CountingVersions(memory_store)
    monkeypatch.setattr(memory_store, "versions", reads)
    for _ in range(3):
        cached.version("segment", Context())
    assert reads.reads == 3


def test_a_time_range_read_in_id_order_tolerates_rows_of_other_processes_blocks() -> None:
    """Rows in id order are in time order only to within a block's age: a row 5 s older than the
    range's start does not end the read before a newer row with a smaller id (another process's block)."""
    from datetime import datetime, timezone

    from chalicelib.domain.views import time_range

    span = time_range.Range(start=datetime(2026, 1, 1, 12, 0, 0, tzinfo=timezone.utc))
    newest_first = [
        {"at": "2026-01-01 12:00:09", "n": 1},
        {"at": "2026-01-01 11:59:55", "n": 2},  # a process's row, id just above the next one
        {"at": "2026-01-01 12:00:02", "n": 3},  # another process's block, still in range
        {"at": "2026-01-01 11:00:00", "n": 4},  # far before: the read stops here
        {"at": "2026-01-01 12:30:00", "n": 5},  # never read
    ]
    assert [row["n"] for row in time_range.within(newest_first, "at", span, True)] == [1, 3]
    oldest_first = list(reversed(newest_first[:4]))
    until = time_range.Range(end=datetime(2026, 1, 1, 12, 0, 0, tzinfo=timezone.utc))
    assert [row["n"] for row in time_range.within(oldest_first, "at", until, False)] == [4, 2]


def test_a_thawed_or_reset_clock_never_keeps_a_copy_or_block_fresh(
    configure, memory_store: MemoryStore, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copies age on the wall clock (a Lambda container frozen for minutes finds them stale); a
    clock set back counts as stale too, never as fresh for longer."""
    configure(VERSIONS_TTL=1.0)
    reads = CountingVersions(memory_store)
    monkeypatch.setattr(memory_store, "versions", reads)
    cached.version("segment", Context())
    clock.now -= 5.0
    cached.version("segment", Context())
    assert reads.reads == 2
    counter = Counter()
    id_blocks.allocate("contact", 1, counter)
    clock.now -= 5.0
    assert id_blocks.allocate("contact", 1, counter) == [11] and counter.calls == [10, 10]
