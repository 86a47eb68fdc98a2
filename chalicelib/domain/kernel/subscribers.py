"""The subscriber table: how a capability reacts to another's writes without importing it.

The kernel's standard operations store a document; what that write means to the other
capabilities (point triggers crossed, journeys advanced, segment membership, webhook events,
follow-up work) is done by the subscribers `domain/wiring.py` lists in one table, installed by
`bootstrap.assemble()` from each composition root. The phases of a write, in order:

* `write`, per kind: inside the write, before it is stored. handler(change) -> (items, events):
  derived (kind, id, document or None) items stored in the same transaction and further timeline
  events. Handlers run in table order, see the events of the change and may change `change.doc`.
* `announce`, for every kind: once the events are final. handler(change) -> items for the same
  transaction (the webhook outbox).
* `stored`, per kind: after the commit. handler(change) queues follow-up work.
* `committed`, for every kind: once per transaction, handler(derived) with every item it stored.

Each entry is a `capability.module:name` path under `chalicelib.domain`, imported when its phase
first runs: a process loads the capabilities whose subscribers its writes reach, not every capability
(a worker's cold start, docs/deploy.md "Cold start per function").

A contact deleted for good is erased in the background (`domain/contacts/erasure.py`): `erase` lists
the named steps of that job in order, each capability's own, handler(job) with the job item (the
deleted contact in `contact`); the job records the steps done, so a step must be harmless to run twice.

Besides writes, the table names the point-trigger actions one capability runs for another
(`actions`: type -> handler(doc, item, ctx) -> bool) and the search commands a capability adds
to another's resource (`commands`: (kind, name) -> Command).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias, cast

from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.types import Derived, Doc, Events, Items
from chalicelib.records import record


@dataclass(eq=False, repr=False)
class Change:
    """One document write: `doc` None deletes `existing`; `existing` None creates `doc`."""

    resource: Resource
    doc: Doc | None
    existing: Doc | None
    ctx: Context
    events: Events = field(default_factory=list)


@record
class Command:
    """A search command: match(doc, value, ctx) -> bool, and candidates(value, ctx) -> ids to
    filter instead of reading the whole kind (None when it has none)."""

    match: Callable[[Doc, str, Context], bool | None]
    candidates: Callable[[str, Context], Iterable[int] | None] | None = None


WriteHandler: TypeAlias = Callable[[Change], tuple[Items, Events]]  # (derived items, further events)
AnnounceHandler: TypeAlias = Callable[[Change], Iterable[Derived]]  # items for the change's transaction
StoredHandler: TypeAlias = Callable[[Change], object]  # queues follow-up work; what it returns is ignored
CommittedHandler: TypeAlias = Callable[[Sequence[Derived]], object]  # every item one transaction stored
EraseStep: TypeAlias = Callable[[Doc], object]  # one step of a contact's erasure, given the job item
TriggerAction: TypeAlias = Callable[[Doc, Doc, Context], bool]  # a point trigger's event (item) run on a contact


Path: TypeAlias = str  # `capability.module:name` of a subscriber under chalicelib.domain, imported on first use


@record
class Table:
    """What each capability subscribes to, as paths (see the module docstring)."""

    write: Mapping[str, Sequence[Path]] = field(default_factory=dict)  # WriteHandler per kind
    announce: Sequence[Path] = ()  # AnnounceHandler
    stored: Mapping[str, Sequence[Path]] = field(default_factory=dict)  # StoredHandler per kind
    committed: Sequence[Path] = ()  # CommittedHandler
    erase: Sequence[tuple[str, Path]] = ()  # named EraseStep
    actions: Mapping[str, Path] = field(default_factory=dict)  # TriggerAction per event type
    commands: Mapping[tuple[str, str], Path] = field(default_factory=dict)  # Command per (kind, name)


def resolved(path: Path) -> Any:
    """The object at `capability.module:name` under chalicelib.domain, its module imported on first use
    (then a lookup in `sys.modules`)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(f"chalicelib.domain.{module}"), name)


class NotInstalled(LookupError):
    """A write consulted the table before a composition root called `bootstrap.assemble()`."""


_installed: list[Table] = []


def install(table: Table) -> None:
    """Make `table` the one the standard operations consult."""
    _installed[:] = [table]


def _table() -> Table:
    """The installed table; a write without one would skip every reaction silently, so it fails."""
    if not _installed:
        raise NotInstalled("no subscriber table: call chalicelib.bootstrap.assemble() first")
    return _installed[0]


def write(change: Change) -> tuple[Items, Events]:
    """(derived items, further events) of the `write` subscribers of the change's kind."""
    items: Items = []
    events: Events = []
    for path in _table().write.get(change.resource.kind, ()):
        more_items, more_events = cast(WriteHandler, resolved(path))(change)
        items += more_items
        events += more_events
    return items, events


def announce(change: Change) -> Items:
    """Items announcing the change (webhook outbox), stored in its transaction."""
    handlers = [cast(AnnounceHandler, resolved(path)) for path in _table().announce]
    return [item for handler in handlers for item in handler(change)]


def stored(change: Change) -> None:
    """After the commit: the `stored` subscribers of the change's kind."""
    for path in _table().stored.get(change.resource.kind, ()):
        cast(StoredHandler, resolved(path))(change)


def committed(derived: Sequence[Derived]) -> None:
    """Once per transaction, after its commit: every item it stored."""
    for path in _table().committed:
        cast(CommittedHandler, resolved(path))(derived)


def erase_steps() -> Sequence[tuple[str, EraseStep]]:
    """The named steps of a contact's erasure, in order."""
    return [(name, cast(EraseStep, resolved(path))) for name, path in _table().erase]


def action(item_type: str) -> TriggerAction | None:
    """The handler another capability registered for a point-trigger event type, or None."""
    path = _table().actions.get(item_type)
    return cast(TriggerAction, resolved(path)) if path else None


def command(kind: str, name: str) -> Command | None:
    """The search command another capability added to `kind`, or None."""
    path = _table().commands.get((kind, name))
    return cast(Command, resolved(path)) if path else None
