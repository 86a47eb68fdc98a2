"""Conflicting writes tried again: the one retry loop of every write that re-reads and rewrites a
document (docs/reliability.md). A conflict is the store's revision check refusing a write because
another writer changed the document since it was read (`store.Stale`, the domain's `Stale`)."""

import random
import time
from collections.abc import Callable
from typing import TypeVar

from chalicelib import config
from chalicelib.domain.kernel.errors import Stale
from chalicelib.store import port as store

T = TypeVar("T")


def settled(operation: Callable[[], T], refresh: Callable[[], object] | None = None, budget: float | None = None) -> T:
    """operation(), run again after `refresh()` (forget what was read) while it conflicts, with
    jittered exponential backoff until `budget` seconds (CONFLICT_RETRY_SECONDS) have passed; then
    the last conflict is raised. Nested calls share the outer deadline: the outer one, started
    first, gives up as soon as the inner one does."""
    deadline = time.monotonic() + (config.active().CONFLICT_RETRY_SECONDS if budget is None else budget)
    tries = 0
    while True:
        try:
            return operation()
        except (Stale, store.Stale):
            if refresh is not None:
                refresh()
            pause = backoff(tries)
            if time.monotonic() + pause >= deadline:
                raise
            time.sleep(pause)
            tries += 1


def backoff(tries: int) -> float:
    """The pause before the next try after `tries` retries: "full jitter" under a doubling ceiling
    (CONFLICT_RETRY_BASE, at most CONFLICT_RETRY_CAP seconds), so writers that collided spread out."""
    ceiling = min(config.active().CONFLICT_RETRY_CAP, config.active().CONFLICT_RETRY_BASE * 2 ** min(tries, 30))
    return random.uniform(0, ceiling)  # noqa: S311 - jitter, not a secret
