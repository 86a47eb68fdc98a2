"""Every write into moto moves the ordered keys of the items it touches (local stack and tests only).

A write learns which items it may move before moto runs it (its table and primary key), and
afterwards puts each where it now sorts in the ordered keys of its table and indexes
(`devstack/ordered_keys.py`). A write whose items are unclear forgets the ordered keys instead: the
next Query builds them again, so a Query never answers from stale keys.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

from devstack.capture import marked, replace
from devstack.ordered_keys import Primary, primary, states

if TYPE_CHECKING:
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import Table

Touched: TypeAlias = list[tuple["Table", "Primary | None"]]  # items a write may move (None: unclear)

_local = threading.local()


def _key_of(table: Table, attrs: dict[str, Any]) -> tuple[Table, Primary | None]:
    """(table, primary key) of the item these attributes name, or (table, None) if unclear."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    try:
        hash_value = DynamoType(attrs[table.hash_key_attr])
        range_value = DynamoType(attrs[table.range_key_attr]) if table.range_key_attr else None
        return table, primary(hash_value, range_value)
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
        return [(table, primary(hash_key, range_key if table.range_key_attr else None))]
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
            touched = [(t, key) for t, key in touched_by(*args, **kwargs) if t in states]
        except Exception:  # noqa: BLE001 - unsure what the write touches: every ordered key is forgotten
            touched = None
        _local.depth = 1
        try:
            return method(*args, **kwargs)
        finally:
            _local.depth = 0
            if touched is None:
                states.clear()
            for table, key in touched or ():
                _moved(table, key)

    return marked(tracked, ordered_keys=True)


def _moved(table: Table, key: Primary | None) -> None:
    """Move the item's entries in the table's ordered keys (forget them all if unsure)."""
    try:
        if key is not None:
            for keys in states.get(table, {}).values():
                keys.move(table, *key)
    except Exception:  # noqa: BLE001 - unsure where the item sorts now: the table's keys are forgotten
        key = None
    if key is None:
        states.pop(table, None)


def install() -> None:
    """Make moto's writes move the ordered keys of the items they touch (`devstack.query` calls it once)."""
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.table import Table

    replace(Table, "put_item", _tracking(Table.put_item, _table_put))
    replace(Table, "delete_item", _tracking(Table.delete_item, _table_delete))
    replace(DynamoDBBackend, "update_item", _tracking(DynamoDBBackend.update_item, _backend_update))
    replace(DynamoDBBackend, "transact_write_items", _tracking(DynamoDBBackend.transact_write_items, _backend_transact))
