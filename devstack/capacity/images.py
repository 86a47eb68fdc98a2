"""Items and key schemas as moto stores them: the before and after images of a write and the
full items a read returned (a projection or a filter hides part of what DynamoDB bills)."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Any

Item = dict[str, Any]  # an item in DynamoDB's JSON


@dataclass(frozen=True)
class Index:
    """A global secondary index: its name, key attributes and the attributes its entries hold."""

    name: str
    hash_key: str
    range_key: str | None
    projected: tuple[str, ...] | None  # None: every attribute (ALL)

    def key(self, item: Item | None) -> tuple[str, ...] | None:
        """The item's key in this index as text, or None when the item is not in it."""
        names = [self.hash_key] + ([self.range_key] if self.range_key else [])
        if not item or not all(name in item for name in names):
            return None
        return tuple(_text(item[name]) for name in names)


@dataclass(frozen=True)
class Schema:
    """A table's key attributes and its global secondary indexes."""

    hash_key: str
    range_key: str | None
    indexes: tuple[Index, ...]

    def key(self, item: Item) -> Item:
        """The primary key (DynamoDB JSON) of an item or key."""
        return {name: item[name] for name in (self.hash_key, self.range_key) if name and name in item}


def _text(value: dict[str, Any]) -> str:
    """A key attribute's value as text (`{"S": "x"}` -> `x`)."""
    return str(next(iter(value.values())))


def _backend() -> Any:
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    return dynamodb_backends[DEFAULT_ACCOUNT_ID][os.environ.get("AWS_DEFAULT_REGION", "us-east-1")]


def item(table_name: str, key: Item) -> Item | None:
    """The stored item under `key` (DynamoDB JSON), or None."""
    backend = _backend()
    table = backend.tables.get(table_name)
    if table is None:
        return None
    try:
        found = table.get_item(*backend.get_keys_value(table, key))
    except Exception:  # noqa: BLE001 - an incomplete key: DynamoDB refuses the call, nothing to bill here
        return None
    return dict(found.to_json()["Attributes"]) if found else None


@functools.lru_cache(maxsize=64)
def schema(table_name: str) -> Schema | None:
    """The key schema of a table, with its global secondary indexes (read once: tables keep theirs)."""
    table = _backend().tables.get(table_name)
    if table is None:
        return None
    table_keys = [name for name in (table.hash_key_attr, table.range_key_attr) if name]
    indexes = tuple(_index(index, table_keys) for index in table.global_indexes)
    return Schema(table.hash_key_attr, table.range_key_attr, indexes)


def _index(index: Any, table_keys: list[str]) -> Index:
    keys = {entry["KeyType"]: entry["AttributeName"] for entry in index.schema}
    projection = index.projection or {}
    kind = projection.get("ProjectionType", "ALL")
    names = list(dict.fromkeys(table_keys + list(keys.values())))
    projected = None if kind == "ALL" else tuple(names + list(projection.get("NonKeyAttributes", [])))
    return Index(index.name, keys["HASH"], keys.get("RANGE"), projected)


def key_text(value: dict[str, Any]) -> str:
    """A key attribute's value as text, for the report."""
    return _text(value)
