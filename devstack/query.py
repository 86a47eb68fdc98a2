"""Ordered keys for the embedded DynamoDB's Query (local stack and tests only, never on Lambda).

moto answers a Query on a table by sorting every item of the table, and on an index by walking
every item and sorting the matches: a 30-item page costs time in proportion to the table. Here
each table and index keeps its items' sort keys per partition in a SortedList (built on the
first Query, then moved by every write), and a Query bisects to its page and reads only the
items of the page. The answer is moto's own: same items and order, same LastEvaluatedKey
(set when any further item of the partition follows the last one, matching or not), scanned
count, 1 MB limit, projection and filter. Shapes not handled here (multi-attribute keys,
QueryFilter, binary keys, odd values) are left to moto's method.
"""

from __future__ import annotations

import copy
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeAlias

from sortedcontainers import SortedList

from devstack.capture import marked, replace

if TYPE_CHECKING:
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import SecondaryIndex, Table

# (hash attribute, range attribute or None, moto's sort attributes, their DynamoDB types)
Shape: TypeAlias = tuple[str, "str | None", tuple[str, ...], tuple[str, ...]]
Cast: TypeAlias = Any  # a key value as moto casts it: str, Decimal (or bytes)
Ids: TypeAlias = tuple[Cast, ...]  # an item's primary key (hash, range or None), cast
Item: TypeAlias = Any  # a moto Item (moto's annotations of a table's items say dict)
Conditions: TypeAlias = Any  # moto's [(attribute, value)] key conditions, as it passes them
Primary: TypeAlias = tuple["DynamoType", "DynamoType | None", Ids]  # its key as DynamoTypes, and cast
Entry: TypeAlias = tuple[Any, ...]  # (*cast sort values, (hash, range) DynamoTypes)
Touched: TypeAlias = list[tuple["Table", "Primary | None"]]  # items a write may move (None: unclear)

RESULT_SIZE_LIMIT = 1_000_000  # moto's page size limit
MAX_ITEM_SIZE = 405_000  # moto refuses to store a bigger item (LimitedSizeDict)
_OPERATORS = {
    "=": "EQ",
    "EQ": "EQ",
    "<": "LT",
    "LT": "LT",
    "<=": "LE",
    "LE": "LE",
    ">": "GT",
    "GT": "GT",
    ">=": "GE",
    "GE": "GE",
    "BETWEEN": "BETWEEN",
    "BEGINS_WITH": "BEGINS_WITH",
}
_KEY_TYPES = ("S", "N")

_states: weakref.WeakKeyDictionary[Table, dict[str | None, _Keys]] = weakref.WeakKeyDictionary()
_local = threading.local()


class _Top:
    """Sorts after any value: closes a bisection on a key prefix."""

    def __lt__(self, other: object) -> bool:
        return False

    def __gt__(self, other: object) -> bool:
        return True


_TOP = _Top()


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


def _primary(hash_value: DynamoType, range_value: DynamoType | None) -> Primary:
    """The key of an item in the table as (hash, range) DynamoTypes and their cast values."""
    ids = (_cast(hash_value), None if range_value is None else _cast(range_value))
    return hash_value, range_value, ids


def _stored(table: Table, hash_value: DynamoType, range_value: DynamoType | None) -> Item | None:
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


class _Keys:
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
        item = _stored(table, hash_value, range_value)
        placed = item is not None and self._entry(table, item)
        if placed:
            self.partitions.setdefault(placed[0], SortedList()).add(placed[1])


def _keys(table: Table, index: SecondaryIndex | None) -> _Keys | None:
    """The up-to-date _Keys of the table or index, or None if its shape is left to moto."""
    shape = _shape(table, index)
    if shape is None:
        return None
    state = _states.setdefault(table, {})
    name = index.name if index is not None else None
    keys = state.get(name)
    if keys is None or keys.shape != shape:
        keys = state[name] = _Keys(table, shape)
    return None if keys.odd else keys


def _typed(value: Any, kind: str) -> Cast:
    """The cast value of a DynamoType (or DynamoDB JSON) of this type, or None."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    try:
        typed = DynamoType(value)
        return typed.cast_value if typed.type == kind else None
    except Exception:  # noqa: BLE001 - a value moto's types cannot read: the query is left to moto
        return None


def _successor(prefix: str) -> str | None:
    """The smallest string after every string that starts with `prefix` (None: no such string)."""
    stem = prefix.rstrip(chr(0x10FFFF))
    return stem[:-1] + chr(ord(stem[-1]) + 1) if stem else None


def _bounds(partition: SortedList, head: Cast, operator: str | None, values: Sequence[Cast]) -> tuple[int, int]:
    """[lo, hi) of the partition's entries whose range value satisfies the condition."""
    size = len(partition)
    if operator is None:
        return 0, size
    low = partition.bisect_left((head, values[0]))
    after = partition.bisect_left((head, values[-1], _TOP))
    if operator == "EQ":
        return low, after
    if operator in ("LT", "LE"):
        return 0, low if operator == "LT" else after
    if operator in ("GT", "GE"):
        return (after if operator == "GT" else low), size
    if operator == "BETWEEN":
        return low, max(low, after)
    following = _successor(values[0])
    return low, size if following is None else partition.bisect_left((head, following))


def _condition(
    keys: _Keys,
    hash_key: Any,
    hash_key_conditions: Conditions,
    range_comparison: str | None,
    range_objs: Sequence[Any],
    range_key_conditions: Conditions,
    is_index: bool,
) -> tuple[Cast, str | None, list[Cast]] | None:
    """(cast hash value, operator, cast range values) of a query shape handled here, or None."""
    hash_attr, range_attr, _, types = keys.shape
    if is_index:
        if len(hash_key_conditions or []) != 1 or hash_key_conditions[0][0] != hash_attr:
            return None
        hash_key = hash_key_conditions[0][1]
    head = None if hash_key is None else _typed(hash_key, types[0])
    if head is None or len(range_key_conditions or []) > 1:
        return None
    if not range_comparison:
        return None if range_key_conditions else (head, None, [])
    operator = _OPERATORS.get(range_comparison)
    if (
        range_attr is None
        or operator is None
        or (range_key_conditions and range_key_conditions[0][0] != range_attr)
        or len(range_objs) != (2 if operator == "BETWEEN" else 1)
        or (operator == "BEGINS_WITH" and types[1] != "S")
    ):
        return None
    values = [_typed(value, types[1]) for value in range_objs]
    return None if None in values else (head, operator, values)


def _start_after(keys: _Keys, exclusive_start_key: Any) -> tuple[Cast, ...] | None:
    """The ExclusiveStartKey as a sort tuple, () if none, or None if moto's rule may differ."""
    if exclusive_start_key is None:
        return ()
    if not isinstance(exclusive_start_key, dict):
        return None
    _, _, sort_attrs, types = keys.shape
    values = tuple(
        _typed(exclusive_start_key.get(attr) or {}, kind) for attr, kind in zip(sort_attrs, types, strict=True)
    )
    return None if None in values else values


def _candidates(partition: SortedList, lo: int, hi: int, start: tuple[Cast, ...], forward: bool) -> tuple[range, range]:
    """Indexes of the matching entries, then of the entries after them, from the start key."""
    size = len(partition)
    if forward:
        first = 0 if start == () else partition.bisect_left((*start, _TOP))
        return range(max(first, lo), hi), range(max(first, hi), size)
    first = size - 1 if start == () else partition.bisect_left(start) - 1
    return range(min(first, hi - 1), lo - 1, -1), range(min(first, lo - 1), -1, -1)


def fast_query(
    table: Table,
    hash_key: Any,
    range_comparison: str | None,
    range_objs: Sequence[Any],
    limit: int | None,
    exclusive_start_key: Any,
    scan_index_forward: bool,
    projection_expressions: Any,
    index_name: str | None = None,
    consistent_read: bool = False,
    filter_expression: Any = None,
    hash_key_conditions: Conditions = None,
    range_key_conditions: Conditions = None,
    **filter_kwargs: Any,
) -> tuple[list[Item], int, dict[str, Any] | None] | None:
    """Moto's answer to this Table.query from the ordered keys, or None for a shape left to moto."""
    if (
        filter_kwargs
        or not isinstance(scan_index_forward, bool)
        or (limit is not None and (type(limit) is not int or limit < 1))
    ):
        return None
    index = None
    if index_name:
        index = {i.name: i for i in table.all_indexes()}.get(index_name)
        if index is None or (consistent_read and index in table.global_indexes):
            return None
    plan = _plan(
        table,
        index,
        exclusive_start_key,
        hash_key,
        hash_key_conditions,
        range_comparison,
        range_objs,
        range_key_conditions,
    )
    if plan is None:
        return None
    keys, (head, operator, values), start = plan
    partition = keys.partitions.get(head) or SortedList()
    lo, hi = _bounds(partition, head, operator, values)
    matching, after = _candidates(partition, lo, hi, start, scan_index_forward)
    page = _page(table, partition, matching, after, limit, index_name)
    if page is None:
        _states.pop(table, None)
        return None
    results, last_evaluated_key = page
    answer = copy.deepcopy(results)
    if index is not None:
        answer = [table.get_index(index.name).project(item) for item in answer]
    if filter_expression is not None:
        answer = [item for item in answer if filter_expression.expr(item)]
    if projection_expressions:
        answer = [item.project(projection_expressions) for item in answer]
    return answer, len(results), last_evaluated_key


def _plan(
    table: Table,
    index: SecondaryIndex | None,
    exclusive_start_key: Any,
    hash_key: Any,
    hash_key_conditions: Conditions,
    range_comparison: str | None,
    range_objs: Sequence[Any],
    range_key_conditions: Conditions,
) -> tuple[_Keys, tuple[Cast, str | None, list[Cast]], tuple[Cast, ...]] | None:
    """The ordered keys, key condition and start of a query shape handled here, or None."""
    keys = _keys(table, index)
    if keys is None:
        return None
    condition = _condition(
        keys, hash_key, hash_key_conditions, range_comparison, range_objs, range_key_conditions, index is not None
    )
    start = _start_after(keys, exclusive_start_key) if condition else None
    if not condition or start is None:
        return None
    return keys, condition, start


def _page(
    table: Table, partition: SortedList, matching: range, after: range, limit: int | None, index_name: str | None
) -> tuple[list[Item], dict[str, Any] | None] | None:
    """(items, LastEvaluatedKey) as moto's loop finds them, or None if an entry is stale."""
    results: list[Item] = []
    size = 0
    for position in matching:
        item = _stored(table, *partition[position][-1])
        if item is None:
            return None
        item_size = item.size()
        if len(results) == limit or size + item_size > RESULT_SIZE_LIMIT:
            return results, table._get_last_evaluated_key(results[-1], index_name)
        results.append(item)
        size += item_size
    if not after or not results:
        return results, None
    if len(results) == limit:
        return results, table._get_last_evaluated_key(results[-1], index_name)
    if size + MAX_ITEM_SIZE > RESULT_SIZE_LIMIT:
        for position in after:
            item = _stored(table, *partition[position][-1])
            if item is None:
                return None
            if size + item.size() > RESULT_SIZE_LIMIT:
                return results, table._get_last_evaluated_key(results[-1], index_name)
    return results, None


def _key_of(table: Table, attrs: dict[str, Any]) -> tuple[Table, Primary | None]:
    """(table, primary key) of the item these attributes name, or (table, None) if unclear."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    try:
        hash_value = DynamoType(attrs[table.hash_key_attr])
        range_value = DynamoType(attrs[table.range_key_attr]) if table.range_key_attr else None
        return table, _primary(hash_value, range_value)
    except Exception:  # noqa: BLE001 - attributes moto will refuse: the table's keys are forgotten
        return table, None


def _table_put(table: Table, item_attrs: dict[str, Any], *args: Any, **kwargs: Any) -> Touched:
    """The item a Table.put_item may move."""
    return [_key_of(table, item_attrs)]


def _table_delete(
    table: Table, hash_key: DynamoType, range_key: DynamoType | None, *args: Any, **kwargs: Any
) -> Touched:
    """The item a Table.delete_item may move."""
    try:
        return [(table, _primary(hash_key, range_key if table.range_key_attr else None))]
    except Exception:  # noqa: BLE001 - keys moto will refuse: the table's keys are forgotten
        return [(table, None)]


def _backend_table(backend: DynamoDBBackend, name: Any) -> Table | None:
    """The backend's table of that name, or None (moto will answer the error)."""
    try:
        return backend.get_table(name)
    except Exception:  # noqa: BLE001 - moto's own call raises the error the client gets
        return None


def _backend_update(
    backend: DynamoDBBackend, table_name: str, key: dict[str, Any], *args: Any, **kwargs: Any
) -> Touched:
    """The item an UpdateItem may move."""
    table = _backend_table(backend, table_name)
    return [] if table is None else [_key_of(table, key)]


def _backend_transact(backend: DynamoDBBackend, transact_items: Any, *args: Any, **kwargs: Any) -> Touched:
    """The items a TransactWriteItems may move."""
    touched: Touched = []
    for entry in transact_items if isinstance(transact_items, list) else []:
        operation = next(iter(entry.values()), None) if isinstance(entry, dict) else None
        table = isinstance(operation, dict) and _backend_table(backend, operation.get("TableName"))
        if table and isinstance(operation, dict):
            touched.append(_key_of(table, operation.get("Key") or operation.get("Item") or {}))
    return touched


def _tracking(method: Callable[..., Any], touched_by: Callable[..., Touched]) -> Callable[..., Any]:
    """`method`, moving the ordered keys of the items it may write (outermost call only)."""

    def tracked(*args: Any, **kwargs: Any) -> Any:
        if getattr(_local, "depth", 0):
            return method(*args, **kwargs)
        touched: Touched | None
        try:
            touched = [(t, key) for t, key in touched_by(*args, **kwargs) if t in _states]
        except Exception:  # noqa: BLE001 - unsure what the write touches: every ordered key is forgotten
            touched = None
        _local.depth = 1
        try:
            return method(*args, **kwargs)
        finally:
            _local.depth = 0
            if touched is None:
                _states.clear()
            for table, key in touched or ():
                _moved(table, key)

    return marked(tracked, ordered_keys=True)


def _moved(table: Table, key: Primary | None) -> None:
    """Move the item's entries in the table's ordered keys (forget them all if unsure)."""
    try:
        if key is not None:
            for keys in _states.get(table, {}).values():
                keys.move(table, *key)
    except Exception:  # noqa: BLE001 - unsure where the item sorts now: the table's keys are forgotten
        key = None
    if key is None:
        _states.pop(table, None)


def install() -> None:
    """Make moto's Table.query answer from ordered keys, kept up to date by every write (idempotent)."""
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.table import Table

    if getattr(Table.query, "ordered_keys", False):
        return
    original = Table.query

    def query(self: Table, *args: Any, **kwargs: Any) -> Any:
        answer = fast_query(self, *args, **kwargs)
        return original(self, *args, **kwargs) if answer is None else answer

    replace(Table, "query", marked(query, ordered_keys=True, original=original))
    replace(Table, "put_item", _tracking(Table.put_item, _table_put))
    replace(Table, "delete_item", _tracking(Table.delete_item, _table_delete))
    replace(DynamoDBBackend, "update_item", _tracking(DynamoDBBackend.update_item, _backend_update))
    replace(DynamoDBBackend, "transact_write_items", _tracking(DynamoDBBackend.transact_write_items, _backend_transact))
