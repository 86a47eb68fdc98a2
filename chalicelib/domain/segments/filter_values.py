"""Segment filter values: how stored values and filter values are read.

The ``as_*`` readers turn a stored contact or company value into a comparable one (None when missing or
unusable); the ``*_target`` parsers, :func:`scalar_text`, :func:`listed` and :func:`bounds` read a filter's value
and raise ValueError when it does not fit.
"""

import math
import re
from datetime import date, datetime, timezone
from decimal import Decimal
from typing import Any, Callable, TypeVar

T = TypeVar("T")

_NUMBER = r"(?a)[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_TIME = r"(?a)(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?"
_TRUTHS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


# --- stored values -------------------------------------------------------------------------------


def as_text(value: Any) -> str | None:
    """A value as text, None when missing: booleans are '1'/'0', integral floats lose '.0', lists join with '|'."""
    if value is None or isinstance(value, str):
        return value or None
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return "|".join(filter(None, map(as_text, value))) or None
    try:
        return str(value) or None
    except ValueError:  # an integer too long to print
        return None


def as_folded(value: Any) -> str | None:
    """Text for equality: stripped and case-folded, None when blank."""
    text = as_text(value)
    if text is None:
        return None
    return text.strip().casefold() or None


def as_number(value: Any) -> float | None:
    """A finite number from a number or a decimal string, else None (booleans are not numbers)."""
    if isinstance(value, str):
        if not re.fullmatch(_NUMBER, value.strip()):
            return None
    elif isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        return None
    try:
        number = float(value)
    except (OverflowError, ValueError):
        return None
    return number if math.isfinite(number) else None


def as_integer(value: Any) -> int | None:
    """An integral number (int or a string of one), else None."""
    number = as_number(value)
    return int(number) if number is not None and number.is_integer() else None


def as_boolean(value: Any) -> bool | None:
    """True/False from 1/0, true/false, yes/no (as booleans, numbers or strings), else None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _TRUTHS.get(value.strip().lower())
    number = as_number(value)
    return bool(number) if number in (0.0, 1.0) else None


def as_seconds(value: Any) -> int | None:
    """Seconds since midnight of an ``HH:MM[:SS]`` time, else None."""
    match = re.fullmatch(_TIME, value.strip()) if isinstance(value, str) else None
    if not match:
        return None
    hours, minutes, seconds = (int(part or 0) for part in match.groups())
    return hours * 3600 + minutes * 60 + seconds if hours < 24 and minutes < 60 and seconds < 60 else None


def as_utc(moment: datetime) -> datetime | None:
    """An aware UTC datetime (naive is UTC), None when out of range."""
    if moment.tzinfo is timezone.utc:
        return moment
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    try:
        return moment.astimezone(timezone.utc)
    except OverflowError:
        return None


def as_instant(value: Any) -> datetime | None:
    """A stored date or date-time (ISO 8601, ``Y-m-d H:i:s``, ``Y-m-d``) as an aware UTC datetime, else None."""
    if isinstance(value, datetime):
        return as_utc(value)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    if not isinstance(value, str):
        return None
    try:
        return as_utc(datetime.fromisoformat(value.strip()))
    except ValueError:
        return None


def as_day(value: Any) -> date | None:
    """The day of a stored date or date-time, else None."""
    moment = as_instant(value)
    return moment.date() if moment else None


def as_options(value: Any) -> frozenset[str] | None:
    """A multiselect value (list or '|'-joined string) as a set of folded options, None when empty."""
    items = value if isinstance(value, (list, tuple)) else (as_text(value) or "").split("|")
    return frozenset(filter(None, map(as_folded, items))) or None


def as_tags(value: Any) -> list[tuple[int | None, str | None]] | None:
    """The contact's tags as (id, folded name) pairs, None when it has none."""
    if not isinstance(value, (list, tuple)):
        return None
    pairs = [_tag(item) for item in value]
    return [pair for pair in pairs if pair != (None, None)] or None


def _tag(item: Any) -> tuple[int | None, str | None]:
    if isinstance(item, dict):
        return as_integer(item.get("id")), as_folded(item.get("tag"))
    return as_integer(item), as_folded(item)


def as_segment_ids(value: Any) -> frozenset[int] | None:
    """Segment ids the contact belongs to, None when none."""
    items = value if isinstance(value, (list, tuple, set, frozenset)) else (value,)
    return frozenset(segment for segment in map(as_integer, items) if segment is not None) or None


# --- filter values -------------------------------------------------------------------------------


def scalar_text(value: Any) -> str:
    """One filter value (text, number or boolean) as text."""
    if value is None:
        raise ValueError("A value is required.")
    if not isinstance(value, (str, int, float, Decimal)):
        raise ValueError("A single value is expected.")
    return as_text(value) or ""


def listed(value: Any) -> list[Any]:
    """The values of an `in` filter: a non-empty list, or one scalar; ValueError otherwise."""
    if isinstance(value, (list, tuple)) and value:
        return list(value)
    if value is None or isinstance(value, (dict, list, tuple)):
        raise ValueError("A non-empty list of values is expected.")
    return [value]


def bounds(value: Any) -> tuple[Any, ...]:
    """The two values of a `between` filter: `[from, to]` or `{"from", "to"}`; ValueError otherwise."""
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return tuple(value)
    if isinstance(value, dict) and "from" in value and "to" in value:
        return value["from"], value["to"]
    raise ValueError('Two bounds are expected: [from, to] or {"from": .., "to": ..}.')


def text_target(raw: Any) -> str:
    """A text filter value, folded for comparison ("" when blank)."""
    return as_folded(scalar_text(raw)) or ""


def _parsed(read: Callable[[Any], T | None], expected: str) -> Callable[[Any], T]:
    """A filter-value parser: read(raw), or ValueError saying what was expected."""

    def parse(raw: Any) -> T:
        value = read(raw)
        if value is None:
            raise ValueError(f"'{raw}' is not {expected}.")
        return value

    return parse


number_target = _parsed(as_number, "a number")
boolean_target = _parsed(as_boolean, "a boolean (1, 0, true or false)")
time_target = _parsed(as_seconds, "a time (HH:MM or HH:MM:SS)")
segment_target = _parsed(as_integer, "a segment id")
stage_target = _parsed(as_integer, "a stage id")


def tag_target(raw: Any) -> tuple[int | None, str | None]:
    """A tag reference: an id (int), or a name that is also an id when numeric."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw, None
    name = as_folded(raw) if isinstance(raw, str) else None
    if name is None:
        raise ValueError(f"'{raw}' is not a tag id or name.")
    return (int(name) if name.isascii() and name.isdigit() else None), name
