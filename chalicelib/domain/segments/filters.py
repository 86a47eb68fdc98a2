"""Segment filter engine: validate Mautic segment filters and evaluate them against one contact.

:func:`validate` checks a segment's ``filters`` against the known fields and returns errors keyed like the API's
(``filters[2][operator]``); :func:`compile_filters` turns valid filters into a :class:`Matcher` whose
:meth:`Matcher.matches` tells whether a contact, seen as ``{"lead": {alias: value}, "companies": [{...}]}``,
belongs to the segment at a given instant.

Semantics follow Mautic's segment query builder on MySQL:

* AND binds tighter than OR (``a and b or c`` is ``(a and b) or c``); no filters match nobody.
* Text compares case-insensitively and ``=`` ignores surrounding whitespace; ``like`` is SQL LIKE (``%``, ``_``,
  wrapped in ``%..%`` when it has no ``%``); ``contains``/``startsWith``/``endsWith`` take the value literally;
  ``regexp`` searches, case-insensitively.
* A positive operator never matches a missing value (None, "" or an empty list). Each negative operator (``!=``,
  ``!like``, ``!regexp``, ``!in``, ``!between``, ``empty``) is the negation of its positive counterpart, so it
  matches missing values too (Mautic's ``OR field IS NULL``).
* Company filters, and the UTM fields (lists of values), hold when some company (value) satisfies the positive
  operator; their negative operators hold when none does.
* Dates compare on the filter type's axis: days for ``date``, instants (naive = UTC) for ``datetime``. A value is
  absolute (ISO 8601, ``Y-m-d H:i:s``), a range keyword (``today``, ``week_last``, ``month_this``, ...: ``=``
  inside, ``gt`` from its end, ``gte`` from its start, ``lt`` before its start, ``lte`` before its end),
  ``birthday``/``anniversary`` (today's month and day) or an interval from now (``-1 week``, ``+5 days``);
  the ``date`` operator, and ``=`` with an interval, compare whole days.
"""
from __future__ import annotations

import math
import operator as op
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from functools import partial
from typing import Any, Callable

from dateutil.relativedelta import relativedelta

OBJECTS = ("lead", "company")
GLUES = ("and", "or")
FIELD_TYPES = ("boolean", "date", "datetime", "email", "country", "locale", "lookup", "number", "tel", "region",
               "select", "multiselect", "text", "textarea", "time", "timezone", "url", "html")
STRUCTURED_TYPES = ("tags", "leadlist")
TYPES = FIELD_TYPES + STRUCTURED_TYPES + ("lookup_id",)  # lookup_id: Mautic's type for owner_id, a number

EQUALITY = ("=", "!=")
ORDER = ("gt", "gte", "lt", "lte")
EMPTINESS = ("empty", "!empty")
PATTERNS = ("like", "!like", "startsWith", "endsWith", "contains", "regexp", "!regexp")
LISTS = ("in", "!in")
RANGES = ("between", "!between")
OPERATORS = EQUALITY + ORDER + EMPTINESS + PATTERNS + LISTS + RANGES + ("date",)
NEGATIONS = {"!=": "=", "!like": "like", "!regexp": "regexp", "!in": "in", "!between": "between", "empty": "!empty"}

UTM_FIELDS = frozenset(f"utm_{name}" for name in ("campaign", "content", "medium", "source", "term"))
SPECIAL_FIELDS = {
    "id": "number", "points": "number", "owner_id": "number",
    "date_added": "datetime", "date_modified": "datetime", "date_identified": "datetime", "last_active": "datetime",
    "tags": "tags", "leadlist": "leadlist",
    **{f"dnc_{name}": "boolean" for name in ("unsubscribed", "bounced", "manual", "unsubscribed_sms", "bounced_sms")},
    **{name: "text" for name in UTM_FIELDS},
}

DATE_KEYWORDS = ("today", "tomorrow", "yesterday", "week_last", "week_next", "week_this", "month_last",
                 "month_next", "month_this", "year_last", "year_next", "year_this")
YEARLY_KEYWORDS = ("birthday", "anniversary")
INTERVAL_UNITS = {"minute": 1 / 1440, "hour": 1 / 24, "day": 1, "week": 7, "month": 31, "year": 366}  # in days
MAX_INTERVAL_DAYS = 366_000

DAY = timedelta(days=1)
TICK = timedelta(microseconds=1)
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_TIME = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?", re.ASCII)
_INTERVAL = re.compile(r"([+-])\s*(\d{1,9})\s*(minute|hour|day|week|month|year)s?", re.ASCII)
_TRUTHS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}
_DATE_HINT = "a date (Y-m-d, Y-m-d H:i:s, ISO 8601), a relative date (today, week_last, month_this, ...)"


# --- public API ----------------------------------------------------------------------------------

def validate(filters, fields) -> dict[str, list[str]]:
    """Errors of a segment's filters keyed like ``filters[2][operator]``; empty when every filter is valid.

    ``fields`` maps each object to its custom fields' ``{alias: type}``; the special lead fields are added here.
    """
    fields = fields or {}
    known = {"lead": {**(fields.get("lead") or {}), **SPECIAL_FIELDS}, "company": dict(fields.get("company") or {})}
    errors: dict[str, list[str]] = {}
    for index, item in enumerate(filters or []):
        for key, message in _problems(item, known):
            errors.setdefault(f"filters[{index}]{key}", []).append(message)
    return errors


def compile_filters(filters) -> Matcher:
    """A :class:`Matcher` for filters that passed :func:`validate` (regexes, numbers and dates parsed once).

    Each filter compares by its ``type``; without one, special lead fields use their own and others text.
    """
    groups: list[list[_Compiled]] = []
    for item in filters:
        compiled = _compile(item)
        if compiled.glue == "or" or not groups:
            groups.append([compiled])
        else:
            groups[-1].append(compiled)
    return Matcher(
        groups,
        relative=any(map(_is_relative, filters)),
        segments={segment for item in filters for segment in _segments_of(item)},
        objects={item.get("object") or "lead" for item in filters},
    )


class Matcher:
    """A compiled segment: an OR of AND groups of filters.

    ``relative``: some filter compares with a date relative to now (membership changes as time passes);
    ``segments``: ids of the segments its ``leadlist`` filters refer to; ``objects``: the objects it reads.
    """

    __slots__ = ("_groups", "relative", "segments", "objects")

    def __init__(self, groups, relative: bool, segments: set[int], objects: set[str]):
        self._groups = groups
        self.relative = relative
        self.segments = segments
        self.objects = objects

    def matches(self, subject, now: datetime) -> bool:
        """Whether the contact ``subject`` is in the segment at ``now`` (an aware datetime; naive is UTC)."""
        now = _utc(now)
        return any(all(item.holds(subject, now) for item in group) for group in self._groups)


# --- validation ----------------------------------------------------------------------------------

def _problems(item, known):
    """(key suffix, message) pairs for one filter."""
    if not isinstance(item, dict):
        yield "", "This value should be an object."
        return
    glue, obj = item.get("glue") or "and", item.get("object") or "lead"
    field, operator = item.get("field"), item.get("operator")
    if glue not in GLUES:
        yield "[glue]", f"Unknown glue '{glue}': use 'and' or 'or'."
    if obj not in OBJECTS:
        yield "[object]", f"Unknown object '{obj}': use 'lead' or 'company'."
        return
    if not isinstance(field, str) or field not in known[obj]:
        yield "[field]", f"Unknown field '{field}' for object '{obj}'."
        return
    field_type = known[obj][field]
    type_name = item.get("type") or field_type
    type_problem = _type_problem(item.get("type"), field, field_type)
    if type_problem:
        yield "[type]", type_problem
    elif operator not in OPERATORS:
        yield "[operator]", f"Unknown operator '{operator}'."
    elif operator not in _kind(type_name).operators:
        yield "[operator]", f"Operator '{operator}' does not apply to type '{type_name}'."
    else:
        try:
            _positive(_kind(type_name), NEGATIONS.get(operator, operator), _value(item))
        except ValueError as exc:
            yield "[properties][filter]", str(exc)


def _type_problem(given, field, field_type):
    """Why the filter's explicit ``type`` is wrong, or None."""
    if not given:
        return None
    if given not in TYPES:
        return f"Unknown type '{given}'."
    if given != field_type and (given in STRUCTURED_TYPES or field_type in STRUCTURED_TYPES):
        return f"Type '{given}' does not apply to field '{field}'."
    return None


# --- compilation ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Compiled:
    """One filter: ``test`` (the positive operator) on the values ``values`` picks, negated when ``negate``."""

    glue: str
    values: Callable[[Any], tuple | list]
    test: Callable[[Any, datetime], bool]
    negate: bool

    def holds(self, subject, now):
        return any(self.test(value, now) for value in self.values(subject)) != self.negate


def _compile(item):
    operator = item["operator"]
    test = _positive(_kind(_type_of(item)), NEGATIONS.get(operator, operator), _value(item))
    return _Compiled(item.get("glue") or "and", _values_picker(item), test, operator in NEGATIONS)


def _type_of(item):
    special = SPECIAL_FIELDS.get(item["field"]) if (item.get("object") or "lead") == "lead" else None
    return item.get("type") or special or "text"


def _value(item):
    properties = item.get("properties")
    return properties.get("filter") if isinstance(properties, dict) else None


def _values_picker(item):
    """The function giving the values a filter tests: one per company, per UTM record, or the lead's value."""
    field = item["field"]
    if (item.get("object") or "lead") == "company":
        return partial(_company_values, field)
    return partial(_utm_values if field in UTM_FIELDS else _lead_value, field)


def _lead_value(field, subject):
    lead = subject.get("lead")
    return (lead.get(field) if isinstance(lead, dict) else None,)


def _utm_values(field, subject):
    (value,) = _lead_value(field, subject)
    return value if isinstance(value, (list, tuple)) else (value,)


def _company_values(field, subject):
    companies = subject.get("companies")
    if not isinstance(companies, list):
        return ()
    return [company.get(field) if isinstance(company, dict) else None for company in companies]


def _is_relative(item):
    """Whether the filter compares with a date that depends on now."""
    operator = item["operator"]
    if _type_of(item) not in ("date", "datetime") or operator in EMPTINESS + PATTERNS:
        return False
    return any(_when(raw).relative for raw in _value_items(operator, _value(item)))


def _segments_of(item):
    if _type_of(item) != "leadlist" or item["operator"] not in LISTS:
        return set()
    return {_integer(raw) for raw in _listed(_value(item))} - {None}


def _value_items(operator, value):
    """The individual filter values an operator compares with."""
    if operator in LISTS:
        return _listed(value)
    if operator in RANGES:
        return list(_bounds(value))
    return [value]


def _listed(value):
    if isinstance(value, (list, tuple)) and value:
        return list(value)
    if value is None or isinstance(value, (dict, list, tuple)):
        raise ValueError("A non-empty list of values is expected.")
    return [value]


def _bounds(value):
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return tuple(value)
    if isinstance(value, dict) and "from" in value and "to" in value:
        return value["from"], value["to"]
    raise ValueError('Two bounds are expected: [from, to] or {"from": .., "to": ..}.')


# --- operators -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Kind:
    """How one filter type reads stored values, parses filter values and compares the two.

    ``read`` turns a stored value into a comparable one (None: missing or unusable); ``target`` parses one filter
    value (ValueError when invalid); ``compare(name, target)`` gives ``test(read value, now)`` for ``=``, ``gt``,
    ``gte``, ``lt``, ``lte`` or ``date``; ``among(targets)``, when set, tests ``in`` on a set of targets at once.
    """

    operators: frozenset
    read: Callable[[Any], Any]
    target: Callable[[Any], Any]
    compare: Callable[[str, Any], Callable[[Any, datetime], bool]]
    among: Callable[[frozenset], Callable[[Any, datetime], bool]] | None = None


def _positive(kind, operator, value):
    """``test(stored value, now)`` for a positive operator; ValueError when the filter value does not fit."""
    if operator == "!empty":
        return _filled
    if operator in PATTERNS:
        return partial(_reading, _text, _pattern(operator, _scalar(value)))
    if operator == "in":
        targets = [kind.target(raw) for raw in _listed(value)]
        if kind.among:
            test = kind.among(frozenset(targets))
        else:
            test = partial(_any_of, [kind.compare("=", target) for target in targets])
    elif operator == "between":
        low, high = _bounds(value)
        test = partial(_all_of, [kind.compare("gte", kind.target(low)), kind.compare("lte", kind.target(high))])
    else:
        test = kind.compare(operator, kind.target(value))
    return partial(_reading, kind.read, test)


def _reading(read, test, value, now):
    """``test`` on the stored value as ``read`` sees it; false when it is missing."""
    comparable = read(value)
    return comparable is not None and test(comparable, now)


def _any_of(tests, value, now):
    return any(test(value, now) for test in tests)


def _all_of(tests, value, now):
    return all(test(value, now) for test in tests)


def _filled(value, now):
    return not (value is None or value == "" or (isinstance(value, (list, tuple, dict)) and not value))


def _pattern(operator, text):
    """Test of the stored value's text for like/startsWith/endsWith/contains/regexp (case-insensitive)."""
    folded = text.casefold()
    if operator == "regexp":
        try:
            return partial(_searches, re.compile(text, re.IGNORECASE))
        except (re.error, OverflowError, RecursionError) as exc:
            raise ValueError(f"Invalid regular expression '{text}': {exc}.") from None
    if operator == "like":
        return partial(_searches, _like(text if "%" in text else f"%{text}%"))
    method = {"startsWith": str.startswith, "endsWith": str.endswith, "contains": str.__contains__}[operator]
    return lambda value, now: method(value.casefold(), folded)


def _searches(pattern, value, now):
    return pattern.search(value) is not None


def _like(pattern):
    """A regex matching what SQL ``LIKE pattern`` does: ``%`` any run, ``_`` one character, ``\\`` escapes."""
    parts, chars = [], iter(pattern)
    for char in chars:
        if char == "\\":
            parts.append(re.escape(next(chars, "\\")))
        else:
            parts.append({"%": ".*", "_": "."}.get(char) or re.escape(char))
    return re.compile(rf"\A(?:{''.join(parts)})\Z", re.IGNORECASE | re.DOTALL)


def _ordered(name, target):
    relation = {"=": op.eq, "gt": op.gt, "gte": op.ge, "lt": op.lt, "lte": op.le}[name]
    return lambda value, now: relation(value, target)


def _member(targets):
    return lambda value, now: value in targets


def _overlap(targets):
    return lambda value, now: not value.isdisjoint(targets)


def _option_compare(name, option):
    return lambda options, now: option in options


# --- value conversions ---------------------------------------------------------------------------

def _text(value):
    """A value as text, None when missing: booleans are '1'/'0', integral floats lose '.0', lists join with '|'."""
    if value is None or isinstance(value, str):
        return value or None
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return "|".join(filter(None, map(_text, value))) or None
    try:
        return str(value) or None
    except ValueError:  # an integer too long to print
        return None


def _folded(value):
    """Text for equality: stripped and case-folded, None when blank."""
    text = _text(value)
    if text is None:
        return None
    return text.strip().casefold() or None


def _scalar(value):
    """One filter value (text, number or boolean) as text."""
    if value is None:
        raise ValueError("A value is required.")
    if not isinstance(value, (str, int, float, Decimal)):
        raise ValueError("A single value is expected.")
    return _text(value) or ""


def _number(value):
    """A finite number from a number or a decimal string, else None (booleans are not numbers)."""
    if isinstance(value, str):
        if not _NUMBER.fullmatch(value.strip()):
            return None
    elif isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        return None
    try:
        number = float(value)
    except (OverflowError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _integer(value):
    number = _number(value)
    return int(number) if number is not None and number.is_integer() else None


def _boolean(value):
    """True/False from 1/0, true/false, yes/no (as booleans, numbers or strings), else None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _TRUTHS.get(value.strip().lower())
    number = _number(value)
    return bool(number) if number in (0.0, 1.0) else None


def _seconds(value):
    """Seconds since midnight of an ``HH:MM[:SS]`` time, else None."""
    match = _TIME.fullmatch(value.strip()) if isinstance(value, str) else None
    if not match:
        return None
    hours, minutes, seconds = (int(part or 0) for part in match.groups())
    return hours * 3600 + minutes * 60 + seconds if hours < 24 and minutes < 60 and seconds < 60 else None


def _utc(moment):
    """An aware UTC datetime (naive is UTC), None when out of range."""
    if moment.tzinfo is timezone.utc:
        return moment
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    try:
        return moment.astimezone(timezone.utc)
    except OverflowError:
        return None


def _instant(value):
    """A stored date or date-time (ISO 8601, ``Y-m-d H:i:s``, ``Y-m-d``) as an aware UTC datetime, else None."""
    if isinstance(value, datetime):
        return _utc(value)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    if not isinstance(value, str):
        return None
    try:
        return _utc(datetime.fromisoformat(value.strip()))
    except ValueError:
        return None


def _day(value):
    moment = _instant(value)
    return moment.date() if moment else None


def _options(value):
    """A multiselect value (list or '|'-joined string) as a set of folded options, None when empty."""
    items = value if isinstance(value, (list, tuple)) else (_text(value) or "").split("|")
    return frozenset(filter(None, map(_folded, items))) or None


def _text_target(raw):
    return _folded(_scalar(raw)) or ""


def _parsed(read, expected):
    """A filter-value parser: read(raw), or ValueError saying what was expected."""
    def parse(raw):
        value = read(raw)
        if value is None:
            raise ValueError(f"'{raw}' is not {expected}.")
        return value
    return parse


_number_target = _parsed(_number, "a number")
_boolean_target = _parsed(_boolean, "a boolean (1, 0, true or false)")
_time_target = _parsed(_seconds, "a time (HH:MM or HH:MM:SS)")
_segment_target = _parsed(_integer, "a segment id")


# --- tags and segments ---------------------------------------------------------------------------

def _tags(value):
    """The contact's tags as (id, folded name) pairs, None when it has none."""
    if not isinstance(value, (list, tuple)):
        return None
    pairs = [_tag(item) for item in value]
    return [pair for pair in pairs if pair != (None, None)] or None


def _tag(item):
    if isinstance(item, dict):
        return _integer(item.get("id")), _folded(item.get("tag"))
    return _integer(item), _folded(item)


def _tag_target(raw):
    """A tag reference: an id (int), or a name that is also an id when numeric."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw, None
    name = _folded(raw) if isinstance(raw, str) else None
    if name is None:
        raise ValueError(f"'{raw}' is not a tag id or name.")
    return (int(name) if name.isascii() and name.isdigit() else None), name


def _tag_matcher(name, target):
    tag_id, tag_name = target
    return lambda tags, now: any((tag_id is not None and tag_id == ident) or (tag_name is not None and tag_name == text)
                                 for ident, text in tags)


def _segment_ids(value):
    """Segment ids the contact belongs to, None when none."""
    items = value if isinstance(value, (list, tuple, set, frozenset)) else (value,)
    return frozenset(filter(lambda segment: segment is not None, map(_integer, items))) or None


# --- dates ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _When:
    """A date filter value: a keyword (range or yearly), an interval from now, or an absolute instant."""

    keyword: str | None = None
    delta: relativedelta | None = None
    moment: datetime | None = None

    @property
    def relative(self):
        return self.moment is None


def _when(raw):
    """Parse a date filter value; ValueError when it is none of the accepted forms."""
    text = raw.strip() if isinstance(raw, str) else ""
    lowered = text.lower()
    if lowered in DATE_KEYWORDS or lowered in YEARLY_KEYWORDS:
        return _When(keyword=lowered)
    interval = _INTERVAL.fullmatch(lowered)
    if interval:
        return _When(delta=_delta(*interval.groups()))
    moment = _instant(text) if text else None
    if moment is None:
        raise ValueError(f"'{raw}' is not {_DATE_HINT} or an interval (-1 week, +5 days).")
    return _When(moment=moment)


def _delta(sign, amount, unit):
    if int(amount) * INTERVAL_UNITS[unit] > MAX_INTERVAL_DAYS:
        raise ValueError(f"The interval '{sign}{amount} {unit}' is too large.")
    return relativedelta(**{f"{unit}s": int(f"{sign}{amount}")})


def _date_compare(day_axis, name, when):
    """``test(read value, now)`` comparing a stored date (``day_axis``) or instant with a date filter value."""
    if when.keyword in YEARLY_KEYWORDS:
        if name not in ("=", "date"):
            raise ValueError(f"'{when.keyword}' only applies to =, !=, in, !in and date.")
        return _same_day_of_year
    relation = _SPAN_RELATIONS[name]
    span = _span(when, day_axis, whole_day=name == "date" or (name == "=" and when.delta is not None))

    def test(value, now):
        low, high = span(now)
        return relation(value, low, high)
    return test


_SPAN_RELATIONS = {
    "=": lambda value, low, high: low <= value < high,
    "date": lambda value, low, high: low <= value < high,
    "gt": lambda value, low, high: value >= high,
    "gte": lambda value, low, high: value >= low,
    "lt": lambda value, low, high: value < low,
    "lte": lambda value, low, high: value < high,
}


def _same_day_of_year(value, now):
    return value.month == now.month and value.day == now.day


def _span(when, day_axis, whole_day):
    """``now -> (start, end)``: the half-open range a date filter value stands for on the comparison axis."""
    if when.keyword:
        bounds = _KEYWORD_RANGES[when.keyword]
        return _per_now(lambda now: _on_axis(bounds(now.date()), day_axis))
    if when.delta is not None:
        return _per_now(lambda now: _around(now + when.delta, day_axis, whole_day))
    try:
        fixed = _around(when.moment, day_axis, whole_day)
    except OverflowError:
        raise ValueError(f"'{when.moment.isoformat()}' is out of range.") from None
    return lambda now: fixed


def _around(moment, day_axis, whole_day):
    """The range of one instant: its day on the day axis or when ``whole_day``, else the instant itself."""
    if day_axis:
        return moment.date(), moment.date() + DAY
    if whole_day:
        return _on_axis((moment.date(), moment.date() + DAY), day_axis)
    return moment, moment + TICK


def _on_axis(days, day_axis):
    if day_axis:
        return days
    return tuple(datetime.combine(day, time(), timezone.utc) for day in days)


def _per_now(compute):
    """``compute(now)``, remembered for the last ``now`` (a rebuild evaluates every contact at one instant)."""
    last = [None, None]

    def resolve(now):
        if last[0] != now:
            last[:] = [now, compute(now)]
        return last[1]
    return resolve


def _day_range(shift, today):
    start = today + timedelta(days=shift)
    return start, start + DAY


def _week_range(shift, today):
    start = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
    return start, start + timedelta(weeks=1)


def _month_range(shift, today):
    start = today.replace(day=1) + relativedelta(months=shift)
    return start, start + relativedelta(months=1)


def _year_range(shift, today):
    return date(today.year + shift, 1, 1), date(today.year + shift + 1, 1, 1)


_KEYWORD_RANGES = {
    "today": partial(_day_range, 0), "tomorrow": partial(_day_range, 1), "yesterday": partial(_day_range, -1),
    **{f"{unit}_{name}": partial(ranger, shift)
       for unit, ranger in (("week", _week_range), ("month", _month_range), ("year", _year_range))
       for name, shift in (("last", -1), ("this", 0), ("next", 1))},
}


# --- kinds ---------------------------------------------------------------------------------------

_TEXTUAL = frozenset(EQUALITY + EMPTINESS + PATTERNS + LISTS)
_ORDERED = _TEXTUAL | frozenset(ORDER + RANGES)
_TEXT = _Kind(_TEXTUAL, _folded, _text_target, _ordered, _member)
_NUMBER_KIND = _Kind(_ORDERED, _number, _number_target, _ordered, _member)
_KINDS = {
    "text": _TEXT,
    "number": _NUMBER_KIND,
    "lookup_id": _NUMBER_KIND,
    "time": _Kind(_ORDERED, _seconds, _time_target, _ordered, _member),
    "date": _Kind(_ORDERED | {"date"}, _day, _when, partial(_date_compare, True)),
    "datetime": _Kind(_ORDERED | {"date"}, _instant, _when, partial(_date_compare, False)),
    "boolean": _Kind(frozenset(EQUALITY + EMPTINESS), _boolean, _boolean_target, _ordered),
    "multiselect": _Kind(_TEXTUAL, _options, _text_target, _option_compare, _overlap),
    "tags": _Kind(frozenset(LISTS + EMPTINESS), _tags, _tag_target, _tag_matcher),
    "leadlist": _Kind(frozenset(LISTS + EMPTINESS), _segment_ids, _segment_target, None, _overlap),
}


def _kind(type_name):
    """The comparison rules of a filter type: the text ones for every text-like or unknown type."""
    return _KINDS.get(type_name, _TEXT)
