"""The store port: what the domain may ask of storage, as a typed interface (`EntityStore`).

The domain and auth call the functions of this module (`from chalicelib.store import port as
store`; `store.get(kind, id)`...), which hand each call to the active implementation:
`store/entities.py` over DynamoDB, unless a composition root chose another with `use()`. The tests
of the unit tier use `devstack/memory/store.py` (in process, no AWS; tests only) so the domain's rules
run without moto. Both raise the exceptions of `store/common.py` (`Conflict`, `Missing`, `Stale`, re-exported
here), and both honour `Tally` and `Checked` derived items, so callers catch and build one set of types
whatever is behind.

The semantics every implementation keeps (`tests/unit/test_store.py` runs its cases on both):
a write that touches several items (a document, its count, its unique values, its `extra` and
`derived` items) happens whole or not at all; a document read carries its revision `_rev`, and a
replace of a document carrying one succeeds only while it is still the stored revision.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from chalicelib.store import id_blocks, version_cache
from chalicelib.store.common import (
    FEED,
    INTERNAL,
    TRANSACTION_ITEMS,
    Checked,
    Conflict,
    Derived,
    Document,
    EntityId,
    Extra,
    Loser,
    Missing,
    Stale,
    Tally,
    Uniques,
    watched,
)

# re-exported for callers: the exceptions, markers and the types of what crosses the port
__all__ = ["FEED", "INTERNAL", "TRANSACTION_ITEMS", "Checked", "Conflict", "Missing", "Stale", "Tally", "watched"]
__all__ += ["Derived", "Document", "EntityId", "Extra", "Loser", "Uniques"]


class EntityStore(Protocol):
    """Documents by kind and integer id, counters, unique values and one-time markers."""

    def get(self, kind: str, entity_id: EntityId) -> Document | None:
        """One document (with `_rev`, and `_feed` when it names one), or None."""

    def batch_get(self, kind: str, ids: Iterable[EntityId], consistent: bool = False) -> dict[int, Document]:
        """Documents of one kind by id (missing ids absent); `consistent`: as of every write acknowledged."""

    def batch_get_keys(self, keys: Iterable[tuple[str, EntityId]]) -> dict[tuple[str, int], Document]:
        """Documents of any kinds by (kind, id) (missing keys absent)."""

    def iterate(
        self, kind: str, descending: bool = False, limit: int | None = None, between: tuple[int, int] | None = None
    ) -> Iterator[Document]:
        """Documents of a kind in id order; `between` an inclusive id range."""

    def feed(self, name: str, descending: bool = True) -> Iterator[Document]:
        """Documents (any kinds) that name the feed `name`, in id order."""

    def ids_by_email(self, kind: str, prefix: str) -> list[int]:
        """Ids of documents written with an email starting with `prefix` (case-insensitive)."""

    def count(self, kind: str) -> int:
        """Number of documents of a kind (its `count#<kind>` counter)."""

    def allocate_ids(self, name: str, n: int = 1) -> list[int]:
        """N consecutive new ids from the counter `id#<name>` (one atomic add of n)."""

    def add(self, name: str, n: int = 1) -> int:
        """Add n to a counter; its new value."""

    def add_many(self, amounts: Mapping[str, int]) -> None:
        """Add to several counters in one write (all or none)."""

    def last_id(self, kind: str) -> int:
        """The highest id reserved for a kind (0 when none): no id handed out is higher."""

    def counters(self, names: Sequence[str]) -> dict[str, int]:
        """Current values of counters (0 when absent)."""

    def versions(self, kinds: Sequence[str]) -> dict[str, int]:
        """Write versions of versioned kinds."""

    def lookup(self, kind: str, field: str, value: Any) -> int | None:
        """Id of the entity holding a unique value (compared trimmed, case-insensitive), or None."""

    def lookup_many(self, kind: str, pairs: Iterable[tuple[str, Any]]) -> dict[tuple[str, Any], int | None]:
        """`lookup` of many (field, value) pairs."""

    def create(
        self,
        kind: str,
        doc: Document,
        uniques: Uniques | None = None,
        versioned: bool = False,
        email: str | None = None,
        extra: Iterable[Extra] | None = None,
        derived: Iterable[Derived] | None = None,
    ) -> None:
        """Store a new document, count it, claim its unique values and write `extra` and `derived`
        items, all or nothing (`Conflict` on a taken value or id); sets `doc["_rev"]`."""

    def create_many(self, entries: Sequence[Mapping[str, Any]]) -> list[Exception | None]:
        """`create` of many entries (its keyword arguments); per entry None or its exception."""

    def replace(
        self,
        kind: str,
        doc: Document,
        old_uniques: Uniques | None = None,
        new_uniques: Uniques | None = None,
        versioned: bool = False,
        email: str | None = None,
        extra: Iterable[Extra] | None = None,
        derived: Iterable[Derived] | None = None,
    ) -> None:
        """Overwrite an existing document (`Missing` if gone; `Stale` if its `_rev` moved) and move
        its unique values (`Conflict`), all or nothing; moves `doc["_rev"]` on."""

    def delete(
        self,
        kind: str,
        entity_id: EntityId,
        uniques: Uniques | None = None,
        versioned: bool = False,
        derived: Iterable[Derived] | None = None,
        rev: int | None = None,
    ) -> None:
        """Remove a document, uncount it, release its unique values (`Missing` if gone; with `rev`,
        `Stale` if its revision moved)."""

    def merge(
        self,
        kind: str,
        doc: Document,
        loser: Loser,
        uniques: tuple[Uniques | None, Uniques | None],
        versioned: bool = False,
        email: str | None = None,
        extra: Iterable[Extra] | None = None,
        derived: Iterable[Derived] | None = None,
    ) -> None:
        """Store the survivor `doc` and delete `loser`, both revision-checked (`Stale`); the
        loser's unique values the survivor claims pass to it (`Conflict` for others' values)."""

    def put(self, kind: str, doc: Document) -> None:
        """Write a document nothing refers to, unconditionally; its revision moves on."""

    def put_if(self, kind: str, doc: Document) -> None:
        """Write one document nothing refers to (no count, no unique values), only while it is absent
        (no `_rev`; else `Conflict`) or still at `doc["_rev"]` (else `Stale`); moves `_rev` on."""

    def put_many(self, items: Sequence[tuple[str, Document]]) -> None:
        """Write documents nothing refers to, unconditionally, each revision moving on from its
        `_rev`; in as few calls as fit, not as one transaction (each item is written or not)."""

    def set_feed(self, kind: str, entity_id: EntityId, name: str | None) -> None:
        """Put an existing document in the feed `name` (None: in none)."""

    def remove(self, kind: str, entity_id: EntityId) -> None:
        """Delete a document nothing refers to (no count, no unique values)."""

    def claim(self, marker: str) -> bool:
        """Set a one-time marker; True when this call set it."""

    def marked(self, marker: str) -> bool:
        """Whether a one-time marker is set."""


_active: list[EntityStore] = []


def use(implementation: EntityStore | None) -> EntityStore | None:
    """Make `implementation` the store every call goes to (None: back to DynamoDB); returns the
    one it replaces (None when that was the default). Called by composition roots and tests."""
    previous = _active[0] if _active else None
    _active[:] = [implementation] if implementation is not None else []
    return previous


def active() -> EntityStore:
    """The store calls go to: the one chosen with `use`, else `store/entities.py` (DynamoDB)."""
    if not _active:
        from chalicelib.store import entities  # imported on first use: its pynamodb models load then

        return entities
    return _active[0]


# What the domain calls: each forwards to the active store (looked up on every call, so a test
# that replaces a function of `entities` still sees its calls).


def get(kind: str, entity_id: EntityId) -> Document | None:
    """One document, or None."""
    return active().get(kind, entity_id)


def batch_get(kind: str, ids: Iterable[EntityId], consistent: bool = False) -> dict[int, Document]:
    """Documents of one kind by id (missing ids absent); `consistent`: as of every write acknowledged."""
    return active().batch_get(kind, ids, consistent)


def batch_get_keys(keys: Iterable[tuple[str, EntityId]]) -> dict[tuple[str, int], Document]:
    """Documents of any kinds by (kind, id) (missing keys absent)."""
    return active().batch_get_keys(keys)


def iterate(
    kind: str, descending: bool = False, limit: int | None = None, between: tuple[int, int] | None = None
) -> Iterator[Document]:
    """Documents of a kind in id order."""
    return active().iterate(kind, descending=descending, limit=limit, between=between)


def feed(name: str, descending: bool = True) -> Iterator[Document]:
    """Documents of a feed in id order."""
    return active().feed(name, descending=descending)


def ids_by_email(kind: str, prefix: str) -> list[int]:
    """Ids whose email starts with `prefix`."""
    return active().ids_by_email(kind, prefix)


def count(kind: str) -> int:
    """Number of documents of a kind."""
    return active().count(kind)


def allocate_ids(name: str, n: int = 1) -> list[int]:
    """N consecutive new ids: from this process's block for the counters of `config.active().ID_BLOCKS`
    (store/id_blocks.py), else from the counter."""
    return id_blocks.allocate(name, n, active().allocate_ids)


def add(name: str, n: int = 1) -> int:
    """Add n to a counter; its new value."""
    return active().add(name, n)


def add_many(amounts: Mapping[str, int]) -> None:
    """Add to several counters in one write (all or none): one call for a batch's counts."""
    active().add_many(amounts)


def last_id(kind: str) -> int:
    """The highest id reserved for a kind (blocks included): no id handed out is higher."""
    return active().last_id(kind)


def counters(names: Sequence[str]) -> dict[str, int]:
    """Current values of counters."""
    return active().counters(names)


def versions(kinds: Sequence[str]) -> dict[str, int]:
    """Write versions of versioned kinds, as this process last read them within `config.active().VERSIONS_TTL`
    seconds (store/version_cache.py), its own writes included."""
    return version_cache.read(kinds, active().versions)


def _wrote(kind: str, versioned: bool) -> None:
    """After a stored write: a versioned kind's version moved on, in this process's copy too."""
    if versioned:
        version_cache.wrote(kind)


def forget() -> None:
    """Drop what this process keeps of the store (id blocks, versions): tests restore older tables."""
    id_blocks.forget()
    version_cache.forget()


def lookup(kind: str, field: str, value: Any) -> int | None:
    """Id of the entity holding a unique value, or None."""
    return active().lookup(kind, field, value)


def lookup_many(kind: str, pairs: Iterable[tuple[str, Any]]) -> dict[tuple[str, Any], int | None]:
    """Ids of the entities holding unique values."""
    return active().lookup_many(kind, pairs)


def create(
    kind: str,
    doc: Document,
    uniques: Uniques | None = None,
    versioned: bool = False,
    email: str | None = None,
    extra: Iterable[Extra] | None = None,
    derived: Iterable[Derived] | None = None,
) -> None:
    """Store a new document with its count, unique values and items, all or nothing."""
    active().create(kind, doc, uniques=uniques, versioned=versioned, email=email, extra=extra, derived=derived)
    _wrote(kind, versioned)


def create_many(entries: Sequence[Mapping[str, Any]]) -> list[Exception | None]:
    """Store new documents in as few writes as fit; per entry None or its exception."""
    outcomes = active().create_many(entries)
    for entry, outcome in zip(entries, outcomes, strict=True):
        _wrote(entry["kind"], outcome is None and bool(entry.get("versioned")))
    return outcomes


def replace(
    kind: str,
    doc: Document,
    old_uniques: Uniques | None = None,
    new_uniques: Uniques | None = None,
    versioned: bool = False,
    email: str | None = None,
    extra: Iterable[Extra] | None = None,
    derived: Iterable[Derived] | None = None,
) -> None:
    """Overwrite an existing document (revision-checked) and move its unique values."""
    active().replace(
        kind,
        doc,
        old_uniques=old_uniques,
        new_uniques=new_uniques,
        versioned=versioned,
        email=email,
        extra=extra,
        derived=derived,
    )
    _wrote(kind, versioned)


def delete(
    kind: str,
    entity_id: EntityId,
    uniques: Uniques | None = None,
    versioned: bool = False,
    derived: Iterable[Derived] | None = None,
    rev: int | None = None,
) -> None:
    """Remove a document (with `rev`: only at that revision), uncount it and release its unique values."""
    active().delete(kind, entity_id, uniques=uniques, versioned=versioned, derived=derived, rev=rev)
    _wrote(kind, versioned)


def merge(
    kind: str,
    doc: Document,
    loser: Loser,
    uniques: tuple[Uniques | None, Uniques | None],
    versioned: bool = False,
    email: str | None = None,
    extra: Iterable[Extra] | None = None,
    derived: Iterable[Derived] | None = None,
) -> None:
    """Store the survivor of two entities and delete the other, in one write."""
    active().merge(kind, doc, loser, uniques, versioned=versioned, email=email, extra=extra, derived=derived)
    _wrote(kind, versioned)


def put(kind: str, doc: Document) -> None:
    """Write a document nothing refers to, unconditionally."""
    active().put(kind, doc)


def put_if(kind: str, doc: Document) -> None:
    """Write one document only while absent (no `_rev`) or at its `_rev`: one conditional write."""
    active().put_if(kind, doc)


def put_many(items: Sequence[tuple[str, Document]]) -> None:
    """Write documents nothing refers to, unconditionally, in as few calls as fit."""
    active().put_many(items)


def set_feed(kind: str, entity_id: EntityId, name: str | None) -> None:
    """Put an existing document in a feed (None: in none)."""
    active().set_feed(kind, entity_id, name)


def remove(kind: str, entity_id: EntityId) -> None:
    """Delete a document nothing refers to."""
    active().remove(kind, entity_id)


def claim(marker: str) -> bool:
    """Set a one-time marker; True when this call set it."""
    return active().claim(marker)


def marked(marker: str) -> bool:
    """Whether a one-time marker is set."""
    return active().marked(marker)
