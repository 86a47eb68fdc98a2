"""The thread pool a segment send's chunk runs its calls in (`send_batches.py`, `sent_events.py`)."""

import contextvars
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import TypeVar

from chalicelib import config

T = TypeVar("T")
R = TypeVar("R")


@cache
def _pool(size: int) -> ThreadPoolExecutor:
    """One pool per process (and size), created on the first send: other functions' cold starts pay nothing."""
    return ThreadPoolExecutor(max_workers=max(1, size), thread_name_prefix="sends")


def pooled(task: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """task(item) for every item, EMAIL_SEND_CONCURRENCY at a time, each in a copy of the caller's
    context; an error is raised once every task ended."""
    pool = _pool(config.active().EMAIL_SEND_CONCURRENCY)
    futures = [pool.submit(contextvars.copy_context().run, task, item) for item in items]
    return [future.result() for future in futures]
