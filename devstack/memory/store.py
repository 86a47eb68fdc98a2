"""An in-memory store for tests (the unit tier): the store port (`chalicelib/store/port.py`) over
Python dicts, with the semantics `chalicelib/store/entities.py` keeps over DynamoDB. Never chosen by
production code (a test installs it with `port.use(MemoryStore())`): it lives in devstack/, which
chalicelib may not import and deployment.zip leaves out.

What the domain sees is the same: documents are stored as JSON (so they read back as DynamoDB
gives them), a write is a transaction whose conditions are all checked before any item changes
(all or nothing), unique values compare trimmed and case-insensitive, revisions move on each write,
and a refused write is explained with the same exceptions (`Conflict`, `Missing`, `Stale`).
Not modelled: DynamoDB's item and transaction size limits, its pages, and its throttling.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace as copied
from typing import Any

from chalicelib.store.common import (
    Checked,
    Conflict,
    Missing,
    Stale,
    Tally,
    TooLarge,
    chunks,
    claimable,
    unique_changes,
    unique_key,
    watched,
)
from chalicelib.store.port import Derived, Document, EntityId, Extra, Loser, Uniques
from devstack.memory.transaction import Item, Key, Refused, Transaction, absent, at, new_item, read


class MemoryStore:
    """The store port in process memory (see the module's docstring)."""

    def __init__(self) -> None:
        self.items: dict[Key, Item] = {}
        self.counter_values: dict[str, int] = {}
        self.uniques: dict[str, int] = {}
        self.markers: set[str] = set()

    def copy(self) -> MemoryStore:
        """An independent copy (items are immutable: copying the tables is enough)."""
        other = MemoryStore()
        other.items, other.counter_values = dict(self.items), dict(self.counter_values)
        other.uniques, other.markers = dict(self.uniques), set(self.markers)
        return other

    # --- reads ---------------------------------------------------------------------------------

    def get(self, kind: str, entity_id: EntityId) -> Document | None:
        """One document (with `_rev`, and `_feed` when it names one), or None."""
        item = self.items.get((kind, int(entity_id)))
        return read(item) if item else None

    def batch_get(self, kind: str, ids: Iterable[EntityId], consistent: bool = False) -> dict[int, Document]:
        """Documents of one kind by id (missing ids absent; every read here is consistent)."""
        found = ((int(i), self.items.get((kind, int(i)))) for i in ids)
        return {i: read(item) for i, item in found if item}

    def batch_get_keys(self, keys: Iterable[tuple[str, EntityId]]) -> dict[tuple[str, int], Document]:
        """Documents of any kinds by (kind, id) (missing keys absent)."""
        found = (((kind, int(i)), self.items.get((kind, int(i)))) for kind, i in keys)
        return {key: read(item) for key, item in found if item}

    def iterate(
        self, kind: str, descending: bool = False, limit: int | None = None, between: tuple[int, int] | None = None
    ) -> Iterator[Document]:
        """Documents of a kind in id order; `between` an inclusive id range."""
        ids = sorted(
            (i for k, i in self.items if k == kind and (not between or between[0] <= i <= between[1])),
            reverse=descending,
        )
        for i in ids[:limit] if limit else ids:
            item = self.items.get((kind, i))
            if item:
                yield read(item)

    def feed(self, name: str, descending: bool = True) -> Iterator[Document]:
        """Documents (any kinds) that name the feed `name`, in id order."""
        keys = sorted(
            (key for key, item in self.items.items() if item.feed == name),
            key=lambda key: (key[1], key[0]),
            reverse=descending,
        )
        for key in keys:
            item = self.items.get(key)
            if item:
                yield read(item)

    def ids_by_email(self, kind: str, prefix: str) -> list[int]:
        """Ids of documents written with an email starting with `prefix` (case-insensitive)."""
        found = [
            (item.email, i)
            for (k, i), item in self.items.items()
            if k == kind and item.email and item.email.startswith(prefix.lower())
        ]
        return [i for _, i in sorted(found)]

    def count(self, kind: str) -> int:
        """Number of documents of a kind (its `count#<kind>` counter)."""
        return self.counter_values.get(f"count#{kind}", 0)

    def counters(self, names: Sequence[str]) -> dict[str, int]:
        """Current values of counters (0 when absent)."""
        return {name: self.counter_values.get(name, 0) for name in names}

    def versions(self, kinds: Sequence[str]) -> dict[str, int]:
        """Write versions of versioned kinds."""
        return {k: self.counter_values.get(f"version#{k}", 0) for k in kinds}

    def last_id(self, kind: str) -> int:
        """The highest id handed out for a kind (0 when none)."""
        return self.counter_values.get(f"id#{kind}", 0)

    def lookup(self, kind: str, field: str, value: Any) -> int | None:
        """Id of the entity holding a unique value (compared trimmed, case-insensitive), or None."""
        return self.uniques.get(unique_key(kind, field, value))

    def lookup_many(self, kind: str, pairs: Iterable[tuple[str, Any]]) -> dict[tuple[str, Any], int | None]:
        """`lookup` of many (field, value) pairs."""
        return {(field, value): self.lookup(kind, field, value) for field, value in pairs}

    def marked(self, marker: str) -> bool:
        """Whether a one-time marker is set."""
        return marker in self.markers

    # --- counters and markers ------------------------------------------------------------------

    def add(self, name: str, n: int = 1) -> int:
        """Add n to a counter; its new value."""
        self.counter_values[name] = self.counter_values.get(name, 0) + n
        return self.counter_values[name]

    def add_many(self, amounts: Mapping[str, int]) -> None:
        """Add to several counters (all at once)."""
        for name, n in amounts.items():
            self.add(name, n)

    def allocate_ids(self, name: str, n: int = 1) -> list[int]:
        """N consecutive new ids from the counter `id#<name>`."""
        last = self.add(f"id#{name}", n)
        return list(range(last - n + 1, last + 1))

    def claim(self, marker: str) -> bool:
        """Set a one-time marker; True when this call set it."""
        if marker in self.markers:
            return False
        self.markers.add(marker)
        return True

    # --- writes --------------------------------------------------------------------------------

    def _put_extra(self, tx: Transaction, extra: Iterable[Extra] | None, derived: Iterable[Derived] | None) -> None:
        for kind, doc in extra or ():
            tx.save((kind, int(doc["id"])), new_item(doc, None), absent)
        for kind, entity_id, derived_doc in derived or ():
            if isinstance(derived_doc, Tally):
                tx.count(derived_doc.name(kind), derived_doc.n)
            elif derived_doc is None:
                tx.drop((kind, int(entity_id)))
            elif isinstance(derived_doc, Checked):
                tx.overwrite((kind, int(entity_id)), dict(derived_doc.doc, id=int(entity_id)), at(derived_doc.rev))
            else:
                tx.overwrite((kind, int(entity_id)), dict(derived_doc, id=int(entity_id)))

    def _claim_all(self, tx: Transaction, kind: str, entity_id: int, uniques: Mapping[str, Any]) -> None:
        for field, value in uniques.items():
            tx.claim(unique_key(kind, field, value), entity_id, lambda held: held in (None, entity_id))

    def _release_all(self, tx: Transaction, kind: str, entity_id: int, uniques: Mapping[str, Any]) -> None:
        for field, value in uniques.items():
            tx.release(unique_key(kind, field, value), entity_id)

    def _create_items(
        self,
        tx: Transaction,
        kind: str,
        doc: Document,
        uniques: Uniques | None = None,
        versioned: bool = False,
        email: str | None = None,
        extra: Iterable[Extra] | None = None,
        derived: Iterable[Derived] | None = None,
    ) -> None:
        tx.save((kind, int(doc["id"])), new_item(doc, email), absent)
        self._put_extra(tx, extra, derived)
        self._claim_all(tx, kind, int(doc["id"]), claimable(uniques))
        tx.count(f"count#{kind}", 1)
        if versioned:
            tx.count(f"version#{kind}", 1)

    def _explain(
        self,
        kind: str,
        entity_id: int,
        claimed: Mapping[str, Any],
        creating: bool = False,
        rev: int | None = None,
        derived: Iterable[Derived] | None = None,
    ) -> Exception:
        """Why a refused write was refused, as `entities._commit` tells it."""
        taken = [f for f, v in claimed.items() if self.lookup(kind, f, v) not in (None, entity_id)]
        current = self.get(kind, entity_id)
        if taken:
            return Conflict(taken)
        moved = [i for k, i, r in watched(derived) if (self.get(k, i) or {}).get("_rev") != r]
        if moved:
            return Stale(moved[0])
        if creating and current is not None:
            return Conflict(["id"])
        if current is None:
            return Missing(entity_id)
        if rev is not None and current.get("_rev") != rev:
            return Stale(entity_id)
        return Refused(entity_id)

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
        items, all or nothing."""
        tx = Transaction(self)
        self._create_items(tx, kind, doc, uniques, versioned, email, extra, derived)
        try:
            tx.commit()
        except Refused as error:
            raise self._explain(kind, int(doc["id"]), claimable(uniques), True, derived=derived) from error
        doc["_rev"] = 1

    def create_many(self, entries: Sequence[Mapping[str, Any]]) -> list[Exception | None]:
        """As `entities.create_many`: runs of entries that fit one transaction are written
        together; a refused run is written entry by entry."""
        results: list[Exception | None] = []
        for chunk in chunks(entries):
            tx = Transaction(self)
            try:
                for entry in chunk:
                    self._create_items(tx, **entry)
                tx.commit()
            except (Refused, TooLarge):  # one too large is refused alone, as over DynamoDB
                results += [self._outcome(entry) for entry in chunk]
                continue
            for entry in chunk:
                entry["doc"]["_rev"] = 1
            results += [None] * len(chunk)
        return results

    def _outcome(self, entry: Mapping[str, Any]) -> Exception | None:
        try:
            self.create(**entry)
        except Exception as error:  # noqa: BLE001 - handed back to the entry's owner
            return error
        return None

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
        """Overwrite an existing document (`Missing`, `Stale`) and move its unique values
        (`Conflict`), all or nothing."""
        removed, added = unique_changes(claimable(old_uniques), claimable(new_uniques))
        entity_id, rev = int(doc["id"]), doc.get("_rev")
        tx = Transaction(self)
        tx.save((kind, entity_id), new_item(doc, email), at(rev))
        self._put_extra(tx, extra, derived)
        self._release_all(tx, kind, entity_id, removed)
        self._claim_all(tx, kind, entity_id, added)
        if versioned:
            tx.count(f"version#{kind}", 1)
        try:
            tx.commit()
        except Refused as error:
            raise self._explain(kind, entity_id, added, rev=rev, derived=derived) from error
        doc["_rev"] = (rev or 0) + 1

    def delete(
        self,
        kind: str,
        entity_id: EntityId,
        uniques: Uniques | None = None,
        versioned: bool = False,
        derived: Iterable[Derived] | None = None,
        rev: int | None = None,
    ) -> None:
        """Remove a document (with `rev`: only at that revision), uncount it and release its unique
        values, all or nothing."""
        entity_id = int(entity_id)
        tx = Transaction(self)
        tx.drop((kind, entity_id), at(rev))
        tx.count(f"count#{kind}", -1)
        self._put_extra(tx, (), derived)
        self._release_all(tx, kind, entity_id, claimable(uniques))
        if versioned:
            tx.count(f"version#{kind}", 1)
        try:
            tx.commit()
        except Refused as error:
            raise self._explain(kind, entity_id, {}, rev=rev, derived=derived) from error

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
        """Store the survivor of two entities and delete the other, both only if unchanged since read."""
        removed, added = unique_changes(claimable(uniques[0]), claimable(uniques[1]))
        loser_id, loser_rev, loser_uniques = int(loser[0]), loser[1], loser[2]
        handed = {unique_key(kind, f, v): (f, v) for f, v in claimable(loser_uniques).items()}
        passed = {f: v for f, v in added.items() if unique_key(kind, f, v) in handed}
        taken = {f: v for f, v in added.items() if f not in passed}
        kept = {unique_key(kind, f, v) for f, v in passed.items()}
        released = {f: v for key, (f, v) in handed.items() if key not in kept}
        entity_id, rev = int(doc["id"]), doc.get("_rev")
        tx = Transaction(self)
        tx.save((kind, entity_id), new_item(doc, email), lambda item: item is not None and item.rev == rev)
        tx.drop((kind, loser_id), lambda item: item is not None and item.rev == loser_rev)
        tx.count(f"count#{kind}", -1)
        self._put_extra(tx, extra, derived)
        self._release_all(tx, kind, entity_id, removed)
        self._claim_all(tx, kind, entity_id, taken)
        for field, value in passed.items():
            tx.claim(unique_key(kind, field, value), entity_id, lambda held: held == loser_id)
        self._release_all(tx, kind, loser_id, released)
        if versioned:
            tx.count(f"version#{kind}", 1)
        try:
            tx.commit()
        except Refused as error:
            held = [f for f, v in taken.items() if self.lookup(kind, f, v) not in (None, entity_id)]
            raise (Conflict(held) if held else Stale(entity_id)) from error
        doc["_rev"] = (rev or 0) + 1

    def put(self, kind: str, doc: Document) -> None:
        """Write a document nothing refers to, unconditionally (its revision moves on)."""
        tx = Transaction(self)
        tx.overwrite((kind, int(doc["id"])), doc)
        tx.commit()

    def put_if(self, kind: str, doc: Document) -> None:
        """As `entities.put_if`: only while absent (no `_rev`) or at `_rev`."""
        rev = doc.get("_rev")
        tx = Transaction(self)
        tx.overwrite((kind, int(doc["id"])), doc, absent if rev is None else at(int(rev)))
        try:
            tx.commit()
        except Refused as error:
            raise (Conflict(["id"]) if rev is None else Stale(int(doc["id"]))) from error
        doc["_rev"] = int(rev or 0) + 1

    def put_many(self, items: Sequence[tuple[str, Document]]) -> None:
        """Write documents unconditionally (each on its own, as a BatchWriteItem would)."""
        for kind, doc in items:
            self.put(kind, doc)
            doc["_rev"] = int(doc.get("_rev") or 0) + 1

    def set_feed(self, kind: str, entity_id: EntityId, name: str | None) -> None:
        """As `entities.set_feed`; a missing document raises `Missing` (DynamoDB: UpdateError)."""
        key = (kind, int(entity_id))
        item = self.items.get(key)
        if item is None:
            raise Missing(entity_id)
        self.items[key] = copied(item, feed=name or None)

    def remove(self, kind: str, entity_id: EntityId) -> None:
        """Delete a document nothing refers to."""
        self.items.pop((kind, int(entity_id)), None)
