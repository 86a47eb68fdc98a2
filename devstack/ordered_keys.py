"""The ordered keys kept beside moto's tables for the local stack's Query (never on Lambda).

For each table and index, the items' sort keys per partition in a SortedList, built on the first
Query of a table and moved by every write (`devstack/tracking.py`), so that `devstack/query.py`
can bisect to a page instead of sorting the table. A table or index whose key shape or values
cannot be ordered here (multi-attribute keys, binary keys, values of another type than declared)
has no ordered keys: its Query is left to moto.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeAlias

from sortedcontainers import SortedList

if TYPE_CHECKING:
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import SecondaryIndex, Table

# (hash attribute, range attribute or None, moto's sort attributes, their DynamoDB types)
Shape: TypeAlias = tuple[str, "str | None", tuple[str, ...], tuple[str, ...]]
Cast: TypeAlias = Any  # a key value as moto casts it: str, Decimal (or bytes)
Ids: TypeAlias = tuple[Cast, ...]  # an item's primary key (hash, range or None), cast
Item: TypeAlias = Any  # a moto Item (moto's annotations of a table's items say dict)
Primary: TypeAlias = tuple["DynamoType", "DynamoType | None", Ids]  # its key as DynamoTypes, and cast
Entry: TypeAlias = tuple[Any, ...]  # (*cast sort values, (hash, range) DynamoTypes)

_KEY_TYPES = ("S", "N")

# table -> index name (None: the table itself) -> its ordered keys; a table replaced by a copy
# (the test fixtures do) starts afresh
states: weakref.WeakKeyDictionary[Table, dict[str | None, Keys]] = weakref.WeakKeyDictionary()


class _Top:
    """Sorts after any value: closes a bisection on a key prefix."""

    def __lt__(self, other: object) -> bool:
        return False

    def __gt__(self, other: object) -> bool:
        return True


TOP = _Top()


def _shape(table: Table, index: SecondaryIndex | None) -> Shape | None:
    """(hash attribute, range attribute or None, moto's sort attributes, their types), or None."""
    from moto.dynamodb.models.table import GlobalSecondaryIndex

    if index is None:
        hash_attr, range_attr = table.hash_key_attr, table.range_key_attr
        hash_attrs: list[Any] = [hash_attr]
        range_attrs: list[Any] = [range_attr]
    else:
        hashes = [k["AttributeName"] for k in index.schema if k["KeyType"] == "HASH"]
        ranges = [k["AttributeName"] for k in index.schema if k["KeyType"] == "RANGE"]
        if len(hashes) != 1 or len(ranges) > 1:
            return None
        hash_attr, range_attr = hashes[0], (ranges[0] if ranges else None)
        hash_attrs = [hash_attr, table.hash_key_attr]
        if range_attr:
            range_attrs = [range_attr, table.range_key_attr]
        elif isinstance(index, GlobalSecondaryIndex) and table.range_key_attr:
            range_attrs = [table.range_key_attr, table.range_key_attr]
        else:
            range_attrs = [table.hash_key_attr, table.range_key_attr]
    sort_attrs = tuple(table._generate_attr_to_sort_by(hash_attrs, range_attrs))
    declared = {a["AttributeName"]: a["AttributeType"] for a in table.attr}
    types = tuple(declared.get(attr, "") for attr in sort_attrs)  # "": undeclared, left to moto
    if any(kind not in _KEY_TYPES for kind in types):
        return None
    return hash_attr, range_attr, sort_attrs, types


def _cast(value: DynamoType) -> Cast:
    """Moto's cast_value of a string or number (or binary) DynamoType, without its detours."""
    return Decimal(value.value) if value.type == "N" else value.value


def primary(hash_value: DynamoType, range_value: DynamoType | None) -> Primary:
    """The key of an item in the table as (hash, range) DynamoTypes and their cast values."""
    ids = (_cast(hash_value), None if range_value is None else _cast(range_value))
    return hash_value, range_value, ids


def stored(table: Table, hash_value: DynamoType, range_value: DynamoType | None) -> Item | None:
    """The item stored under these keys, or None."""
    partition = table.items.get(hash_value)
    if range_value is None or partition is None:
        return partition
    return partition.get(range_value)


def _table_items(table: Table) -> Iterator[Item]:
    """Every item of a moto table (a copy of its partitions: a write may follow)."""
    for stored in list(table.items.values()):
        if table.range_key_attr:
            yield from list(stored.values())
        else:
            yield stored


class Keys:
    """The sort keys of one table or index, ordered per partition."""

    def __init__(self, table: Table, shape: Shape) -> None:
        self.shape = shape
        self.entries: dict[Ids, tuple[Cast, Entry]] = {}  # cast primary key -> (cast hash value, entry)
        self.odd: set[Ids] = set()  # cast primary keys of items whose key values this cannot order
        unsorted: dict[Cast, list[Entry]] = {}
        for item in _table_items(table):
            placed = self._entry(table, item)
            if placed:
                unsorted.setdefault(placed[0], []).append(placed[1])
        # cast hash value -> SortedList of entries (*cast sort values, (hash, range) DynamoTypes)
        self.partitions = {value: SortedList(entries) for value, entries in unsorted.items()}

    def _entry(self, table: Table, item: Item) -> tuple[Cast, Entry] | None:
        """Record `item` and return (cast hash value, entry), or None if it is not in here."""
        _, _, sort_attrs, types = self.shape
        values = [item.attrs.get(attr) for attr in sort_attrs]
        if any(value is None for value in values):
            return None
        primary = (item.hash_key, item.range_key if table.range_key_attr else None)
        ids = tuple(None if key is None else _cast(key) for key in primary)
        if any(value.type != kind for value, kind in zip(values, types, strict=True)):
            self.odd.add(ids)
            return None
        entry = (*map(_cast, values), primary)
        self.entries[ids] = (entry[0], entry)
        return entry[0], entry

    def move(self, table: Table, hash_value: DynamoType, range_value: DynamoType | None, ids: Ids) -> None:
        """Put the item stored under these keys (if any) where it now sorts."""
        self.odd.discard(ids)
        old = self.entries.pop(ids, None)
        if old:
            partition = self.partitions[old[0]]
            partition.remove(old[1])
            if not partition:
                del self.partitions[old[0]]
        item = stored(table, hash_value, range_value)
        placed = item is not None and self._entry(table, item)
        if placed:
            self.partitions.setdefault(placed[0], SortedList()).add(placed[1])


def current_keys(table: Table, index: SecondaryIndex | None) -> Keys | None:
    """The up-to-date Keys of the table or index, or None if its shape is left to moto."""
    shape = _shape(table, index)
    if shape is None:
        return None
    state = states.setdefault(table, {})
    name = index.name if index is not None else None
    keys = state.get(name)
    if keys is None or keys.shape != shape:
        keys = state[name] = Keys(table, shape)
    return None if keys.odd else keys
