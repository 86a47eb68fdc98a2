"""Segment filter operators: which operators each filter type accepts, and the test a positive operator builds.

Text compares case-insensitively and ``=`` ignores surrounding whitespace; ``like`` is SQL LIKE (``%``, ``_``,
wrapped in ``%..%`` when it has no ``%``); ``contains``/``startsWith``/``endsWith`` take the value literally;
``regexp`` searches, case-insensitively (both in linear time: `patterns`). A test is false on a missing value;
each negative operator in :data:`NEGATIONS` is left to the caller as the negation of its positive counterpart.
"""

from __future__ import annotations

import operator as op
from datetime import datetime
from functools import partial
from typing import Any, Callable, Iterable

from chalicelib.domain.segments import patterns
from chalicelib.domain.segments.filter_dates import Test, date_compare, date_target
from chalicelib.domain.segments.filter_values import (
    as_boolean,
    as_day,
    as_folded,
    as_instant,
    as_integer,
    as_number,
    as_options,
    as_seconds,
    as_segment_ids,
    as_tags,
    as_text,
    boolean_target,
    bounds,
    listed,
    number_target,
    scalar_text,
    segment_target,
    stage_target,
    tag_target,
    text_target,
    time_target,
)
from chalicelib.records import record

EQUALITY = ("=", "!=")
ORDER = ("gt", "gte", "lt", "lte")
EMPTINESS = ("empty", "!empty")
PATTERNS = ("like", "!like", "startsWith", "endsWith", "contains", "regexp", "!regexp")
LISTS = ("in", "!in")
RANGES = ("between", "!between")
OPERATORS = EQUALITY + ORDER + EMPTINESS + PATTERNS + LISTS + RANGES + ("date",)
NEGATIONS = {"!=": "=", "!like": "like", "!regexp": "regexp", "!in": "in", "!between": "between", "empty": "!empty"}


@record
class _Kind:
    """How one filter type reads stored values, parses filter values and compares the two.

    ``read`` turns a stored value into a comparable one (None: missing or unusable); ``target`` parses one filter
    value (ValueError when invalid); ``compare(name, target)`` gives ``test(read value, now)`` for ``=``, ``gt``,
    ``gte``, ``lt``, ``lte`` or ``date``; ``among(targets)``, when set, tests ``in`` on a set of targets at once.
    """

    operators: frozenset
    read: Callable[[Any], Any]
    target: Callable[[Any], Any]
    compare: Callable[[str, Any], Callable[[Any, datetime], bool]] | None  # None: only `in` (with `among`)
    among: Callable[[frozenset], Callable[[Any, datetime], bool]] | None = None


def positive_test(kind: _Kind, operator: str, value: Any) -> Test:
    """``test(stored value, now)`` for a positive operator; ValueError when the filter value does not fit."""
    if operator == "!empty":
        return _filled
    if operator in PATTERNS:
        return partial(_reading, as_text, _pattern(operator, scalar_text(value)))
    if operator == "in":
        targets = [kind.target(raw) for raw in listed(value)]
        if kind.among:
            test = kind.among(frozenset(targets))
        else:
            test = partial(_any_of, [_compared(kind, "=", target) for target in targets])
    elif operator == "between":
        low, high = bounds(value)
        test = partial(_all_of, [_compared(kind, "gte", kind.target(low)), _compared(kind, "lte", kind.target(high))])
    else:
        test = _compared(kind, operator, kind.target(value))
    return partial(_reading, kind.read, test)


def _compared(kind: _Kind, name: str, target: Any) -> Test:
    """The kind's test for `name` (=, gt, gte, lt, lte, date) and a parsed target."""
    assert kind.compare is not None  # a kind without one (leadlist) takes only `in`, with `among`
    return kind.compare(name, target)


def _reading(read: Callable[[Any], Any], test: Test, value: Any, now: datetime) -> bool:
    """``test`` on the stored value as ``read`` sees it; false when it is missing."""
    comparable = read(value)
    return comparable is not None and test(comparable, now)


def _any_of(tests: Iterable[Test], value: Any, now: datetime) -> bool:
    return any(test(value, now) for test in tests)


def _all_of(tests: Iterable[Test], value: Any, now: datetime) -> bool:
    return all(test(value, now) for test in tests)


def _filled(value: Any, now: datetime) -> bool:
    return not (value is None or value == "" or (isinstance(value, (list, tuple, dict)) and not value))


def _pattern(operator: str, text: str) -> Test:
    """Test of the stored value's text for like/startsWith/endsWith/contains/regexp (case-insensitive)."""
    folded = text.casefold()
    if operator in ("regexp", "like"):
        test = patterns.regexp(text) if operator == "regexp" else patterns.like(text if "%" in text else f"%{text}%")
        return lambda value, now: test(value)
    method = {"startsWith": str.startswith, "endsWith": str.endswith, "contains": str.__contains__}[operator]
    return lambda value, now: method(value.casefold(), folded)


def _ordered(name: str, target: Any) -> Test:
    relation = {"=": op.eq, "gt": op.gt, "gte": op.ge, "lt": op.lt, "lte": op.le}[name]
    return lambda value, now: relation(value, target)


def _member(targets: frozenset[Any]) -> Test:
    return lambda value, now: value in targets


def _overlap(targets: frozenset[Any]) -> Test:
    return lambda value, now: not value.isdisjoint(targets)


def _option_compare(name: str, option: Any) -> Test:
    return lambda options, now: option in options


def _tag_matcher(name: str, target: tuple[int | None, str | None]) -> Test:
    tag_id, tag_name = target
    return lambda tags, now: any(
        (tag_id is not None and tag_id == ident) or (tag_name is not None and tag_name == text) for ident, text in tags
    )


_TEXTUAL = frozenset(EQUALITY + EMPTINESS + PATTERNS + LISTS)
_ORDERED = _TEXTUAL | frozenset(ORDER + RANGES)
# Mautic's query builder compares any column with gt/gte/lt/lte/between: text in its case-insensitive collation.
_TEXT = _Kind(_ORDERED, as_folded, text_target, _ordered, _member)
_NUMBER_KIND = _Kind(_ORDERED, as_number, number_target, _ordered, _member)
_KINDS = {
    "text": _TEXT,
    "number": _NUMBER_KIND,
    "lookup_id": _NUMBER_KIND,
    "stage": _Kind(frozenset(EQUALITY + EMPTINESS + LISTS), as_integer, stage_target, _ordered, _member),
    "time": _Kind(_ORDERED, as_seconds, time_target, _ordered, _member),
    "date": _Kind(_ORDERED | {"date"}, as_day, date_target, partial(date_compare, True)),
    "datetime": _Kind(_ORDERED | {"date"}, as_instant, date_target, partial(date_compare, False)),
    "boolean": _Kind(frozenset(EQUALITY + EMPTINESS), as_boolean, boolean_target, _ordered),
    "multiselect": _Kind(_TEXTUAL, as_options, text_target, _option_compare, _overlap),
    "tags": _Kind(frozenset(LISTS + EMPTINESS), as_tags, tag_target, _tag_matcher),
    "leadlist": _Kind(frozenset(LISTS + EMPTINESS), as_segment_ids, segment_target, None, _overlap),
}


def kind_of(type_name: str) -> _Kind:
    """The comparison rules of a filter type: the text ones for every text-like or unknown type."""
    return _KINDS.get(type_name, _TEXT)


def effective_type(given: str | None, field_type: str) -> str:
    """The type a filter compares by: the one it names, unless that is text-like, when the field's own
    decides (Mautic's SQL compares a number column as a number whatever the filter's `type` says:
    `SegmentFilterFunctionalTest::testSegments`, `points gte 20` typed `text`)."""
    return given if given and kind_of(given) is not _TEXT else field_type
