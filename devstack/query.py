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

import copy
import threading
import weakref
from decimal import Decimal

from sortedcontainers import SortedList

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

_states = weakref.WeakKeyDictionary()  # moto Table -> {index name or None: _Keys}
_local = threading.local()


class _Top:
    """Sorts after any value: closes a bisection on a key prefix."""

    def __lt__(self, other):
        return False

    def __gt__(self, other):
        return True


_TOP = _Top()


def _shape(table, index):
    """(hash attribute, range attribute or None, moto's sort attributes, their types), or None."""
    from moto.dynamodb.models.table import GlobalSecondaryIndex

    if index is None:
        hash_attr, range_attr = table.hash_key_attr, table.range_key_attr
        hash_attrs, range_attrs = [hash_attr], [range_attr]
    else:
        hashes = [k["AttributeName"] for k in index.schema if k["KeyType"] == "HASH"]
        ranges = [k["AttributeName"] for k in index.schema if k["KeyType"] == "RANGE"]
        if len(hashes) != 1 or len(ranges) > 1:
            return None
        hash_attr, range_attr = hashes[0], (ranges or [None])[0]
        hash_attrs = [hash_attr, table.hash_key_attr]
        if range_attr:
            range_attrs = [range_attr, table.range_key_attr]
        elif isinstance(index, GlobalSecondaryIndex) and table.range_key_attr:
            range_attrs = [table.range_key_attr, table.range_key_attr]
        else:
            range_attrs = [table.hash_key_attr, table.range_key_attr]
    sort_attrs = tuple(table._generate_attr_to_sort_by(hash_attrs, range_attrs))
    declared = {a["AttributeName"]: a["AttributeType"] for a in table.attr}
    types = tuple(declared.get(attr) for attr in sort_attrs)
    if any(kind not in _KEY_TYPES for kind in types):
        return None
    return hash_attr, range_attr, sort_attrs, types


def _cast(value):
    """Moto's cast_value of a string or number (or binary) DynamoType, without its detours."""
    return Decimal(value.value) if value.type == "N" else value.value


def _primary(hash_value, range_value):
    """The key of an item in the table as (hash, range) DynamoTypes and their cast values."""
    ids = (_cast(hash_value), None if range_value is None else _cast(range_value))
    return hash_value, range_value, ids


def _stored(table, hash_value, range_value):
    """The item stored under these keys, or None."""
    partition = table.items.get(hash_value)
    if range_value is None or partition is None:
        return partition
    return partition.get(range_value)


def _table_items(table):
    for stored in list(table.items.values()):
        if table.range_key_attr:
            yield from list(stored.values())
        else:
            yield stored


class _Keys:
    """The sort keys of one table or index, ordered per partition."""

    def __init__(self, table, shape):
        self.shape = shape
        self.entries = {}  # cast primary key -> (cast hash value, entry)
        self.odd = set()  # cast primary keys of items whose key values this cannot order
        unsorted = {}
        for item in _table_items(table):
            placed = self._entry(table, item)
            if placed:
                unsorted.setdefault(placed[0], []).append(placed[1])
        # cast hash value -> SortedList of entries (*cast sort values, (hash, range) DynamoTypes)
        self.partitions = {value: SortedList(entries) for value, entries in unsorted.items()}

    def _entry(self, table, item):
        """Record `item` and return (cast hash value, entry), or None if it is not in here."""
        _, _, sort_attrs, types = self.shape
        values = [item.attrs.get(attr) for attr in sort_attrs]
        if any(value is None for value in values):
            return None
        primary = (item.hash_key, item.range_key if table.range_key_attr else None)
        ids = tuple(None if key is None else _cast(key) for key in primary)
        if any(value.type != kind for value, kind in zip(values, types)):
            self.odd.add(ids)
            return None
        entry = (*map(_cast, values), primary)
        self.entries[ids] = (entry[0], entry)
        return entry[0], entry

    def move(self, table, hash_value, range_value, ids):
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


def _keys(table, index):
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


def _typed(value, kind):
    """The cast value of a DynamoType (or DynamoDB JSON) of this type, or None."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    try:
        value = DynamoType(value)
        return value.cast_value if value.type == kind else None
    except Exception:
        return None


def _successor(prefix):
    """The smallest string after every string that starts with `prefix` (None: no such string)."""
    prefix = prefix.rstrip(chr(0x10FFFF))
    return prefix[:-1] + chr(ord(prefix[-1]) + 1) if prefix else None


def _bounds(partition, head, operator, values):
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


def _condition(keys, hash_key, hash_key_conditions, range_comparison, range_objs, range_key_conditions, is_index):
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


def _start_after(keys, exclusive_start_key):
    """The ExclusiveStartKey as a sort tuple, () if none, or None if moto's rule may differ."""
    if exclusive_start_key is None:
        return ()
    if not isinstance(exclusive_start_key, dict):
        return None
    _, _, sort_attrs, types = keys.shape
    values = tuple(_typed(exclusive_start_key.get(attr) or {}, kind) for attr, kind in zip(sort_attrs, types))
    return None if None in values else values


def _candidates(partition, lo, hi, start, forward):
    """Indexes of the matching entries, then of the entries after them, from the start key."""
    size = len(partition)
    if forward:
        first = 0 if start == () else partition.bisect_left((*start, _TOP))
        return range(max(first, lo), hi), range(max(first, hi), size)
    first = size - 1 if start == () else partition.bisect_left(start) - 1
    return range(min(first, hi - 1), lo - 1, -1), range(min(first, lo - 1), -1, -1)


def fast_query(
    table,
    hash_key,
    range_comparison,
    range_objs,
    limit,
    exclusive_start_key,
    scan_index_forward,
    projection_expressions,
    index_name=None,
    consistent_read=False,
    filter_expression=None,
    hash_key_conditions=None,
    range_key_conditions=None,
    **filter_kwargs,
):
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
    keys = _keys(table, index)
    condition = keys and _condition(
        keys, hash_key, hash_key_conditions, range_comparison, range_objs, range_key_conditions, index is not None
    )
    start = condition and _start_after(keys, exclusive_start_key)
    if not condition or start is None:
        return None
    head, operator, values = condition
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
        answer = [table.get_index(index_name).project(item) for item in answer]
    if filter_expression is not None:
        answer = [item for item in answer if filter_expression.expr(item)]
    if projection_expressions:
        answer = [item.project(projection_expressions) for item in answer]
    return answer, len(results), last_evaluated_key


def _page(table, partition, matching, after, limit, index_name):
    """(items, LastEvaluatedKey) as moto's loop finds them, or None if an entry is stale."""
    results, size = [], 0
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


def _key_of(table, attrs):
    """(table, primary key) of the item these attributes name, or (table, None) if unclear."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    try:
        hash_value = DynamoType(attrs[table.hash_key_attr])
        range_value = DynamoType(attrs[table.range_key_attr]) if table.range_key_attr else None
        return table, _primary(hash_value, range_value)
    except Exception:
        return table, None


def _table_put(table, item_attrs, *args, **kwargs):
    return [_key_of(table, item_attrs)]


def _table_delete(table, hash_key, range_key, *args, **kwargs):
    try:
        return [(table, _primary(hash_key, range_key if table.range_key_attr else None))]
    except Exception:
        return [(table, None)]


def _backend_table(backend, name):
    try:
        return backend.get_table(name)
    except Exception:
        return None


def _backend_update(backend, table_name, key, *args, **kwargs):
    table = _backend_table(backend, table_name)
    return [] if table is None else [_key_of(table, key)]


def _backend_transact(backend, transact_items, *args, **kwargs):
    touched = []
    for entry in transact_items if isinstance(transact_items, list) else []:
        operation = next(iter(entry.values()), None) if isinstance(entry, dict) else None
        table = isinstance(operation, dict) and _backend_table(backend, operation.get("TableName"))
        if table:
            touched.append(_key_of(table, operation.get("Key") or operation.get("Item") or {}))
    return touched


def _tracking(method, touched_by):
    """`method`, moving the ordered keys of the items it may write (outermost call only)."""

    def tracked(*args, **kwargs):
        if getattr(_local, "depth", 0):
            return method(*args, **kwargs)
        try:
            touched = [(t, key) for t, key in touched_by(*args, **kwargs) if t in _states]
        except Exception:
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

    tracked.ordered_keys = True
    return tracked


def _moved(table, key):
    """Move the item's entries in the table's ordered keys (forget them all if unsure)."""
    try:
        for keys in _states.get(table, {}).values() if key is not None else ():
            keys.move(table, *key)
    except Exception:
        key = None
    if key is None:
        _states.pop(table, None)


def install():
    """Make moto's Table.query answer from ordered keys, kept up to date by every write (idempotent)."""
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.table import Table

    if getattr(Table.query, "ordered_keys", False):
        return
    original = Table.query

    def query(self, *args, **kwargs):
        answer = fast_query(self, *args, **kwargs)
        return original(self, *args, **kwargs) if answer is None else answer

    query.ordered_keys = True
    query.original = original
    Table.query = query
    Table.put_item = _tracking(Table.put_item, _table_put)
    Table.delete_item = _tracking(Table.delete_item, _table_delete)
    DynamoDBBackend.update_item = _tracking(DynamoDBBackend.update_item, _backend_update)
    DynamoDBBackend.transact_write_items = _tracking(DynamoDBBackend.transact_write_items, _backend_transact)
