"""Moto's Query answered from ordered keys (local stack and tests only, never on Lambda).

moto answers a Query on a table by sorting every item of the table, and on an index by walking
every item and sorting the matches: a 30-item page costs time in proportion to the table. Here a
Query bisects the ordered keys of its table or index (`devstack/ordered_keys.py`, kept up to date
by `devstack/tracking.py`) to its page and reads only the items of the page. The answer is
moto's own: same items and order, same LastEvaluatedKey (set when any further item of the
partition follows the last one, matching or not), scanned count, 1 MB limit, projection and
filter. Shapes not handled here (multi-attribute keys, QueryFilter, binary keys, odd values) are
left to moto's method.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from sortedcontainers import SortedList

from devstack import tracking
from devstack.capture import marked, replace
from devstack.ordered_keys import TOP, Cast, Item, Keys, current_keys, states, stored

if TYPE_CHECKING:
    from moto.dynamodb.models.table import SecondaryIndex, Table

Conditions: TypeAlias = Any  # moto's [(attribute, value)] key conditions, as it passes them

RESULT_SIZE_LIMIT = 1_000_000  # moto's page size limit
MAX_ITEM_SIZE = 405_000  # moto refuses to store a bigger item (LimitedSizeDict)
ALWAYS_FIT = RESULT_SIZE_LIMIT // MAX_ITEM_SIZE  # items a page holds whatever their size (2)
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
    after = partition.bisect_left((head, values[-1], TOP))
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
    keys: Keys,
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


def _start_after(keys: Keys, exclusive_start_key: Any) -> tuple[Cast, ...] | None:
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
        first = 0 if start == () else partition.bisect_left((*start, TOP))
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
        states.pop(table, None)
        return None
    results, last_evaluated_key = page
    # the stored items themselves, not moto's deep copies (8 % of a Query's CPU): the answer is only read (a
    # projection makes new items) and serialized before the call lets go of the embedded AWS (capture.serialized)
    answer = list(results)
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
) -> tuple[Keys, tuple[Cast, str | None, list[Cast]], tuple[Cast, ...]] | None:
    """The ordered keys, key condition and start of a query shape handled here, or None."""
    keys = current_keys(table, index)
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
    """(items, LastEvaluatedKey) as moto's loop finds them, or None if an entry is stale. Items are sized
    only once the page holds ALWAYS_FIT of them (sizing walks every attribute: a shard's page of 2 items,
    as a contact list page reads, never needs it)."""
    results: list[Item] = []
    size = 0  # the results' bytes, counted from the ALWAYS_FIT-th item on
    for position in matching:
        item = stored(table, *partition[position][-1])
        if item is None:
            return None
        if len(results) == limit:
            return results, table._get_last_evaluated_key(results[-1], index_name)
        if len(results) >= ALWAYS_FIT:
            size = (size or _bytes(results)) + item.size()
            if size > RESULT_SIZE_LIMIT:
                return results, table._get_last_evaluated_key(results[-1], index_name)
        results.append(item)
    if not after or not results:
        return results, None
    if len(results) == limit:
        return results, table._get_last_evaluated_key(results[-1], index_name)
    fresh, last_evaluated_key = _past_the_end(table, partition, after, size or _bytes(results), results[-1], index_name)
    return (results, last_evaluated_key) if fresh else None


def _bytes(items: list[Item]) -> int:
    """The size moto gives items, summed."""
    return sum(item.size() for item in items)


def _past_the_end(
    table: Table, partition: SortedList, after: range, size: int, last: Item, index_name: str | None
) -> tuple[bool, dict[str, Any] | None]:
    """(whether the entries read were fresh, the LastEvaluatedKey moto's loop gives a page that read every
    match when an entry after them would pass its size limit, else None)."""
    if size + MAX_ITEM_SIZE > RESULT_SIZE_LIMIT:
        for position in after:
            item = stored(table, *partition[position][-1])
            if item is None:
                return False, None
            if size + item.size() > RESULT_SIZE_LIMIT:
                return True, table._get_last_evaluated_key(last, index_name)
    return True, None


def install() -> None:
    """Make moto's Table.query answer from ordered keys, kept up to date by every write (idempotent)."""
    from moto.dynamodb.models.table import Table

    if getattr(Table.query, "ordered_keys", False):
        return
    original = Table.query

    def query(self: Table, *args: Any, **kwargs: Any) -> Any:
        answer = fast_query(self, *args, **kwargs)
        return original(self, *args, **kwargs) if answer is None else answer

    replace(Table, "query", marked(query, ordered_keys=True, original=original))
    tracking.install()
