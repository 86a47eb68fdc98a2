"""DynamoDB's on-demand unit arithmetic, on items in DynamoDB's JSON (`{"S": "x"}`...): item sizes,
read and write units, and the request rate at which a key throttles. Pure: the unit tests run it
without AWS.

Sizes follow AWS's "Item sizes and formats" (DynamoDB developer guide): an attribute is its name's
UTF-8 length plus its value's; a string its UTF-8 length; a number about one byte per two
significant digits plus one; binary its length; a boolean or null one byte; a list or map 3 bytes
plus one per element plus the elements (a map's names included); a set the sum of its elements.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping
from typing import Any

READ_UNIT_BYTES = 4096  # a read request unit: one strongly consistent read of up to 4 KB
WRITE_UNIT_BYTES = 1024  # a write request unit: one write of up to 1 KB
INDEX_ENTRY_OVERHEAD = 100  # bytes DynamoDB adds to every index entry (keys and projection)
ITEM_WRITE_LIMIT = 1000.0  # write units per second one item, or one partition, serves
ITEM_READ_LIMIT = 3000.0  # read units per second one item, or one partition, serves
TRANSACTION_FACTOR = 2  # transactional reads and writes cost twice the units

Item = Mapping[str, Any]  # an item in DynamoDB's JSON


def number_size(text: str) -> int:
    """Bytes of a number: its significant digits, two per byte, plus one."""
    digits = text.lstrip("-").replace(".", "").lstrip("0").rstrip("0")
    return (len(digits) + 1) // 2 + 1


def value_size(value: Mapping[str, Any]) -> int:
    """Bytes of one attribute value in DynamoDB's JSON."""
    kind, body = next(iter(value.items()))
    if kind == "S":
        return len(str(body).encode())
    if kind == "N":
        return number_size(str(body))
    if kind == "B":
        return len(body) if isinstance(body, bytes) else len(base64.b64decode(body))
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "L":
        return 3 + sum(1 + value_size(element) for element in body)
    if kind == "M":
        return 3 + sum(1 + len(name.encode()) + value_size(element) for name, element in body.items())
    if kind == "SS":
        return sum(len(str(element).encode()) for element in body)
    if kind == "NS":
        return sum(number_size(str(element)) for element in body)
    if kind == "BS":
        return sum(value_size({"B": element}) for element in body)
    raise ValueError(f"unknown DynamoDB type {kind!r}")


def item_size(item: Item | None) -> int:
    """Bytes of an item (0 for no item)."""
    return sum(len(name.encode()) + value_size(value) for name, value in (item or {}).items())


def index_entry_size(item: Item, names: list[str]) -> int:
    """Bytes of an item's entry in an index projecting `names` (the keys of the index and table)."""
    return INDEX_ENTRY_OVERHEAD + item_size({name: item[name] for name in names if name in item})


def read_units(size: int, consistent: bool = True) -> float:
    """Read units of reading `size` bytes at once (one item, or one Query's total): 4 KB steps,
    at least one; half for an eventually consistent read."""
    units = max(1, math.ceil(size / READ_UNIT_BYTES))
    return float(units) if consistent else units / 2


def write_units(size: int) -> float:
    """Write units of writing an item of `size` bytes (the larger of its before and after images):
    1 KB steps, at least one."""
    return float(max(1, math.ceil(size / WRITE_UNIT_BYTES)))


def throttle_rate(units_per_request: float, limit: float) -> float:
    """Requests per second at which a key spending `units_per_request` reaches its `limit` units
    per second (infinite when the key is not spent on)."""
    return limit / units_per_request if units_per_request > 0 else math.inf


def cached_throttle_rate(units_per_read: float, limit: float, seconds: float, container_rate: float) -> float:
    """Requests per second at which an item read at most once per `seconds` per container throttles,
    each container serving `container_rate` requests per second: the containers needed for a rate
    R are R / container_rate, each reading the item 1 / seconds times a second."""
    if units_per_read <= 0:
        return math.inf
    return limit * seconds * container_rate / units_per_read
