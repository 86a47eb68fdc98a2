"""Unit tests for chalicelib.domain.filters (segment filter validation and evaluation)."""
import re
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import assume, given, settings, strategies as st

from chalicelib.domain.filters import NEGATIONS, compile_filters, validate

NOW = datetime(2024, 5, 15, 12, 30, tzinfo=timezone.utc)  # a Wednesday
FIELDS = {
    "lead": {"email": "email", "firstname": "text", "age": "number", "dob": "date", "seen": "datetime",
             "opens": "time", "vip": "boolean", "colors": "multiselect", "plan": "select", "city": "text",
             "country": "country"},
    "company": {"companyname": "text", "employees": "number", "founded": "date"},
}
SAMPLE_TYPES = {**FIELDS["lead"], "tags": "tags", "leadlist": "leadlist", "dnc_bounced": "boolean",
                "utm_source": "text", "date_added": "datetime"}


def F(field, operator, value=None, type=None, glue="and", obj="lead"):
    """One normalised filter; ``type`` defaults to the field's."""
    default = FIELDS["company"].get(field) if obj == "company" else SAMPLE_TYPES.get(field)
    return {"glue": glue, "field": field, "object": obj, "type": type or default, "operator": operator,
            "properties": {"filter": value}}


def hit(filters, lead=None, companies=(), now=NOW):
    filters = filters if isinstance(filters, list) else [filters]
    assert validate(filters, FIELDS) == {}
    return compile_filters(filters).matches({"lead": lead or {}, "companies": list(companies)}, now)


def check(field, operator, value, stored, expected, now=NOW):
    assert hit(F(field, operator, value), {field: stored}, now=now) is expected


# --- text ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("operator, value, stored, expected", [
    ("=", "foo", "Foo", True), ("=", "FOO", " foo ", True), ("=", "fo", "foo", False), ("=", "foo", None, False),
    ("=", "foo", "", False), ("=", "12", 12, True), ("=", " Foo ", "foo", True),
    ("!=", "foo", "Foo", False), ("!=", "foo", "bar", True), ("!=", "foo", None, True), ("!=", "foo", "", True),
    ("like", "world", "Hello World", True), ("like", "%world", "hello world", True),
    ("like", "%world", "hello world!", False), ("like", "h_llo", "hello", True), ("like", "hel%", "HELLO", True),
    ("like", r"h\_llo", "hallo", False), ("like", r"h\_llo", "h_llo", True), ("like", "x", None, False),
    ("like", "a%c", "a\nb\nc", True),
    ("!like", "xyz", "hello", True), ("!like", "ell", "hello", False), ("!like", "x", None, True),
    ("startsWith", "he", "Hello", True), ("startsWith", "lo", "Hello", False), ("startsWith", "10%", "100", False),
    ("startsWith", "10%", "10%x", True), ("startsWith", "a_", "abc", False), ("startsWith", "a_", "a_c", True),
    ("endsWith", "LO", "Hello", True), ("endsWith", "he", "Hello", False), ("endsWith", "%", "x%", True),
    ("endsWith", "%", "x", False), ("endsWith", "x", None, False),
    ("contains", "ELL", "Hello", True), ("contains", "z", "Hello", False), ("contains", "0% o", "50% off", True),
    ("contains", "0% o", "500 off", False),
    ("regexp", r"\d+$", "abc123", True), ("regexp", "^abc$", "ABC", True), ("regexp", "^b", "abc", False),
    ("regexp", ".*", None, False),
    ("!regexp", "^b", "abc", True), ("!regexp", "^a", "abc", False), ("!regexp", "x", None, True),
    ("in", ["red", "blue"], "Red", True), ("in", ["red"], "green", False), ("in", "RED", " red ", True),
    ("in", ["red"], None, False), ("in", [1, 2], "2", True),
    ("!in", ["red"], "green", True), ("!in", ["RED"], "red", False), ("!in", ["red"], None, True),
    ("empty", None, None, True), ("empty", None, "", True), ("empty", None, [], True), ("empty", None, "x", False),
    ("!empty", None, None, False), ("!empty", None, "", False), ("!empty", None, "x", True),
    ("!empty", "ignored", 0, True),
])
def test_text_operators(operator, value, stored, expected):
    check("firstname", operator, value, stored, expected)


def test_text_type_missing_falls_back_to_text():
    matcher = compile_filters([{**F("age", "=", "12"), "type": None}])
    assert matcher.matches({"lead": {"age": "12"}}, NOW)
    assert not matcher.matches({"lead": {"age": "12.0"}}, NOW)


@pytest.mark.parametrize("operator, value, stored, expected", [
    ("=", "option a", "Option A", True), ("=", " OPTION A ", "option a", True), ("!=", "option a", "Option B", True),
    ("in", ["option a", "option b"], "Option B", True), ("in", ["option a"], "Option C", False),
    ("!in", ["option a"], "Option C", True), ("!in", ["OPTION C"], "option c", False), ("!in", ["x"], None, True),
    ("regexp", "^option", "Option A", True), ("empty", None, "", True),
])
def test_select_operators(operator, value, stored, expected):
    check("plan", operator, value, stored, expected)


# --- numbers, booleans, times --------------------------------------------------------------------

@pytest.mark.parametrize("operator, value, stored, expected", [
    ("=", "12", 12, True), ("=", 12.5, "12.5", True), ("=", 1, "abc", False), ("=", 0, None, False),
    ("=", 1, True, False), ("=", "1e2", "100", True),
    ("!=", 13, 12, True), ("!=", 12.0, 12, False), ("!=", 1, "abc", True), ("!=", 1, None, True),
    ("gt", 9, 10, True), ("gt", 9, 9, False), ("gt", "9", "10", True), ("gt", 0, "abc", False),
    ("gte", 9, 9, True), ("gte", 9, 8, False), ("gte", "-1.5", -1.5, True),
    ("lt", 9, 8, True), ("lt", 9, 9, False), ("lt", 9, None, False),
    ("lte", "9", 9, True), ("lte", 9, 10, False),
    ("between", [1, 5], 5, True), ("between", [1, 5], 1, True), ("between", [1, 5], 6, False),
    ("between", {"from": 1, "to": 5}, "3", True), ("between", [5, 1], 3, False), ("between", [1, 5], None, False),
    ("!between", [1, 5], 6, True), ("!between", [1, 5], 3, False), ("!between", [1, 5], None, True),
    ("in", [1, "3"], 3, True), ("in", [1, 3], 2, False), ("in", 2, "2.0", True),
    ("!in", [1, 3], 2, True), ("!in", [1, 3], 1, False), ("!in", [1], None, True),
    ("empty", None, None, True), ("empty", None, 0, False), ("!empty", None, 0, True),
    ("like", "2", 123, True), ("contains", "2", 123, True), ("startsWith", "12", 123.0, True),
    ("regexp", "^1", 123, True), ("!regexp", "^1", 123, False),
])
def test_number_operators(operator, value, stored, expected):
    check("age", operator, value, stored, expected)


@pytest.mark.parametrize("value", [1, "1", True, "true"])
@pytest.mark.parametrize("stored, expected", [
    (True, True), (1, True), ("1", True), ("yes", True), (False, False), (0, False), ("0", False), ("no", False),
    (None, False), ("maybe", False),
])
def test_boolean_equals_true(value, stored, expected):
    check("vip", "=", value, stored, expected)
    check("vip", "!=", value, stored, not expected)


@pytest.mark.parametrize("value", [0, "0", False, "false"])
@pytest.mark.parametrize("stored, expected", [(False, True), (0, True), ("0", True), (True, False), (None, False)])
def test_boolean_equals_false(value, stored, expected):
    check("vip", "=", value, stored, expected)
    check("vip", "!=", value, stored, not expected)


@pytest.mark.parametrize("field", ["dnc_unsubscribed", "dnc_bounced", "dnc_manual", "dnc_unsubscribed_sms",
                                   "dnc_bounced_sms"])
@pytest.mark.parametrize("operator, value, stored, expected", [
    ("=", 1, True, True), ("=", "1", False, False), ("=", True, None, False), ("=", 0, False, True),
    ("=", "0", None, False), ("!=", 1, True, False), ("!=", 1, False, True), ("!=", 1, None, True),
    ("!=", 0, True, True), ("empty", None, None, True), ("!empty", None, False, True),
])
def test_dnc_booleans(field, operator, value, stored, expected):
    filter_ = F(field, operator, value, type="boolean")
    assert hit(filter_, {field: stored}) is expected
    assert compile_filters([{**filter_, "type": None}]).matches({"lead": {field: stored}}, NOW) is expected


@pytest.mark.parametrize("operator, value, stored, expected", [
    ("=", "10:30", "10:30:00", True), ("=", "10:30:00", "10:30", True), ("=", "10:30", "10:31", False),
    ("!=", "10:30", "10:31", True), ("!=", "10:30", None, True),
    ("gt", "09:00", "10:30", True), ("gt", "10:30", "10:30", False), ("gte", "10:30", "10:30:00", True),
    ("lt", "10:30", "9:15", True), ("lte", "10:30", "10:30:01", False),
    ("between", ["09:00", "17:00"], "17:00:00", True), ("between", ["09:00", "17:00"], "17:00:01", False),
    ("in", ["10:30", "11:00"], "11:00:00", True), ("!in", ["10:30"], "11:00", True),
    ("=", "10:30", "garbage", False), ("=", "10:30", "25:30", False), ("like", "10:%", "10:45", True),
])
def test_time_operators(operator, value, stored, expected):
    check("opens", operator, value, stored, expected)


# --- absolute dates ------------------------------------------------------------------------------

@pytest.mark.parametrize("operator, value, stored, expected", [
    ("=", "2024-05-15", "2024-05-15", True), ("=", "2024-05-15", "2024-05-15 10:00:00", True),
    ("=", "2024-05-15", "2024-05-16", False), ("=", "2024-05-15T00:00:00+00:00", "2024-05-15", True),
    ("=", "2024-05-15", "2024-05-15T01:00:00+02:00", False), ("=", "2024-05-15", "not a date", False),
    ("!=", "2024-05-15", "2024-05-16", True), ("!=", "2024-05-15", None, True), ("!=", "2024-05-15", "x", True),
    ("!=", "2024-05-15", "2024-05-15", False),
    ("gt", "2024-05-15", "2024-05-16", True), ("gt", "2024-05-15", "2024-05-15", False),
    ("gte", "2024-05-15", "2024-05-15", True), ("gte", "2024-05-15", "2024-05-14", False),
    ("lt", "2024-05-15", "2024-05-14", True), ("lt", "2024-05-15", "2024-05-15", False),
    ("lte", "2024-05-15", "2024-05-15", True), ("lte", "2024-05-15", "2024-05-16", False),
    ("gt", "2024-05-15", None, False), ("lt", "2024-05-15", "", False),
    ("between", ["2024-05-01", "2024-05-31"], "2024-05-31", True),
    ("between", ["2024-05-01", "2024-05-31"], "2024-06-01", False),
    ("between", {"from": "2024-05-01", "to": "2024-05-31"}, "2024-05-01", True),
    ("!between", ["2024-05-01", "2024-05-31"], "2024-04-30", True),
    ("in", ["2024-01-01", "2024-05-15"], "2024-05-15", True), ("!in", ["2024-01-01"], "2024-05-15", True),
    ("date", "2024-05-15", "2024-05-15", True), ("date", "2024-05-15 18:00:00", "2024-05-15", True),
    ("like", "2024-05%", "2024-05-03", True), ("!like", "2024-05%", "2024-06-03", True),
    ("empty", None, None, True), ("!empty", None, "2024-05-15", True),
])
def test_date_operators(operator, value, stored, expected):
    check("dob", operator, value, stored, expected)


@pytest.mark.parametrize("operator, value, stored, expected", [
    ("=", "2024-05-15 10:00:00", "2024-05-15T10:00:00+00:00", True),
    ("=", "2024-05-15 10:00:00", "2024-05-15T12:00:00+02:00", True),
    ("=", "2024-05-15T10:00:00Z", "2024-05-15 10:00:00", True),
    ("=", "2024-05-15 10:00:00", "2024-05-15 10:00:01", False),
    ("=", "2024-05-15", "2024-05-15 10:00:00", False), ("=", "2024-05-15", "2024-05-15", True),
    ("!=", "2024-05-15 10:00:00", "2024-05-15 10:00:01", True), ("!=", "2024-05-15 10:00:00", None, True),
    ("date", "2024-05-15", "2024-05-15 23:59:59", True), ("date", "2024-05-15", "2024-05-16 00:00:00", False),
    ("date", "2024-05-15 08:00:00", "2024-05-15 23:00:00", True),
    ("gt", "2024-05-15 10:00:00", "2024-05-15 10:00:01", True),
    ("gt", "2024-05-15 10:00:00", "2024-05-15 10:00:00", False),
    ("gte", "2024-05-15 10:00:00", "2024-05-15 10:00:00", True), ("gte", "2024-05-15 10:00:00", "2024-05-15", False),
    ("lt", "2024-05-15 10:00:00", "2024-05-15 09:59:59", True),
    ("lt", "2024-05-15 10:00:00", "2024-05-15 10:00:00", False),
    ("lte", "2024-05-15 10:00:00", "2024-05-15 10:00:00", True),
    ("lte", "2024-05-15 10:00:00", "2024-05-15 10:00:00.5", False),
    ("between", ["2024-05-01 00:00:00", "2024-05-31 23:59:59"], "2024-05-31 23:59:59", True),
    ("between", ["2024-05-01 00:00:00", "2024-05-31 23:59:59"], "2024-06-01 00:00:00", False),
    ("!between", ["2024-05-01", "2024-05-31"], "2024-05-31 12:00:00", True),
    ("in", ["2024-05-15 10:00:00"], "2024-05-15T10:00:00Z", True),
])
def test_datetime_operators(operator, value, stored, expected):
    check("seen", operator, value, stored, expected)


def test_owner_lookup_id_compares_numbers():
    filters = [F("owner_id", "=", "5", type="lookup_id")]
    assert hit(filters, {"owner_id": 5})
    assert not hit(filters, {"owner_id": None})
    assert hit([F("owner_id", "!=", 5, type="lookup_id")], {"owner_id": None})


def test_decimal_values_as_dynamodb_returns_them():
    assert hit(F("age", "gt", 2), {"age": Decimal("2.5")})
    assert hit(F("age", "in", [Decimal("3")]), {"age": 3})
    assert hit(F("leadlist", "in", [4]), {"leadlist": [Decimal("4")]})
    assert hit(F("vip", "=", 1), {"vip": Decimal("1")})
    assert hit(F("tags", "in", [2]), {"tags": [{"id": Decimal("2"), "tag": "x"}]})
    assert not hit(F("age", "=", 1), {"age": Decimal("sNaN")})


def test_special_date_fields_are_datetimes():
    filter_ = {**F("date_added", "gt", "2024-05-15 10:00:00"), "type": None}
    matcher = compile_filters([filter_])
    assert matcher.matches({"lead": {"date_added": "2024-05-15 10:00:01"}}, NOW)
    assert not matcher.matches({"lead": {"date_added": "2024-05-15 10:00:00"}}, NOW)


# --- relative dates ------------------------------------------------------------------------------

KEYWORD_RANGES = [  # NOW is Wednesday 2024-05-15: (keyword, first day inside, last day inside)
    ("today", "2024-05-15", "2024-05-15"), ("tomorrow", "2024-05-16", "2024-05-16"),
    ("yesterday", "2024-05-14", "2024-05-14"), ("week_this", "2024-05-13", "2024-05-19"),
    ("week_last", "2024-05-06", "2024-05-12"), ("week_next", "2024-05-20", "2024-05-26"),
    ("month_this", "2024-05-01", "2024-05-31"), ("month_last", "2024-04-01", "2024-04-30"),
    ("month_next", "2024-06-01", "2024-06-30"), ("year_this", "2024-01-01", "2024-12-31"),
    ("year_last", "2023-01-01", "2023-12-31"), ("year_next", "2025-01-01", "2025-12-31"),
]


def _shift(day, days):
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()


@pytest.mark.parametrize("keyword, first, last", KEYWORD_RANGES)
def test_range_keyword_on_dates(keyword, first, last):
    before, after = _shift(first, -1), _shift(last, 1)
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
    just_before, just_after = f"{_shift(first, -1)} 23:59:59", f"{_shift(last, 1)} 00:00:00"
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


@pytest.mark.parametrize("now, keyword, first, last", [
    (datetime(2024, 5, 19, 23, 59, tzinfo=timezone.utc), "week_this", "2024-05-13", "2024-05-19"),
    (datetime(2024, 5, 13, 0, 0, tzinfo=timezone.utc), "week_last", "2024-05-06", "2024-05-12"),
    (datetime(2024, 3, 31, tzinfo=timezone.utc), "month_last", "2024-02-01", "2024-02-29"),
    (datetime(2024, 1, 31, tzinfo=timezone.utc), "month_next", "2024-02-01", "2024-02-29"),
    (datetime(2024, 12, 31, 23, 0, tzinfo=timezone.utc), "tomorrow", "2025-01-01", "2025-01-01"),
    (datetime(2024, 5, 15, 23, 30, tzinfo=timezone(timedelta(hours=-2))), "today", "2024-05-16", "2024-05-16"),
    (datetime(2024, 5, 15, 10, 0), "today", "2024-05-15", "2024-05-15"),
])
def test_range_keyword_edges(now, keyword, first, last):
    for stored, expected in ((_shift(first, -1), False), (first, True), (last, True), (_shift(last, 1), False)):
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


@pytest.mark.parametrize("field, operator, interval, stored, expected", [
    ("dob", "=", "-1 week", "2024-05-08", True), ("dob", "=", "-1 week", "2024-05-09", False),
    ("dob", "gt", "-1 week", "2024-05-09", True), ("dob", "gt", "-1 week", "2024-05-08", False),
    ("dob", "gte", "-1 week", "2024-05-08", True), ("dob", "lt", "-1 week", "2024-05-07", True),
    ("dob", "lte", "-1 week", "2024-05-08", True), ("dob", "lte", "-1 week", "2024-05-09", False),
    ("dob", "=", "+5 days", "2024-05-20", True), ("dob", "=", "+1 day", "2024-05-16", True),
    ("dob", "=", "-2 months", "2024-03-15", True), ("dob", "=", "+1 month", "2024-06-15", True),
    ("dob", "=", "-1 year", "2023-05-15", True), ("dob", "=", "-2 years", "2022-05-15", True),
    ("dob", "=", "-13 hours", "2024-05-14", True), ("dob", "=", "- 3 WEEKS", "2024-04-24", True),
    ("dob", "!=", "-1 week", "2024-05-08", False), ("dob", "!=", "-1 week", None, True),
    ("seen", "=", "-3 hours", "2024-05-15 01:00:00", True), ("seen", "=", "-3 hours", "2024-05-14 23:00:00", False),
    ("seen", "!=", "-3 hours", "2024-05-15 01:00:00", False),
    ("seen", "gt", "-3 hours", "2024-05-15 09:30:01", True), ("seen", "gt", "-3 hours", "2024-05-15 09:30:00", False),
    ("seen", "gte", "-3 hours", "2024-05-15 09:30:00", True), ("seen", "lt", "-3 hours", "2024-05-15 09:29:59", True),
    ("seen", "lt", "-3 hours", "2024-05-15 09:30:00", False),
    ("seen", "lte", "-3 hours", "2024-05-15 09:30:00", True), ("seen", "lte", "-3 hours", "2024-05-15 09:30:01", False),
    ("seen", "gte", "-30 minutes", "2024-05-15 12:00:00", True),
    ("seen", "gte", "-30 minutes", "2024-05-15 11:59:59", False),
    ("seen", "gte", "-1 minute", "2024-05-15T12:29Z", True),
    ("seen", "lt", "+1 hour", "2024-05-15 13:29:59", True), ("seen", "date", "-1 day", "2024-05-14 08:00:00", True),
    ("seen", "between", ["-1 week", "today"], "2024-05-15 20:00:00", True),
    ("seen", "between", ["-1 week", "today"], "2024-05-08 12:29:59", False),
])
def test_intervals(field, operator, interval, stored, expected):
    check(field, operator, interval, stored, expected)


def test_relative_values_follow_now():
    matcher = compile_filters([F("dob", "=", "today"), F("seen", "gt", "-1 hour", glue="or")])
    subject = {"lead": {"dob": "2024-05-15", "seen": "2024-05-15 12:00:00"}}
    assert matcher.matches(subject, NOW)
    assert matcher.matches(subject, NOW + timedelta(minutes=20))
    assert not matcher.matches(subject, NOW + timedelta(days=1))
    assert matcher.matches(subject, NOW)


# --- multiselect, tags, segments, UTM ------------------------------------------------------------

@pytest.mark.parametrize("stored", [["Red", "Blue"], "red|Blue", ("Red", "blue")])
@pytest.mark.parametrize("operator, value, expected", [
    ("=", "RED", True), ("=", "green", False), ("=", "re", False), ("!=", "green", True), ("!=", "red", False),
    ("in", ["green", "blue"], True), ("in", ["green"], False), ("in", "blue", True),
    ("!in", ["green"], True), ("!in", ["blue", "x"], False),
    ("like", "%d|b%", True), ("contains", "blue", True), ("startsWith", "red|", True), ("endsWith", "|blue", True),
    ("regexp", r"^red\|", True), ("!regexp", "green", True), ("!like", "%green%", True),
    ("empty", None, False), ("!empty", None, True),
])
def test_multiselect_operators(stored, operator, value, expected):
    check("colors", operator, value, stored, expected)


@pytest.mark.parametrize("stored", [None, [], ""])
@pytest.mark.parametrize("operator, value, expected", [
    ("=", "red", False), ("!=", "red", True), ("in", ["red"], False), ("!in", ["red"], True), ("like", "r", False),
    ("empty", None, True), ("!empty", None, False),
])
def test_multiselect_missing(stored, operator, value, expected):
    check("colors", operator, value, stored, expected)


TAGS = [{"id": 1, "tag": "VIP"}, {"id": 2, "tag": "Lead Magnet"}, {"id": 7, "tag": "42"}]


@pytest.mark.parametrize("operator, value, stored, expected", [
    ("in", [1], TAGS, True), ("in", ["2"], TAGS, True), ("in", ["vip"], TAGS, True),
    ("in", ["LEAD MAGNET"], TAGS, True), ("in", [3, "other"], TAGS, False), ("in", ["42"], TAGS, True),
    ("in", [42], TAGS, False), ("in", 7, TAGS, True), ("in", [1], [], False), ("in", [1], None, False),
    ("!in", [3], TAGS, True), ("!in", ["vip"], TAGS, False), ("!in", [3, 2], TAGS, False), ("!in", [1], None, True),
    ("!in", [1], [], True),
    ("empty", None, [], True), ("empty", None, None, True), ("empty", None, TAGS, False),
    ("!empty", None, TAGS, True), ("!empty", None, [], False),
])
def test_tags(operator, value, stored, expected):
    check("tags", operator, value, stored, expected)
    untyped = {**F("tags", operator, value), "type": None}
    assert compile_filters([untyped]).matches({"lead": {"tags": stored}}, NOW) is expected


@pytest.mark.parametrize("operator, value, stored, expected", [
    ("in", [5], [3, 5], True), ("in", ["3"], [3, 5], True), ("in", [4], [3, 5], False), ("in", 5, ["5"], True),
    ("!in", [4], [3, 5], True), ("!in", [3, 4], [3, 5], False), ("in", [3], None, False), ("!in", [3], None, True),
    ("empty", None, [], True), ("empty", None, [3], False), ("!empty", None, [3], True), ("!empty", None, None, False),
])
def test_leadlist(operator, value, stored, expected):
    check("leadlist", operator, value, stored, expected)


@pytest.mark.parametrize("operator, value, stored, expected", [
    ("=", "google", ["Google", "newsletter"], True), ("=", "bing", ["Google", "newsletter"], False),
    ("=", "google", "google", True), ("=", "google", None, False), ("=", "google", [], False),
    ("!=", "google", ["Google", "newsletter"], False), ("!=", "bing", ["Google", "newsletter"], True),
    ("!=", "google", None, True), ("!=", "google", [], True),
    ("like", "%news%", ["Google", "newsletter"], True), ("!like", "%news%", ["Google", "newsletter"], False),
    ("!like", "%news%", ["Google"], True), ("regexp", "^goo", ["bing", "Google"], True),
    ("!regexp", "^goo", ["bing", "Google"], False), ("contains", "letter", ["newsletter"], True),
    ("in", ["bing", "newsletter"], ["Google", "newsletter"], True), ("!in", ["bing"], ["Google"], True),
    ("!in", ["google"], ["Google", "x"], False),
    ("empty", None, [], True), ("empty", None, None, True), ("empty", None, ["", None], True),
    ("empty", None, ["x"], False), ("!empty", None, ["x"], True), ("!empty", None, [], False),
])
def test_utm_lists(operator, value, stored, expected):
    check("utm_source", operator, value, stored, expected)


# --- companies -----------------------------------------------------------------------------------

NO_COMPANY, ACME, BOTH = [], [{"companyname": "Acme", "employees": 10}], [
    {"companyname": "Acme", "employees": 10}, {"companyname": "Globex", "employees": 500}]


@pytest.mark.parametrize("field, operator, value, expected", [
    ("companyname", "=", "acme", (False, True, True)),
    ("companyname", "!=", "acme", (True, False, False)),
    ("companyname", "!=", "globex", (True, True, False)),
    ("companyname", "like", "%ex", (False, False, True)),
    ("companyname", "!like", "%ex", (True, True, False)),
    ("companyname", "regexp", "^glo", (False, False, True)),
    ("companyname", "!regexp", "^glo", (True, True, False)),
    ("companyname", "in", ["globex", "x"], (False, False, True)),
    ("companyname", "!in", ["globex"], (True, True, False)),
    ("companyname", "empty", None, (True, False, False)),
    ("companyname", "!empty", None, (False, True, True)),
    ("employees", "gt", 100, (False, False, True)),
    ("employees", "lte", 100, (False, True, True)),
    ("employees", "between", [1, 50], (False, True, True)),
    ("employees", "!between", [1, 50], (True, False, False)),
    ("employees", "!between", [100, 1000], (True, True, False)),
])
def test_company_filters(field, operator, value, expected):
    filter_ = F(field, operator, value, obj="company")
    assert tuple(hit(filter_, companies=companies) for companies in (NO_COMPANY, ACME, BOTH)) == expected


def test_company_with_missing_value_is_empty():
    assert hit(F("companyname", "empty", obj="company"), companies=[{"companyname": None}])
    assert hit(F("companyname", "!=", "acme", obj="company"), companies=[{}])
    assert not hit(F("companyname", "=", "acme", obj="company"), companies=[{}])


def test_company_and_lead_filters_combine():
    filters = [F("email", "like", "%@acme.com"), F("companyname", "=", "acme", obj="company")]
    assert hit(filters, {"email": "jo@acme.com"}, ACME)
    assert not hit(filters, {"email": "jo@acme.com"}, NO_COMPANY)
    assert not hit(filters, {"email": "jo@globex.com"}, ACME)


def test_company_filters_survive_odd_subjects():
    matcher = compile_filters([F("companyname", "!=", "acme", obj="company")])
    assert matcher.matches({"lead": {}, "companies": None}, NOW)
    assert matcher.matches({"lead": {}, "companies": ["not a dict"]}, NOW)
    assert matcher.matches({"lead": {}}, NOW)


# --- glue ----------------------------------------------------------------------------------------

A = F("email", "=", "a@x.io")
B = F("city", "=", "paris")
C = F("country", "=", "france", glue="or")


@pytest.mark.parametrize("lead, expected", [
    ({"email": "a@x.io", "city": "Paris"}, True), ({"email": "a@x.io"}, False), ({"city": "Paris"}, False),
    ({"country": "France"}, True), ({"email": "a@x.io", "country": "France"}, True), ({}, False),
])
def test_and_binds_tighter_than_or(lead, expected):
    assert hit([A, B, C], lead) is expected


@pytest.mark.parametrize("lead, expected", [
    ({"email": "a@x.io"}, True), ({"city": "Paris"}, False), ({"city": "Paris", "country": "France"}, True),
])
def test_or_then_and(lead, expected):
    filters = [A, {**B, "glue": "or"}, {**C, "glue": "and"}]
    assert hit(filters, lead) is expected


def test_two_and_groups():
    filters = [A, B, C, F("firstname", "=", "jo")]
    assert hit(filters, {"country": "France", "firstname": "Jo"})
    assert not hit(filters, {"country": "France", "city": "Paris"})
    assert hit(filters, {"email": "a@x.io", "city": "Paris"})


def test_no_filters_match_nobody():
    matcher = compile_filters([])
    assert not matcher.matches({"lead": {"email": "a@x.io"}, "companies": []}, NOW)
    assert (matcher.relative, matcher.segments, matcher.objects) == (False, set(), set())


# --- matcher attributes --------------------------------------------------------------------------

@pytest.mark.parametrize("filters, relative", [
    ([F("dob", "=", "2024-05-15")], False), ([F("dob", "=", "today")], True), ([F("seen", "gt", "-1 week")], True),
    ([F("dob", "=", "birthday")], True), ([F("dob", "between", ["2024-01-01", "month_next"])], True),
    ([F("dob", "empty", "today")], False), ([F("firstname", "=", "today")], False),
    ([F("email", "=", "x"), F("founded", "lt", "year_this", obj="company", glue="or")], True),
    ([{**F("date_added", "gt", "-1 day"), "type": None}], True), ([F("dob", "like", "2024-%")], False),
])
def test_relative(filters, relative):
    assert compile_filters(filters).relative is relative


def test_segments_and_objects():
    matcher = compile_filters([F("leadlist", "in", [3, "5"]), F("leadlist", "!in", 7, glue="or"),
                               F("leadlist", "empty"), F("companyname", "=", "acme", obj="company")])
    assert matcher.segments == {3, 5, 7}
    assert matcher.objects == {"lead", "company"}
    assert compile_filters([F("email", "=", "x")]).objects == {"lead"}
    assert compile_filters([F("email", "=", "x")]).segments == set()


def test_patterns_compile_once(monkeypatch):
    matcher = compile_filters([F("firstname", "regexp", "^jo"), F("firstname", "like", "%an%"),
                               F("dob", "=", "2024-05-15")])

    def refuse(*args, **kwargs):
        raise AssertionError("compiled during evaluation")
    monkeypatch.setattr(re, "compile", refuse)
    assert matcher.matches({"lead": {"firstname": "Joan", "dob": "2024-05-15"}}, NOW)


# --- validation ----------------------------------------------------------------------------------

def test_valid_filters_have_no_errors():
    filters = [
        F("email", "like", "%@acme.com"), F("age", "in", 3), F("age", "between", {"from": "1", "to": 2.5}),
        F("dob", "gt", "-1 week"), F("seen", "date", "2024-05-15T10:00:00+02:00"), F("dob", "=", "anniversary"),
        F("tags", "in", [1, "vip", "2"]), F("leadlist", "!in", ["4"]), F("dnc_bounced", "=", "0"),
        F("utm_source", "contains", "goo"), F("companyname", "!=", "acme", obj="company", glue="or"),
        F("colors", "in", ["red"]), F("opens", "between", ["09:00", "17:30:00"]), F("vip", "empty", "whatever"),
        F("points", "gte", 10, type="number"), F("owner_id", "empty"), F("firstname", "regexp", r"^\w+$"),
        {**F("id", "=", 5), "type": None}, F("plan", "!in", "basic"), F("city", "=", ""),
        F("last_active", "lt", "month_this", type="datetime"), F("leadlist", "empty"),
    ]
    assert validate(filters, FIELDS) == {}


@pytest.mark.parametrize("filter_, key, message", [
    (F("foo", "=", "x"), "filters[0][field]", "Unknown field 'foo' for object 'lead'."),
    (F("email", "=", "x", obj="company"), "filters[0][field]", "Unknown field 'email' for object 'company'."),
    (F("companyname", "=", "x", obj="account"), "filters[0][object]", "Unknown object 'account'"),
    (F("email", "zz", "x"), "filters[0][operator]", "Unknown operator 'zz'."),
    (F("email", "=", "x", type="weird"), "filters[0][type]", "Unknown type 'weird'."),
    (F("tags", "in", [1], type="text"), "filters[0][type]", "Type 'text' does not apply to field 'tags'."),
    (F("email", "in", ["x"], type="leadlist"), "filters[0][type]", "Type 'leadlist' does not apply to field 'email'"),
    (F("email", "=", "x", glue="xor"), "filters[0][glue]", "Unknown glue 'xor'"),
    (F("vip", "regexp", "1"), "filters[0][operator]", "Operator 'regexp' does not apply to type 'boolean'."),
    (F("vip", "gt", 1), "filters[0][operator]", "Operator 'gt' does not apply to type 'boolean'."),
    (F("email", "date", "2024-01-01"), "filters[0][operator]", "Operator 'date' does not apply to type 'email'."),
    (F("age", "date", "2024-01-01"), "filters[0][operator]", "Operator 'date' does not apply to type 'number'."),
    (F("firstname", "gt", "a"), "filters[0][operator]", "Operator 'gt' does not apply to type 'text'."),
    (F("tags", "=", "vip"), "filters[0][operator]", "Operator '=' does not apply to type 'tags'."),
    (F("leadlist", "like", "3"), "filters[0][operator]", "Operator 'like' does not apply to type 'leadlist'."),
    (F("firstname", "regexp", "(unclosed"), "filters[0][properties][filter]", "Invalid regular expression"),
    (F("firstname", "!regexp", "[a-"), "filters[0][properties][filter]", "Invalid regular expression"),
    (F("dob", "=", "next tuesday"), "filters[0][properties][filter]", "'next tuesday' is not a date"),
    (F("seen", "gt", "2024-13-01"), "filters[0][properties][filter]", "is not a date"),
    (F("dob", "=", None), "filters[0][properties][filter]", "is not a date"),
    (F("dob", "=", "-1 fortnight"), "filters[0][properties][filter]", "is not a date"),
    (F("dob", "=", "+999999 years"), "filters[0][properties][filter]", "too large"),
    (F("dob", "gt", "birthday"), "filters[0][properties][filter]", "'birthday' only applies to"),
    (F("dob", "=", "9999-12-31"), "filters[0][properties][filter]", "out of range"),
    (F("age", "gt", "abc"), "filters[0][properties][filter]", "'abc' is not a number."),
    (F("age", "=", True), "filters[0][properties][filter]", "'True' is not a number."),
    (F("age", "in", [1, "x"]), "filters[0][properties][filter]", "'x' is not a number."),
    (F("age", "between", [1, "nan"]), "filters[0][properties][filter]", "'nan' is not a number."),
    (F("vip", "=", "maybe"), "filters[0][properties][filter]", "'maybe' is not a boolean"),
    (F("opens", "=", "25:00"), "filters[0][properties][filter]", "'25:00' is not a time"),
    (F("leadlist", "in", ["three"]), "filters[0][properties][filter]", "'three' is not a segment id."),
    (F("tags", "in", [None]), "filters[0][properties][filter]", "'None' is not a tag id or name."),
    (F("firstname", "in", None), "filters[0][properties][filter]", "A non-empty list of values is expected."),
    (F("firstname", "!in", []), "filters[0][properties][filter]", "A non-empty list of values is expected."),
    (F("firstname", "in", {"a": 1}), "filters[0][properties][filter]", "A non-empty list of values is expected."),
    (F("age", "between", [1]), "filters[0][properties][filter]", "Two bounds are expected"),
    (F("age", "!between", 5), "filters[0][properties][filter]", "Two bounds are expected"),
    (F("age", "between", {"from": 1}), "filters[0][properties][filter]", "Two bounds are expected"),
    (F("firstname", "=", None), "filters[0][properties][filter]", "A value is required."),
    (F("firstname", "like", ["a", "b"]), "filters[0][properties][filter]", "A single value is expected."),
])
def test_validation_errors(filter_, key, message):
    errors = validate([filter_], FIELDS)
    assert list(errors) == [key]
    (found,) = errors[key]
    assert message in found


def test_validation_indexes_and_collects_every_filter():
    filters = [F("email", "=", "ok"), F("nope", "=", "x", glue="or"), F("age", "gt", "x", glue="nand"), "junk"]
    errors = validate(filters, FIELDS)
    assert errors == {
        "filters[1][field]": ["Unknown field 'nope' for object 'lead'."],
        "filters[2][glue]": ["Unknown glue 'nand': use 'and' or 'or'."],
        "filters[2][properties][filter]": ["'x' is not a number."],
        "filters[3]": ["This value should be an object."],
    }


def test_validation_uses_the_field_type_when_type_is_missing():
    assert validate([{**F("vip", "gt", 1), "type": None}], FIELDS) == {
        "filters[0][operator]": ["Operator 'gt' does not apply to type 'boolean'."]}
    assert validate([{**F("tags", "in", ["vip"]), "type": None}], {}) == {}


# --- properties ----------------------------------------------------------------------------------

SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=True) | st.text(max_size=6)
ANYTHING = st.recursive(
    SCALARS | st.integers() | st.decimals()
    | st.sampled_from(["2024-05-15", "2024-05-15 10:00:00", "10:30", "a|b", "1", "0"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["id", "tag", "x"]), inner, max_size=2),
    max_leaves=6,
)
SMALL_TEXT = st.text(alphabet="aAb %_", max_size=3)
SMALL_NUMBER = st.integers(-3, 3) | st.sampled_from(["1", "2.0", " 3 ", "-1.5"])
SAMPLE_FILTERS = [
    F("firstname", "=", "ab"), F("firstname", "!like", "a%"), F("firstname", "regexp", "^a"),
    F("firstname", "startsWith", "a"), F("firstname", "!in", ["a", "b"]), F("age", "gt", 2),
    F("age", "!between", [1, 3]), F("age", "in", [1, 2]), F("dob", "=", "today"), F("dob", "gt", "-1 week"),
    F("dob", "!=", "birthday"), F("seen", "lte", "2024-05-15 10:00:00"), F("seen", "date", "yesterday"),
    F("seen", "between", ["-1 month", "+1 day"]), F("opens", "gte", "10:00"), F("opens", "in", ["10:30"]),
    F("vip", "=", 1), F("vip", "!=", 0), F("colors", "in", ["a", "b"]), F("colors", "!=", "a"),
    F("colors", "like", "%a|b%"), F("tags", "in", [1, "a"]), F("tags", "!in", ["2"]), F("leadlist", "in", [1]),
    F("leadlist", "!empty"), F("utm_source", "!=", "a"), F("utm_source", "contains", "a"),
    F("dnc_bounced", "=", 1), F("companyname", "!like", "a%", obj="company"),
    F("employees", "between", [1, 3], obj="company"), F("founded", "gt", "month_last", obj="company"),
    F("email", "empty"), F("email", "!empty"),
]
FAST = settings(max_examples=60, deadline=None)


@FAST
@given(st.lists(ANYTHING, min_size=len(SAMPLE_TYPES), max_size=len(SAMPLE_TYPES)),
       st.lists(st.dictionaries(st.sampled_from(["companyname", "employees", "founded"]), ANYTHING), max_size=3))
def test_evaluation_never_raises(values, companies):
    lead = dict(zip(SAMPLE_TYPES, values))
    for filter_ in SAMPLE_FILTERS:
        assert hit(filter_, lead, companies) in (True, False)


NEGATIVE_FIELDS = {"firstname": SMALL_TEXT, "colors": SMALL_TEXT, "utm_source": SMALL_TEXT, "age": SMALL_NUMBER}


@FAST
@given(st.sampled_from(sorted(NEGATIONS)), st.sampled_from(sorted(NEGATIVE_FIELDS)), st.data(), ANYTHING)
def test_negative_operator_is_not_positive(negative, field, data, stored):
    positive, values = NEGATIONS[negative], NEGATIVE_FIELDS[field]
    if positive == "in":
        value = data.draw(st.lists(values, min_size=1, max_size=3))
    elif positive == "between":
        value = data.draw(st.lists(values, min_size=2, max_size=2))
    else:
        value = data.draw(values)
    filters = [F(field, negative, value), F(field, positive, value)]
    assume(validate(filters, FIELDS) == {})
    lead = {field: stored}
    assert hit(filters[0], lead) is not hit(filters[1], lead)


@FAST
@given(st.sampled_from(["firstname", "plan", "colors", "utm_source"]), st.lists(SMALL_TEXT, min_size=1, max_size=4),
       st.one_of(SMALL_TEXT, st.lists(SMALL_TEXT, max_size=3), st.none()))
def test_in_is_any_equal_for_text(field, values, stored):
    lead = {field: stored}
    assert hit(F(field, "in", values), lead) is any(hit(F(field, "=", value), lead) for value in values)
    assert hit(F(field, "!in", values), lead) is all(hit(F(field, "!=", value), lead) for value in values)


@FAST
@given(st.lists(SMALL_NUMBER, min_size=1, max_size=4), SMALL_NUMBER | st.floats() | st.none() | st.text(max_size=2))
def test_in_is_any_equal_for_numbers(values, stored):
    lead = {"age": stored}
    assert hit(F("age", "in", values), lead) is any(hit(F("age", "=", value), lead) for value in values)


@FAST
@given(SMALL_NUMBER, SMALL_NUMBER, SMALL_NUMBER | st.floats(-5, 5) | st.none() | st.just("x"))
def test_between_is_gte_and_lte_for_numbers(low, high, stored):
    lead = {"age": stored}
    both = hit(F("age", "gte", low), lead) and hit(F("age", "lte", high), lead)
    assert hit(F("age", "between", [low, high]), lead) is both
    assert hit(F("age", "!between", {"from": low, "to": high}), lead) is not both


DAYS = st.dates(date(2023, 1, 1), date(2025, 12, 31)).map(date.isoformat)
DATE_VALUES = DAYS | st.sampled_from([keyword for keyword, _, _ in KEYWORD_RANGES] + ["-1 week", "+3 days"])


@FAST
@given(st.sampled_from(["dob", "seen"]), DATE_VALUES, DATE_VALUES, st.none() | DAYS | DAYS.map("{} 13:45:00".format))
def test_between_is_gte_and_lte_for_dates(field, low, high, stored):
    lead = {field: stored}
    both = hit(F(field, "gte", low), lead) and hit(F(field, "lte", high), lead)
    assert hit(F(field, "between", [low, high]), lead) is both


@FAST
@given(st.sampled_from(["dob", "seen"]), DATE_VALUES, DAYS)
def test_order_operators_partition_dates(field, value, stored):
    lead = {field: stored}
    lt, lte, eq, gte, gt = (hit(F(field, operator, value), lead) for operator in ("lt", "lte", "=", "gte", "gt"))
    assert lte is not gt and gte is not lt
    if field == "dob" or value[0] not in "+-":  # `=` with an interval compares whole days on datetimes
        assert [lt, eq, gt].count(True) == 1
        assert lte is (lt or eq) and gte is (eq or gt)


POOL = [F("firstname", "=", "a"), F("age", "gt", 1), F("colors", "in", ["a"]), F("vip", "=", 1),
        F("companyname", "=", "a", obj="company"), F("utm_source", "!=", "a")]
SUBJECTS = st.fixed_dictionaries({
    "firstname": st.sampled_from(["a", "A ", "b", None]), "age": st.sampled_from([0, 2, "3", None]),
    "colors": st.sampled_from([["a"], "b|a", [], None]), "vip": st.sampled_from([True, 0, None]),
    "utm_source": st.sampled_from([["a"], ["b"], []]),
})
COMPANIES = st.lists(st.fixed_dictionaries({"companyname": st.sampled_from(["a", "b", None])}), max_size=2)


@FAST
@given(st.lists(st.sampled_from(POOL), min_size=1, max_size=5),
       st.lists(st.sampled_from(["and", "or"]), min_size=5, max_size=5), SUBJECTS, COMPANIES)
def test_glue_combines_single_filters(chosen, glues, lead, companies):
    filters = [{**item, "glue": "and" if index == 0 else glue} for index, (item, glue) in enumerate(zip(chosen, glues))]
    singles = [hit(item, lead, companies) for item in filters]
    groups, current = [], []
    for item, single in zip(filters, singles):
        if item["glue"] == "or" and current:
            groups.append(current)
            current = []
        current.append(single)
    groups.append(current)
    assert hit(filters, lead, companies) is any(all(group) for group in groups)
    every_or = [{**item, "glue": "or"} for item in filters]
    every_and = [{**item, "glue": "and"} for item in filters]
    assert hit(every_or, lead, companies) is any(singles)
    assert hit(every_and, lead, companies) is all(singles)
