"""Several partition keys' Queries at once: a sharded kind's page reads one Query per shard, and on
AWS each call is a few milliseconds of round trip, so the shards' first pages are fetched in parallel
(one round trip instead of one per shard, docs/storage.md "Latency"). Later pages, which a page of
the list rarely needs, are fetched lazily by whoever consumes the iterator. A read that does not
depend on the page (a list's `total`) is started `ahead`, so it shares the page's round trip."""

import contextvars
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache
from typing import TypeVar, cast

from chalicelib import config

T = TypeVar("T")
_END = object()


@cache
def _pool() -> ThreadPoolExecutor:
    """One pool per process, created on first use (a cold start that lists nothing pays nothing)."""
    return ThreadPoolExecutor(max_workers=config.active().DYNAMODB_CONNECTIONS, thread_name_prefix="fanout")


def _first(iterator: Iterator[T]) -> object:
    """The iterator's first item (running its first call), or _END."""
    return next(iterator, _END)


def started(iterators: Iterable[Iterator[T]]) -> list[Iterator[T]]:
    """The iterators, each with its first item already fetched, all at once: a lazy Query runs its
    first call on first `next`. Each call runs in a copy of the caller's context (request state);
    an error of any call is raised here, as a sequential read would raise it."""
    pending = list(iterators)
    if len(pending) < 2:
        return pending
    futures: list[Future[object]] = [
        _pool().submit(contextvars.copy_context().run, _first, iterator) for iterator in pending
    ]
    firsts = [future.result() for future in futures]
    return [_resumed(first, iterator) for first, iterator in zip(firsts, pending, strict=True)]


def _resumed(first: object, rest: Iterator[T]) -> Iterator[T]:
    """The first item fetched ahead (none at _END), then the rest of its iterator."""
    if first is _END:
        return
    yield cast(T, first)
    yield from rest


def ahead(call: Callable[[], T]) -> Callable[[], T]:
    """Start `call` now (in a copy of the caller's context) while the caller goes on; the function
    returned waits for its answer, raising its error. `call` must not wait on the pool itself (only
    calls that make no `started` or `ahead` of their own): a bounded pool of waiting callers would
    never run what they wait for."""
    return _pool().submit(contextvars.copy_context().run, call).result
