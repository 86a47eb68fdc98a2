"""The in-memory store's items and its all-or-nothing write (`devstack/memory/store.py`): an item
as the store keeps it (the document as JSON, its revision, indexed email and feed), and a
`Transaction` that checks every condition before changing anything, as DynamoDB's
TransactWriteItems does (`Refused` for its TransactionCanceledException)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from chalicelib.store import documents
from chalicelib.store.common import FEED, INTERNAL
from chalicelib.store.port import Document

Key = tuple[str, int]


class Refused(Exception):
    """A condition of a transaction failed (DynamoDB's TransactionCanceledException)."""


@dataclass(frozen=True)
class Item:
    """An entity item: its document as stored (JSON), revision, indexed email and feed."""

    doc: str
    rev: int
    email: str | None = None
    feed: str | None = None


def stored(doc: Mapping[str, Any]) -> str:
    """The document's JSON, once it is known to fit an item as DynamoDB's store holds it (else TooLarge)."""
    documents.packed(doc)
    return json.dumps({k: v for k, v in doc.items() if k not in INTERNAL})


def read(item: Item) -> Document:
    """The document an item holds, with its `_rev` (and `_feed` when it names one)."""
    doc: Document = json.loads(item.doc)
    doc["_rev"] = item.rev
    if item.feed:
        doc[FEED] = item.feed
    return doc


def new_item(doc: Mapping[str, Any], email: str | None) -> Item:
    """The item of a document written now: its revision one past the one it was read at."""
    return Item(stored(doc), int(doc.get("_rev") or 0) + 1, email.lower() if email else None, doc.get(FEED))


class Tables(Protocol):
    """What a transaction writes: the store's items, unique keys and counters (`MemoryStore`)."""

    items: dict[Key, Item]
    uniques: dict[str, int]

    def add(self, name: str, n: int = 1) -> int:
        """Add n to a counter; its new value."""


class Transaction:
    """Writes collected with their conditions; `commit` checks every condition first, then applies
    every write, or raises `Refused` having changed nothing."""

    def __init__(self, store: Tables) -> None:
        self.store = store
        self.checks: list[Callable[[], bool]] = []
        self.writes: list[Callable[[], None]] = []
        self.counts: dict[str, int] = {}

    def save(self, key: Key, item: Item, condition: Callable[[Item | None], bool] | None = None) -> None:
        """Put an item (when `condition` holds for the stored one)."""
        self._check_item(key, condition)
        self.writes.append(lambda: self.store.items.__setitem__(key, item))

    def overwrite(self, key: Key, doc: Document, condition: Callable[[Item | None], bool] | None = None) -> None:
        """Set a document whatever was stored (or when `condition` holds for it), its revision moving
        on (`item_writes.overwrite`)."""
        self._check_item(key, condition)

        def write() -> None:
            old = self.store.items.get(key)
            rev = (old.rev if old else 0) + 1
            feed = doc.get(FEED) or (old.feed if old else None)
            self.store.items[key] = Item(stored(doc), rev, old.email if old else None, feed)

        self.writes.append(write)

    def drop(self, key: Key, condition: Callable[[Item | None], bool] | None = None) -> None:
        """Delete an item (when `condition` holds for the stored one)."""
        self._check_item(key, condition)
        self.writes.append(lambda: self._forget(self.store.items, key))

    def claim(self, key: str, holder: int, condition: Callable[[int | None], bool]) -> None:
        """Set a unique key's holder, when `condition` holds for the current one."""
        self.checks.append(lambda: condition(self.store.uniques.get(key)))
        self.writes.append(lambda: self.store.uniques.__setitem__(key, holder))

    def release(self, key: str, holder: int) -> None:
        """Delete a unique key held by `holder`."""
        self.checks.append(lambda: self.store.uniques.get(key) == holder)
        self.writes.append(lambda: self._forget(self.store.uniques, key))

    def count(self, name: str, n: int) -> None:
        """Add n to a counter with the transaction."""
        self.counts[name] = self.counts.get(name, 0) + n

    @staticmethod
    def _forget(table: dict[Any, Any], key: Any) -> None:
        table.pop(key, None)

    def _check_item(self, key: Key, condition: Callable[[Item | None], bool] | None) -> None:
        if condition is not None:
            self.checks.append(lambda: condition(self.store.items.get(key)))

    def commit(self) -> None:
        """All the writes, or none (`Refused`)."""
        if not all(check() for check in self.checks):
            raise Refused()
        for write in self.writes:
            write()
        for name, n in self.counts.items():
            if n:
                self.store.add(name, n)


def absent(item: Item | None) -> bool:
    """The condition of a create: no item yet."""
    return item is None


def present(item: Item | None) -> bool:
    """The condition of a write to an existing item."""
    return item is not None


def at(rev: int | None) -> Callable[[Item | None], bool]:
    """The condition `rev = :read` (any revision when none was read) on an existing item."""
    return lambda item: item is not None and (rev is None or item.rev == rev)
