"""Issue 30, contention: conflicting writes are retried with jittered backoff within a time budget."""

import time

import pytest

from chalicelib import config
from chalicelib.domain.kernel import retries
from chalicelib.domain.kernel.errors import Stale
from chalicelib.store import port as store


def test_contention_retries_many_conflicts_within_the_budget():
    conflicts = iter(range(12))
    refreshed = []

    def write():
        if next(conflicts, None) is not None:
            raise store.Stale(1)
        return "written"

    assert retries.settled(write, lambda: refreshed.append(1), budget=5) == "written"
    assert len(refreshed) == 12  # each retry forgot what it had read


def test_contention_gives_up_with_the_conflict_once_the_budget_is_spent():
    calls = []

    def write():
        calls.append(time.monotonic())
        raise Stale()

    started = time.monotonic()
    with pytest.raises(Stale):
        retries.settled(write, budget=0.3)
    assert time.monotonic() - started < 0.3 + config.active().CONFLICT_RETRY_CAP
    assert len(calls) > 3  # more than the old fixed 3 tries


def test_contention_backoff_is_jittered_under_a_doubling_capped_ceiling():
    for tries in range(40):
        ceiling = min(config.active().CONFLICT_RETRY_CAP, config.active().CONFLICT_RETRY_BASE * 2**tries)
        pauses = {retries.backoff(tries) for _ in range(20)}
        assert all(0 <= p <= ceiling for p in pauses)
        assert len(pauses) > 1  # random, so colliding writers spread out
