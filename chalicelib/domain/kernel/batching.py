"""What a batch of creates does once for all its items instead of once per item.

Inside `with batching.prepared(resource, payloads, ctx):` (the batch endpoints):

* ids: the first item that needs ids of a counter (the resource's own, timeline events) reserves a
  block the size of the batch with one UpdateItem, and the items take theirs from it. Ids left in
  the block when the batch ends are never used (ids have gaps anyway: a failed create leaves one).
* unique look-ups: the unique-identifier values of every item of a deduplicating resource (contacts)
  are read up front, one BatchGetItem per 100 values. An item's look-up of a value takes that answer
  once; a later look-up of the same value (a second item with that email, a retry) reads the table
  again, so each item sees what the items before it wrote.

* read-ahead: a capability reads once for all items what each would look up (`read_ahead`: the
  suppressed addresses of erased contacts), one call per batch instead of one per item.

* grouped writes (`group=True`: the batch endpoints ask it for resources that are not cached, the
  first start for its default fields): a new document's
  write is deferred and stored with up to GROUP others in few transactions (`store.create_many`);
  its follow-up work runs once it is stored. A look-up of a unique value a deferred document holds
  stores the group first, so a later item with the same email still finds the earlier one. A
  document the store refuses is reported to the handler of its item (`item`).

Outside such a block `allocate_ids` and `lookup` are the store's. The block is held in a context
variable: it belongs to the request (thread) that opened it.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from chalicelib.domain.kernel import capability_hooks
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.types import JSON
from chalicelib.store import port as store

T = TypeVar("T")
GROUP = 96  # deferred documents stored together: whole transactions of contacts (98 items: 24 of 4, 32 of 3)
UniqueKey = tuple[str, str, str]  # (kind, field, value key) of a unique value
Refused = Callable[[Exception], object]  # told the exception a refused write comes to
_current: contextvars.ContextVar[_Batch | None] = contextvars.ContextVar("batch", default=None)


@dataclass(eq=False, repr=False)
class _Deferred:
    """A new document's write waiting for its group: the arguments of `store.create`, and what
    happens once the group is stored."""

    entry: dict[str, Any]  # the arguments of store.create
    keys: set[UniqueKey]  # (kind, field, value key) of its unique values
    stored: Callable[[], object]  # follow-up work once stored
    refused: Callable[[Exception], object]  # told the store's exception


@dataclass(eq=False, repr=False)
class _Batch:
    """The state of one batch of creates (see the module docstring)."""

    size: int
    ids: dict[str, list[int]] = field(default_factory=dict)  # counter name -> ids reserved, not handed out yet
    holders: dict[UniqueKey, int | None] = field(default_factory=dict)  # id or None, each taken once
    group: bool = False
    refused: Refused | None = None  # the running item's handler of a refused deferred write
    deferred: list[_Deferred] = field(default_factory=list)
    payloads: Sequence[JSON] = ()
    ahead: dict[str, Any] = field(default_factory=dict)  # read_ahead answers by name


def _value_key(value: JSON) -> str:
    """A unique value as its holder is looked up (trimmed, case-insensitive)."""
    return str(value).strip().lower()


def _unique_values(resource: Resource, payloads: Sequence[JSON], ctx: Context) -> list[tuple[str, JSON]]:
    """The (field, value) pairs of the unique-identifier fields the payloads carry."""
    aliases = capability_hooks.lookup_fields(resource, ctx)
    if not aliases:
        return []
    return list(
        dict.fromkeys(
            (alias, payload[alias])
            for payload in payloads
            if isinstance(payload, dict)
            for alias in aliases
            if isinstance(payload.get(alias), (str, int, float)) and str(payload[alias]).strip()
        )
    )


@contextmanager
def prepared(resource: Resource, payloads: Sequence[JSON], ctx: Context, group: bool = False) -> Iterator[None]:
    """Run a batch of creates of `resource` (their payloads) with ids reserved in blocks and unique
    values looked up in one go; with `group`, new documents are stored in groups."""
    found = store.lookup_many(resource.kind, _unique_values(resource, payloads, ctx))
    batch = _Batch(
        len(payloads),
        holders={(resource.kind, f, _value_key(v)): i for (f, v), i in found.items()},
        group=group,
        payloads=payloads,
    )
    token = _current.set(batch)
    try:
        yield
        flush()
    finally:
        _current.reset(token)


def read_ahead(name: str, read: Callable[[Sequence[JSON]], T]) -> T | None:
    """In a batch: `read(payloads)` for all its items, run once and kept by `name` for the batch (what
    each item would look up, in one call); outside a batch None (the item looks up on its own)."""
    batch = _current.get()
    if batch is None:
        return None
    if name not in batch.ahead:
        batch.ahead[name] = read(batch.payloads)
    found: T = batch.ahead[name]
    return found


@contextmanager
def item(refused: Refused) -> Iterator[None]:
    """Run one item of the batch: `refused(error)` is called if its deferred write is refused."""
    batch = _current.get()
    if batch is None:
        yield
        return
    batch.refused = refused
    try:
        yield
    finally:
        batch.refused = None


def grouping() -> bool:
    """Whether a new document's write may be deferred (see `defer`)."""
    batch = _current.get()
    return batch is not None and batch.group and batch.refused is not None


def defer(
    entry: dict[str, Any],
    uniques: Mapping[str, JSON] | None,
    stored: Callable[[], object],
    refused: Callable[[Exception], Exception],
) -> None:
    """Store a new document with the group: `entry` holds the arguments of store.create, `uniques`
    its {field: value}; `stored()` runs once it is stored, else `refused(error)` maps the store's
    exception to the one the item's handler is told."""
    batch = _current.get()
    assert batch is not None and batch.refused is not None  # called only while `grouping()`
    handler = batch.refused
    keys = {(entry["kind"], f, _value_key(v)) for f, v in (uniques or {}).items() if v not in (None, "")}
    batch.deferred.append(_Deferred(entry, keys, stored, lambda error: handler(refused(error))))
    if len(batch.deferred) >= GROUP:
        flush()


def flush() -> None:
    """Store the deferred documents, then run their follow-up work (or report their refusal)."""
    batch = _current.get()
    if batch is None or not batch.deferred:
        return
    deferred, batch.deferred = batch.deferred, []
    for waiting, error in zip(deferred, store.create_many([d.entry for d in deferred]), strict=True):
        if error is None:
            waiting.stored()
        else:
            waiting.refused(error)


def allocate_ids(name: str, n: int = 1) -> list[int]:
    """N ids of the counter `name`: from the batch's block (reserved on first use), else one UpdateItem."""
    batch = _current.get()
    if batch is None:
        return store.allocate_ids(name, n)
    block = batch.ids.setdefault(name, [])
    if len(block) < n:
        block += store.allocate_ids(name, max(n - len(block), batch.size))
    taken = block[:n]
    del block[:n]
    return taken


def lookup(kind: str, field_name: str, value: JSON) -> int | None:
    """Id of the entity holding a unique value, or None: the batch's answer the first time, else a GetItem."""
    batch = _current.get()
    key = (kind, field_name, _value_key(value))
    if batch is not None and any(key in waiting.keys for waiting in batch.deferred):
        flush()
    if batch is not None and key in batch.holders:
        return batch.holders.pop(key)
    return store.lookup(kind, field_name, value)
