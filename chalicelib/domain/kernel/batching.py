"""What a batch of creates does once for all its items instead of once per item.

Inside `with batching.prepared(resource, payloads, ctx):` (the batch endpoints):

* ids: the first item that needs ids of a counter (the resource's own, timeline events) reserves a
  block the size of the batch with one UpdateItem, and the items take theirs from it. Ids left in
  the block when the batch ends are never used (ids have gaps anyway: a failed create leaves one).
* unique look-ups: the unique-identifier values of every item of a deduplicating resource (contacts)
  are read up front, one BatchGetItem per 100 values. An item's look-up of a value takes that answer
  once; a later look-up of the same value (a second item with that email, a retry) reads the table
  again, so each item sees what the items before it wrote.

Outside such a block `allocate_ids` and `lookup` are the store's. The block is held in a context
variable: it belongs to the request (thread) that opened it.
"""
import contextvars
from contextlib import contextmanager
from dataclasses import dataclass, field

from chalicelib.store import entities as store

_current = contextvars.ContextVar("batch", default=None)


@dataclass
class _Batch:
    size: int
    ids: dict = field(default_factory=dict)  # counter name -> ids reserved, not handed out yet
    holders: dict = field(default_factory=dict)  # (kind, field, value key) -> id or None, each taken once


def _value_key(value):
    return str(value).strip().lower()


def _unique_values(resource, payloads, ctx):
    """The (field, value) pairs of the unique-identifier fields the payloads carry."""
    aliases = resource.hooks.lookup_fields(resource, ctx)
    if not aliases:
        return []
    return list(dict.fromkeys((alias, payload[alias]) for payload in payloads if isinstance(payload, dict)
                              for alias in aliases if isinstance(payload.get(alias), (str, int, float))
                              and str(payload[alias]).strip()))


@contextmanager
def prepared(resource, payloads, ctx):
    """Run a batch of creates of `resource` (their payloads) with ids reserved in blocks and unique
    values looked up in one go."""
    found = store.lookup_many(resource.kind, _unique_values(resource, payloads, ctx))
    batch = _Batch(len(payloads), holders={(resource.kind, f, _value_key(v)): i for (f, v), i in found.items()})
    token = _current.set(batch)
    try:
        yield
    finally:
        _current.reset(token)


def allocate_ids(name, n=1):
    """n ids of the counter `name`: from the batch's block (reserved on first use), else one UpdateItem."""
    batch = _current.get()
    if batch is None:
        return store.allocate_ids(name, n)
    block = batch.ids.setdefault(name, [])
    if len(block) < n:
        block += store.allocate_ids(name, max(n - len(block), batch.size))
    taken = block[:n]
    del block[:n]
    return taken


def lookup(kind, field_name, value):
    """Id of the entity holding a unique value, or None: the batch's answer the first time, else a GetItem."""
    batch = _current.get()
    key = (kind, field_name, _value_key(value))
    if batch is not None and key in batch.holders:
        return batch.holders.pop(key)
    return store.lookup(kind, field_name, value)
