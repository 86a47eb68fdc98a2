"""Segment filter dates: parsing date filter values and comparing stored dates with them.

Dates compare on the filter type's axis: days for ``date``, instants (naive = UTC) for ``datetime``. A value is
absolute (ISO 8601, ``Y-m-d H:i:s``), a range keyword (``today``, ``week_last``, ``month_this``, ...: ``=``
inside, ``gt`` from its end, ``gte`` from its start, ``lt`` before its start, ``lte`` before its end),
``birthday``/``anniversary`` (today's month and day) or an interval from now (``-1 week``, ``+5 days``);
the ``date`` operator, and ``=`` with an interval, compare whole days.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, timezone
from functools import partial
from typing import Any, Callable

from dateutil.relativedelta import relativedelta

from chalicelib.domain.segments.filter_values import as_instant
from chalicelib.records import record

Test = Callable[[Any, datetime], bool]  # test(stored value as read, now)
Span = tuple[date, date]  # a half-open range of days, or of instants (datetimes) on the instant axis

DATE_KEYWORDS = (
    "today",
    "tomorrow",
    "yesterday",
    "week_last",
    "week_next",
    "week_this",
    "month_last",
    "month_next",
    "month_this",
    "year_last",
    "year_next",
    "year_this",
)
YEARLY_KEYWORDS = ("birthday", "anniversary")
INTERVAL_UNITS = {"minute": 1 / 1440, "hour": 1 / 24, "day": 1, "week": 7, "month": 31, "year": 366}  # in days
MAX_INTERVAL_DAYS = 366_000

DAY = timedelta(days=1)
TICK = timedelta(microseconds=1)
_INTERVAL = r"(?a)([+-])\s*(\d{1,9})\s*(minute|hour|day|week|month|year)s?"
_DATE_HINT = "a date (Y-m-d, Y-m-d H:i:s, ISO 8601), a relative date (today, week_last, month_this, ...)"


@record
class _When:
    """A date filter value: a keyword (range or yearly), an interval from now, or an absolute instant."""

    keyword: str | None = None
    delta: relativedelta | None = None
    moment: datetime | None = None

    @property
    def relative(self) -> bool:
        return self.moment is None


def date_target(raw: Any) -> _When:
    """Parse a date filter value; ValueError when it is none of the accepted forms."""
    text = raw.strip() if isinstance(raw, str) else ""
    lowered = text.lower()
    if lowered in DATE_KEYWORDS or lowered in YEARLY_KEYWORDS:
        return _When(keyword=lowered)
    interval = re.fullmatch(_INTERVAL, lowered)
    if interval:
        return _When(delta=_delta(*interval.groups()))
    moment = as_instant(text) if text else None
    if moment is None:
        raise ValueError(f"'{raw}' is not {_DATE_HINT} or an interval (-1 week, +5 days).")
    return _When(moment=moment)


def _delta(sign: str, amount: str, unit: str) -> relativedelta:
    if int(amount) * INTERVAL_UNITS[unit] > MAX_INTERVAL_DAYS:
        raise ValueError(f"The interval '{sign}{amount} {unit}' is too large.")
    return relativedelta(**{f"{unit}s": int(f"{sign}{amount}")})


def date_compare(day_axis: bool, name: str, when: _When) -> Test:
    """``test(read value, now)`` comparing a stored date (``day_axis``) or instant with a date filter value."""
    if when.keyword in YEARLY_KEYWORDS:
        if name not in ("=", "date"):
            raise ValueError(f"'{when.keyword}' only applies to =, !=, in, !in and date.")
        return _same_day_of_year
    relation = _SPAN_RELATIONS[name]
    span = _span(when, day_axis, whole_day=name == "date" or (name == "=" and when.delta is not None))

    def test(value: Any, now: datetime) -> bool:
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


def _same_day_of_year(value: date, now: datetime) -> bool:
    return value.month == now.month and value.day == now.day


def _span(when: _When, day_axis: bool, whole_day: bool) -> Callable[[datetime], Span]:
    """``now -> (start, end)``: the half-open range a date filter value stands for on the comparison axis."""
    if when.keyword:
        bounds = _KEYWORD_RANGES[when.keyword]
        return _per_now(lambda now: _on_axis(bounds(now.date()), day_axis))
    if when.delta is not None:
        delta = when.delta
        return _per_now(lambda now: _around(now + delta, day_axis, whole_day))
    moment = when.moment
    assert moment is not None  # neither a keyword nor an interval: an instant
    try:
        fixed = _around(moment, day_axis, whole_day)
    except OverflowError:
        raise ValueError(f"'{moment.isoformat()}' is out of range.") from None
    return lambda now: fixed


def _around(moment: datetime, day_axis: bool, whole_day: bool) -> Span:
    """The range of one instant: its day on the day axis or when ``whole_day``, else the instant itself."""
    if day_axis:
        return moment.date(), moment.date() + DAY
    if whole_day:
        return _on_axis((moment.date(), moment.date() + DAY), day_axis)
    return moment, moment + TICK


def _on_axis(days: tuple[date, date], day_axis: bool) -> Span:
    if day_axis:
        return days
    start, end = days
    return datetime.combine(start, time(), timezone.utc), datetime.combine(end, time(), timezone.utc)


def _per_now(compute: Callable[[datetime], Span]) -> Callable[[datetime], Span]:
    """``compute(now)``, remembered for the last ``now`` (a rebuild evaluates every contact at one instant)."""
    last: list[Any] = [None, None]  # [now, its span]

    def resolve(now: datetime) -> Span:
        if last[0] != now:
            last[:] = [now, compute(now)]
        return last[1]

    return resolve


def _day_range(shift: int, today: date) -> tuple[date, date]:
    start = today + timedelta(days=shift)
    return start, start + DAY


def _week_range(shift: int, today: date) -> tuple[date, date]:
    start = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
    return start, start + timedelta(weeks=1)


def _month_range(shift: int, today: date) -> tuple[date, date]:
    start = today.replace(day=1) + relativedelta(months=shift)
    return start, start + relativedelta(months=1)


def _year_range(shift: int, today: date) -> tuple[date, date]:
    return date(today.year + shift, 1, 1), date(today.year + shift + 1, 1, 1)


_KEYWORD_RANGES = {
    "today": partial(_day_range, 0),
    "tomorrow": partial(_day_range, 1),
    "yesterday": partial(_day_range, -1),
    **{
        f"{unit}_{name}": partial(ranger, shift)
        for unit, ranger in (("week", _week_range), ("month", _month_range), ("year", _year_range))
        for name, shift in (("last", -1), ("this", 0), ("next", 1))
    },
}
