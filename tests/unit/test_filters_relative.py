"""Filter engine: relative dates (range keywords, birthdays, intervals from now)."""

from datetime import datetime, timedelta, timezone

import pytest

from chalicelib.domain.segments.filters import compile_filters
from tests.unit.filtercases import KEYWORD_RANGES, NOW, F, check, hit, shift_day


@pytest.mark.parametrize("keyword, first, last", KEYWORD_RANGES)
def test_range_keyword_on_dates(keyword, first, last):
    before, after = shift_day(first, -1), shift_day(last, 1)
    expectations = {
        "=": {before: False, first: True, last: True, after: False},
        "date": {before: False, first: True, last: True, after: False},
        "!=": {before: True, first: False, last: False, after: True, None: True},
        "gt": {last: False, after: True},
        "gte": {before: False, first: True},
        "lt": {before: True, first: False},
        "lte": {last: True, after: False},
    }
    for operator, cases in expectations.items():
        for stored, expected in cases.items():
            assert hit(F("dob", operator, keyword), {"dob": stored}) is expected, (operator, stored)


@pytest.mark.parametrize("keyword, first, last", KEYWORD_RANGES)
def test_range_keyword_on_datetimes(keyword, first, last):
    start, end = f"{first} 00:00:00", f"{last} 23:59:59.999999"
    just_before, just_after = f"{shift_day(first, -1)} 23:59:59", f"{shift_day(last, 1)} 00:00:00"
    expectations = {
        "=": {just_before: False, start: True, end: True, just_after: False},
        "gt": {end: False, just_after: True},
        "gte": {just_before: False, start: True},
        "lt": {just_before: True, start: False},
        "lte": {end: True, just_after: False},
    }
    for operator, cases in expectations.items():
        for stored, expected in cases.items():
            assert hit(F("seen", operator, keyword), {"seen": stored}) is expected, (operator, stored)


@pytest.mark.parametrize(
    "now, keyword, first, last",
    [
        (datetime(2024, 5, 19, 23, 59, tzinfo=timezone.utc), "week_this", "2024-05-13", "2024-05-19"),
        (datetime(2024, 5, 13, 0, 0, tzinfo=timezone.utc), "week_last", "2024-05-06", "2024-05-12"),
        (datetime(2024, 3, 31, tzinfo=timezone.utc), "month_last", "2024-02-01", "2024-02-29"),
        (datetime(2024, 1, 31, tzinfo=timezone.utc), "month_next", "2024-02-01", "2024-02-29"),
        (datetime(2024, 12, 31, 23, 0, tzinfo=timezone.utc), "tomorrow", "2025-01-01", "2025-01-01"),
        (datetime(2024, 5, 15, 23, 30, tzinfo=timezone(timedelta(hours=-2))), "today", "2024-05-16", "2024-05-16"),
        (datetime(2024, 5, 15, 10, 0), "today", "2024-05-15", "2024-05-15"),
    ],
)
def test_range_keyword_edges(now, keyword, first, last):
    for stored, expected in ((shift_day(first, -1), False), (first, True), (last, True), (shift_day(last, 1), False)):
        assert hit(F("dob", "=", keyword), {"dob": stored}, now=now) is expected, stored


@pytest.mark.parametrize("keyword", ["birthday", "anniversary", "BIRTHDAY"])
def test_birthday_and_anniversary(keyword):
    assert hit(F("dob", "=", keyword), {"dob": "1990-05-15"})
    assert not hit(F("dob", "=", keyword), {"dob": "1990-05-16"})
    assert not hit(F("dob", "!=", keyword), {"dob": "1990-05-15"})
    assert hit(F("dob", "!=", keyword), {"dob": "1990-04-15"})
    assert hit(F("dob", "!=", keyword), {"dob": None})
    assert hit(F("seen", "=", keyword), {"seen": "2001-05-15 23:00:00"})
    assert hit(F("seen", "date", keyword), {"seen": "2001-05-15 01:00:00"})
    assert hit(F("dob", "in", [keyword]), {"dob": "2000-05-15"})


@pytest.mark.parametrize(
    "field, operator, interval, stored, expected",
    [
        ("dob", "=", "-1 week", "2024-05-08", True),
        ("dob", "=", "-1 week", "2024-05-09", False),
        ("dob", "gt", "-1 week", "2024-05-09", True),
        ("dob", "gt", "-1 week", "2024-05-08", False),
        ("dob", "gte", "-1 week", "2024-05-08", True),
        ("dob", "lt", "-1 week", "2024-05-07", True),
        ("dob", "lte", "-1 week", "2024-05-08", True),
        ("dob", "lte", "-1 week", "2024-05-09", False),
        ("dob", "=", "+5 days", "2024-05-20", True),
        ("dob", "=", "+1 day", "2024-05-16", True),
        ("dob", "=", "-2 months", "2024-03-15", True),
        ("dob", "=", "+1 month", "2024-06-15", True),
        ("dob", "=", "-1 year", "2023-05-15", True),
        ("dob", "=", "-2 years", "2022-05-15", True),
        ("dob", "=", "-13 hours", "2024-05-14", True),
        ("dob", "=", "- 3 WEEKS", "2024-04-24", True),
        ("dob", "!=", "-1 week", "2024-05-08", False),
        ("dob", "!=", "-1 week", None, True),
        ("seen", "=", "-3 hours", "2024-05-15 01:00:00", True),
        ("seen", "=", "-3 hours", "2024-05-14 23:00:00", False),
        ("seen", "!=", "-3 hours", "2024-05-15 01:00:00", False),
        ("seen", "gt", "-3 hours", "2024-05-15 09:30:01", True),
        ("seen", "gt", "-3 hours", "2024-05-15 09:30:00", False),
        ("seen", "gte", "-3 hours", "2024-05-15 09:30:00", True),
        ("seen", "lt", "-3 hours", "2024-05-15 09:29:59", True),
        ("seen", "lt", "-3 hours", "2024-05-15 09:30:00", False),
        ("seen", "lte", "-3 hours", "2024-05-15 09:30:00", True),
        ("seen", "lte", "-3 hours", "2024-05-15 09:30:01", False),
        ("seen", "gte", "-30 minutes", "2024-05-15 12:00:00", True),
        ("seen", "gte", "-30 minutes", "2024-05-15 11:59:59", False),
        ("seen", "gte", "-1 minute", "2024-05-15T12:29Z", True),
        ("seen", "lt", "+1 hour", "2024-05-15 13:29:59", True),
        ("seen", "date", "-1 day", "2024-05-14 08:00:00", True),
        ("seen", "between", ["-1 week", "today"], "2024-05-15 20:00:00", True),
        ("seen", "between", ["-1 week", "today"], "2024-05-08 12:29:59", False),
    ],
)
def test_intervals(field, operator, interval, stored, expected):
    check(field, operator, interval, stored, expected)


def test_relative_values_follow_now():
    matcher = compile_filters([F("dob", "=", "today"), F("seen", "gt", "-1 hour", glue="or")])
    subject = {"lead": {"dob": "2024-05-15", "seen": "2024-05-15 12:00:00"}}
    assert matcher.matches(subject, NOW)
    assert matcher.matches(subject, NOW + timedelta(minutes=20))
    assert not matcher.matches(subject, NOW + timedelta(days=1))
    assert matcher.matches(subject, NOW)
