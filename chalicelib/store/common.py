"""What every store implementation shares (`store/port.py`): the exceptions the domain catches,
the `Tally` and `Checked` derived items, and the keys of a read document that are not stored in it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeAlias

from chalicelib.records import record

FEED = "_feed"  # a document's feed (FeedIndex), kept beside the document, not in it
INTERNAL = ("_rev", FEED)  # keys of a read document that are not stored in it
TRANSACTION_ITEMS = 100  # TransactWriteItems maximum: one write holds at most this many items


class Conflict(Exception):
    """A unique value is already held by another entity."""

    def __init__(self, fields: list[str]) -> None:
        super().__init__(", ".join(fields))
        self.fields = fields


class TooLarge(Exception):
    """A document over what an item may hold (`store/documents.py`): its JSON, or what it stores compressed."""

    def __init__(self, size: int, limit: int, what: str) -> None:
        super().__init__(f"The item would be {size:,} bytes ({what}), over the {limit:,} bytes an item may hold.")
        self.size, self.limit = size, limit


class Missing(Exception):
    """The entity to change no longer exists."""


class Stale(Exception):
    """The entity was written by someone else since it was read."""


@record
class Tally:
    """A derived item `(kind, 0, Tally(n))` moving the count of `kind` by n in the transaction
    (documents written as derived items of another's write, such as a contact's devices); with
    `counter`, that counter instead (an A/B test's counters taken back to 0 with the edit that restarts it)."""

    n: int
    counter: str | None = None

    def name(self, kind: str) -> str:
        """The counter this tally moves."""
        return self.counter or f"count#{kind}"


@record
class Checked:
    """A derived item `(kind, id, Checked(doc, rev))` putting another stored document, read at revision
    `rev`, only while that is still its revision (a parent's list of its children, kept in step with the
    child's write): else the whole write is `Stale` and runs again on a fresh read."""

    doc: dict[str, Any]
    rev: int


# The types of what crosses the port (`store/port.py` re-exports them), here so that an
# implementation does not import the port that loads it.
Document: TypeAlias = dict[str, Any]
EntityId: TypeAlias = int | str  # ids arrive as ints or digit strings; stores key them as ints
Uniques: TypeAlias = Mapping[str, Any]  # {field: value} unique values of a document
Extra: TypeAlias = tuple[str, Document]  # (kind, new document) written with a change
Derived: TypeAlias = tuple[str, EntityId, Document | Tally | Checked | None]  # put, count or delete with a change
Loser: TypeAlias = tuple[EntityId, int | None, Uniques | None]  # (id, revision, unique values) of a merge


def watched(derived: Iterable[Derived] | None) -> list[tuple[str, int, int]]:
    """(kind, id, revision) of the `Checked` items of a write: what a refusal is explained by, and
    what keeps it out of a batch's grouped transactions."""
    return [(kind, int(i), item.rev) for kind, i, item in derived or () if isinstance(item, Checked)]


def unique_key(kind: str, field: str, value: Any) -> str:
    """The key of a unique value: compared trimmed and case-insensitive, as DynamoDB stores it."""
    return f"{kind}#{field}#{str(value).strip().lower()}"


def claimable(uniques: Uniques | None) -> dict[str, Any]:
    """Unique values worth claiming: blanks hold nothing."""
    return {f: v for f, v in (uniques or {}).items() if v not in (None, "")}


def unique_changes(old: Uniques, new: Uniques) -> tuple[dict[str, Any], dict[str, Any]]:
    """The unique values `old` holds that `new` gives up (removed), and those `new` claims (added)."""
    removed = {f: v for f, v in old.items() if unique_key("", f, v) != unique_key("", f, new.get(f))}
    added = {f: v for f, v in new.items() if unique_key("", f, v) != unique_key("", f, old.get(f))}
    return removed, added


def _size(entry: Mapping[str, Any]) -> int:
    """Transaction items of a `create_many` entry, its counters aside."""
    return 1 + len(entry.get("extra") or ()) + len(entry.get("derived") or ()) + len(claimable(entry.get("uniques")))


def chunks(entries: Iterable[Mapping[str, Any]]) -> Iterator[list[Mapping[str, Any]]]:
    """Runs of `create_many` entries whose items fit one transaction with their (at most two) counters."""
    chunk: list[Mapping[str, Any]] = []
    size = 0
    for entry in entries:
        if chunk and size + _size(entry) > TRANSACTION_ITEMS - 2:
            yield chunk
            chunk, size = [], 0
        chunk.append(entry)
        size += _size(entry)
    if chunk:
        yield chunk
