"""The unit meter: botocore's events on every DynamoDB client (PynamoDB's sessions and boto3's
alike) bill each call as on-demand DynamoDB would, per item and per partition key, into the
`Tally` being measured; SQS and SES calls are counted for the cost model.

Hooks: `before-parameter-build` keeps the call's parameters, `before-call` reads the before
images of the items a write touches from moto (the call has not run yet), `after-call` reads the
after images and bills: reads per item (GetItem, BatchGetItem, TransactGetItems) or per call
(Query, Scan: the items returned at their full stored size, plus the items a filter dropped at
their average size); writes per item, the larger of the before and after image, doubled in a
transaction; a write refused by its condition still costs its item's units (a canceled
transaction every item's) and writes nothing to an index, other errors cost nothing; an index
entry costs a write when it appears or leaves, two when its key moves (attributed to the index's
partition key).
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from devstack.capacity import images, units

READ = "read"
WRITE = "write"
ITEM = "item"
KEY = "key"
Write = tuple[str, images.Item, images.Item | None, int]  # table, key, the item a put writes, factor
# Refusals DynamoDB bills (the condition was evaluated on the stored item); a validation error or a
# throttled call consumes nothing.
BILLED_REFUSALS = ("ConditionalCheckFailedException", "TransactionCanceledException")


@dataclass
class Tally:
    """Units billed while measuring: per (scope, name, read/write), totals, calls and services.

    `cached` names the items read at most once per interval per container (patterns of their
    names, `*` any text: `counters[version#*]`): their reads go to `cached_units` and
    `cached_reads` instead."""

    cached: tuple[str, ...] = ()
    units: defaultdict[tuple[str, str, str], float] = field(default_factory=lambda: defaultdict(float))
    totals: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    calls: Counter[str] = field(default_factory=Counter)
    role_calls: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    services: Counter[str] = field(default_factory=Counter)
    cached_units: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    cached_reads: Counter[str] = field(default_factory=Counter)

    def bill(self, kind: str, amount: float, item: str | None, key: str) -> None:
        """Add `amount` read or write units spent on an item (None: a Query's items) and a partition key."""
        if kind == READ and item and any(matches(item, pattern) for pattern in self.cached):
            self.cached_units[item] += amount
            self.cached_reads[item] += 1
            return
        self.totals[kind] += amount
        self.units[(KEY, key, kind)] += amount
        if item:
            self.units[(ITEM, item, kind)] += amount


def matches(name: str, pattern: str) -> bool:
    """Whether an item's name matches a pattern where `*` is any text (brackets are literal)."""
    return re.fullmatch(".*".join(re.escape(part) for part in pattern.split("*")), name) is not None


_current: list[Tally] = []
_prefix: list[str] = [""]
_role: list[str] = ["api"]


@contextlib.contextmanager
def acting(role: str) -> Iterator[None]:
    """The DynamoDB calls made inside are the `role` function's (api, authorizer, worker)."""
    _role.append(role)
    try:
        yield
    finally:
        _role.pop()


@contextlib.contextmanager
def measuring(tally: Tally) -> Iterator[Tally]:
    """Bill the calls made inside into `tally`."""
    _current.append(tally)
    try:
        yield tally
    finally:
        _current.pop()


def install(table_prefix: str) -> None:
    """Hook every botocore session created from now on (call before any client exists);
    `table_prefix` is left out of the names reported."""
    import botocore.session

    _prefix[0] = table_prefix
    original = botocore.session.get_session
    if getattr(original, "_capacity", False):
        return

    def hooked(env_vars: Any = None) -> Any:
        session = original(env_vars)
        session.register("before-parameter-build.dynamodb.*", _keep_params)
        session.register("before-call.dynamodb.*", _before_call)
        session.register("after-call.dynamodb.*", _after_call)
        session.register("after-call.sqs.*", _count_service)
        session.register("after-call.ses.*", _count_service)
        session.register("after-call.sesv2.*", _count_service)
        session.register("after-call.sns.*", _count_service)  # text messages (SMS broadcasts)
        return session

    hooked._capacity = True  # type: ignore[attr-defined]
    botocore.session.get_session = hooked


def _keep_params(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
    if _current:
        context["capacity_params"] = params


def _before_call(model: Any, context: dict[str, Any], **_: Any) -> None:
    params = context.get("capacity_params")
    if _current and params is not None:
        context["capacity_before"] = [images.item(table, key) for table, key, _, _ in writes(model.name, params)]


def _count_service(model: Any, **_: Any) -> None:
    if _current:
        _current[-1].services[f"{model.service_model.service_name}:{model.name}"] += 1


def _after_call(model: Any, context: dict[str, Any], http_response: Any = None, parsed: Any = None, **_: Any) -> None:
    params = context.pop("capacity_params", None)
    if not _current or params is None:
        return
    tally = _current[-1]
    tally.calls[model.name] += 1
    tally.role_calls[_role[-1]] += 1
    failed = int(getattr(http_response, "status_code", 200) or 200) >= 400
    tally.refused[model.name] += failed
    befores = context.pop("capacity_before", [])
    if failed and (parsed or {}).get("Error", {}).get("Code") not in BILLED_REFUSALS:
        return
    for (table, key, put, factor), before in zip(writes(model.name, params), befores, strict=True):
        _bill_write(tally, table, key, before, put, factor, failed)
    _bill_reads(tally, model.name, params, parsed or {})


def writes(operation: str, params: dict[str, Any]) -> list[Write]:
    """The items a write call touches: (table, key, the item it puts or None, unit factor)."""
    if operation in ("PutItem", "UpdateItem", "DeleteItem"):
        return [_write(params, 1)]
    if operation == "BatchWriteItem":
        return [
            _write({"TableName": table, **next(iter(request.values()))}, 1)
            for table, requests in params["RequestItems"].items()
            for request in requests
        ]
    if operation == "TransactWriteItems":
        return [_write(next(iter(action.values())), units.TRANSACTION_FACTOR) for action in params["TransactItems"]]
    return []


def _write(action: dict[str, Any], factor: int) -> Write:
    table = action["TableName"]
    put = action.get("Item")
    schema = images.schema(table)
    key = action.get("Key") or (schema.key(put) if schema and put else {})
    return table, key, put, factor


def _bill_write(
    tally: Tally,
    table: str,
    key: images.Item,
    before: images.Item | None,
    put: images.Item | None,
    factor: int,
    failed: bool,
) -> None:
    after = before if failed else images.item(table, key)
    size = max(units.item_size(before), units.item_size(after), units.item_size(put) if failed else 0)
    tally.bill(WRITE, units.write_units(size) * factor, _item_name(table, key), _key_name(table, key))
    schema = images.schema(table)
    if failed or schema is None:
        return
    for index in schema.indexes:
        for image, index_key in _index_entries(index, before, after):
            amount = units.write_units(units.index_entry_size(image, list(index.projected or image)))
            tally.bill(WRITE, amount, None, f"{_table(table)}.{index.name}[{index_key[0]}]")


def _index_entries(
    index: images.Index, before: images.Item | None, after: images.Item | None
) -> list[tuple[images.Item, tuple[str, ...]]]:
    """The index entries a write puts or deletes: the old one leaving and the new one appearing when
    the index key moves; the entry rewritten when it holds every attribute and the item changed."""
    old, new = index.key(before), index.key(after)
    if old != new:
        return [(image, key) for image, key in ((before, old), (after, new)) if image is not None and key is not None]
    if after is not None and new is not None and index.projected is None and before != after:
        return [(after, new)]
    return []


def _bill_reads(tally: Tally, operation: str, params: dict[str, Any], parsed: dict[str, Any]) -> None:
    if operation == "GetItem":
        _bill_get(tally, params["TableName"], params["Key"], bool(params.get("ConsistentRead")), 1)
    elif operation == "BatchGetItem":
        for table, spec in params["RequestItems"].items():
            for key in spec["Keys"]:
                _bill_get(tally, table, key, bool(spec.get("ConsistentRead")), 1)
    elif operation == "TransactGetItems":
        for action in params["TransactItems"]:
            get = action["Get"]
            _bill_get(tally, get["TableName"], get["Key"], True, units.TRANSACTION_FACTOR)
    elif operation in ("Query", "Scan"):
        _bill_query(tally, params, parsed)


def _bill_get(tally: Tally, table: str, key: images.Item, consistent: bool, factor: int) -> None:
    size = units.item_size(images.item(table, key))
    tally.bill(READ, units.read_units(size, consistent) * factor, _item_name(table, key), _key_name(table, key))


def _bill_query(tally: Tally, params: dict[str, Any], parsed: dict[str, Any]) -> None:
    table, index_name = params["TableName"], params.get("IndexName")
    schema = images.schema(table)
    if schema is None:
        return
    index = next((i for i in schema.indexes if i.name == index_name), None)
    returned = parsed.get("Items") or []
    sizes = [_read_size(table, schema, index, item) for item in returned]
    dropped = max(0, int(parsed.get("ScannedCount", len(returned))) - len(returned))
    total = sum(sizes) + dropped * (sum(sizes) / len(sizes) if sizes else units.WRITE_UNIT_BYTES)
    consistent = bool(params.get("ConsistentRead")) and index is None
    hash_key = index.hash_key if index else schema.hash_key
    partition = "(scan)" if "KeyConditionExpression" not in params else _hash_value(params, hash_key)
    name = f"{_table(table)}.{index.name}" if index else _table(table)
    tally.bill(READ, units.read_units(int(total), consistent), None, f"{name}[{partition}]")


def _read_size(table: str, schema: images.Schema, index: images.Index | None, item: images.Item) -> int:
    """Bytes DynamoDB bills for one item a Query read: the index entry's attributes, or the whole item."""
    stored = images.item(table, schema.key(item)) or item
    if index and index.projected is not None:
        return units.item_size({name: stored[name] for name in index.projected if name in stored})
    return units.item_size(stored)


def _hash_value(params: dict[str, Any], hash_key: str) -> str:
    """The partition key value a Query names in its key condition."""
    names = params.get("ExpressionAttributeNames") or {}
    values = params.get("ExpressionAttributeValues") or {}
    for name, value in re.findall(r"(#?[\w.]+)\s*=\s*(:[\w.]+)", params.get("KeyConditionExpression", "")):
        if names.get(name, name) == hash_key and value in values:
            return images.key_text(values[value])
    return "?"


def _table(table: str) -> str:
    return table.removeprefix(_prefix[0])


def _item_name(table: str, key: images.Item) -> str:
    schema = images.schema(table)
    ordered = schema.key(key) if schema else key
    return f"{_table(table)}[{'/'.join(images.key_text(value) for value in ordered.values())}]"


def _key_name(table: str, key: images.Item) -> str:
    schema = images.schema(table)
    value = key.get(schema.hash_key) if schema else None
    return f"{_table(table)}[{images.key_text(value) if value else '?'}]"
