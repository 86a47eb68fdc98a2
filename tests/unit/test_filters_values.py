"""Filter engine: comparisons by type (text, select, numbers, booleans, times, absolute dates)."""

from decimal import Decimal

import pytest

from chalicelib.domain.segments.filters import compile_filters
from tests.unit.filtercases import NOW, F, check, hit


@pytest.mark.parametrize(
    "operator, value, stored, expected",
    [
        ("=", "foo", "Foo", True),
        ("=", "FOO", " foo ", True),
        ("=", "fo", "foo", False),
        ("=", "foo", None, False),
        ("=", "foo", "", False),
        ("=", "12", 12, True),
        ("=", " Foo ", "foo", True),
        ("!=", "foo", "Foo", False),
        ("!=", "foo", "bar", True),
        ("!=", "foo", None, True),
        ("!=", "foo", "", True),
        ("like", "world", "Hello World", True),
        ("like", "%world", "hello world", True),
        ("like", "%world", "hello world!", False),
        ("like", "h_llo", "hello", True),
        ("like", "hel%", "HELLO", True),
        ("like", r"h\_llo", "hallo", False),
        ("like", r"h\_llo", "h_llo", True),
        ("like", "x", None, False),
        ("like", "a%c", "a\nb\nc", True),
        ("!like", "xyz", "hello", True),
        ("!like", "ell", "hello", False),
        ("!like", "x", None, True),
        ("startsWith", "he", "Hello", True),
        ("startsWith", "lo", "Hello", False),
        ("startsWith", "10%", "100", False),
        ("startsWith", "10%", "10%x", True),
        ("startsWith", "a_", "abc", False),
        ("startsWith", "a_", "a_c", True),
        ("endsWith", "LO", "Hello", True),
        ("endsWith", "he", "Hello", False),
        ("endsWith", "%", "x%", True),
        ("endsWith", "%", "x", False),
        ("endsWith", "x", None, False),
        ("contains", "ELL", "Hello", True),
        ("contains", "z", "Hello", False),
        ("contains", "0% o", "50% off", True),
        ("contains", "0% o", "500 off", False),
        ("regexp", r"\d+$", "abc123", True),
        ("regexp", "^abc$", "ABC", True),
        ("regexp", "^b", "abc", False),
        ("regexp", ".*", None, False),
        ("!regexp", "^b", "abc", True),
        ("!regexp", "^a", "abc", False),
        ("!regexp", "x", None, True),
        ("in", ["red", "blue"], "Red", True),
        ("in", ["red"], "green", False),
        ("in", "RED", " red ", True),
        ("in", ["red"], None, False),
        ("in", [1, 2], "2", True),
        ("!in", ["red"], "green", True),
        ("!in", ["RED"], "red", False),
        ("!in", ["red"], None, True),
        ("empty", None, None, True),
        ("empty", None, "", True),
        ("empty", None, [], True),
        ("empty", None, "x", False),
        ("!empty", None, None, False),
        ("!empty", None, "", False),
        ("!empty", None, "x", True),
        ("!empty", "ignored", 0, True),
    ],
)
def test_text_operators(operator, value, stored, expected):
    check("firstname", operator, value, stored, expected)


def test_text_type_missing_falls_back_to_text():
    matcher = compile_filters([{**F("age", "=", "12"), "type": None}])
    assert matcher.matches({"lead": {"age": "12"}}, NOW)
    assert not matcher.matches({"lead": {"age": "12.0"}}, NOW)


@pytest.mark.parametrize(
    "operator, value, stored, expected",
    [
        ("=", "option a", "Option A", True),
        ("=", " OPTION A ", "option a", True),
        ("!=", "option a", "Option B", True),
        ("in", ["option a", "option b"], "Option B", True),
        ("in", ["option a"], "Option C", False),
        ("!in", ["option a"], "Option C", True),
        ("!in", ["OPTION C"], "option c", False),
        ("!in", ["x"], None, True),
        ("regexp", "^option", "Option A", True),
        ("empty", None, "", True),
    ],
)
def test_select_operators(operator, value, stored, expected):
    check("plan", operator, value, stored, expected)


# --- numbers, booleans, times --------------------------------------------------------------------


@pytest.mark.parametrize(
    "operator, value, stored, expected",
    [
        ("=", "12", 12, True),
        ("=", 12.5, "12.5", True),
        ("=", 1, "abc", False),
        ("=", 0, None, False),
        ("=", 1, True, False),
        ("=", "1e2", "100", True),
        ("!=", 13, 12, True),
        ("!=", 12.0, 12, False),
        ("!=", 1, "abc", True),
        ("!=", 1, None, True),
        ("gt", 9, 10, True),
        ("gt", 9, 9, False),
        ("gt", "9", "10", True),
        ("gt", 0, "abc", False),
        ("gte", 9, 9, True),
        ("gte", 9, 8, False),
        ("gte", "-1.5", -1.5, True),
        ("lt", 9, 8, True),
        ("lt", 9, 9, False),
        ("lt", 9, None, False),
        ("lte", "9", 9, True),
        ("lte", 9, 10, False),
        ("between", [1, 5], 5, True),
        ("between", [1, 5], 1, True),
        ("between", [1, 5], 6, False),
        ("between", {"from": 1, "to": 5}, "3", True),
        ("between", [5, 1], 3, False),
        ("between", [1, 5], None, False),
        ("!between", [1, 5], 6, True),
        ("!between", [1, 5], 3, False),
        ("!between", [1, 5], None, True),
        ("in", [1, "3"], 3, True),
        ("in", [1, 3], 2, False),
        ("in", 2, "2.0", True),
        ("!in", [1, 3], 2, True),
        ("!in", [1, 3], 1, False),
        ("!in", [1], None, True),
        ("empty", None, None, True),
        ("empty", None, 0, False),
        ("!empty", None, 0, True),
        ("like", "2", 123, True),
        ("contains", "2", 123, True),
        ("startsWith", "12", 123.0, True),
        ("regexp", "^1", 123, True),
        ("!regexp", "^1", 123, False),
    ],
)
def test_number_operators(operator, value, stored, expected):
    check("age", operator, value, stored, expected)


@pytest.mark.parametrize("value", [1, "1", True, "true"])
@pytest.mark.parametrize(
    "stored, expected",
    [
        (True, True),
        (1, True),
        ("1", True),
        ("yes", True),
        (False, False),
        (0, False),
        ("0", False),
        ("no", False),
        (None, False),
        ("maybe", False),
    ],
)
def test_boolean_equals_true(value, stored, expected):
    check("vip", "=", value, stored, expected)
    check("vip", "!=", value, stored, not expected)


@pytest.mark.parametrize("value", [0, "0", False, "false"])
@pytest.mark.parametrize("stored, expected", [(False, True), (0, True), ("0", True), (True, False), (None, False)])
def test_boolean_equals_false(value, stored, expected):
    check("vip", "=", value, stored, expected)
    check("vip", "!=", value, stored, not expected)


@pytest.mark.parametrize(
    "field", ["dnc_unsubscribed", "dnc_bounced", "dnc_manual", "dnc_unsubscribed_sms", "dnc_bounced_sms"]
)
@pytest.mark.parametrize(
    "operator, value, stored, expected",
    [
        ("=", 1, True, True),
        ("=", "1", False, False),
        ("=", True, None, False),
        ("=", 0, False, True),
        ("=", "0", None, False),
        ("!=", 1, True, False),
        ("!=", 1, False, True),
        ("!=", 1, None, True),
        ("!=", 0, True, True),
        ("empty", None, None, True),
        ("!empty", None, False, True),
    ],
)
def test_dnc_booleans(field, operator, value, stored, expected):
    filter_ = F(field, operator, value, type="boolean")
    assert hit(filter_, {field: stored}) is expected
    assert compile_filters([{**filter_, "type": None}]).matches({"lead": {field: stored}}, NOW) is expected


@pytest.mark.parametrize(
    "operator, value, stored, expected",
    [
        ("=", "10:30", "10:30:00", True),
        ("=", "10:30:00", "10:30", True),
        ("=", "10:30", "10:31", False),
        ("!=", "10:30", "10:31", True),
        ("!=", "10:30", None, True),
        ("gt", "09:00", "10:30", True),
        ("gt", "10:30", "10:30", False),
        ("gte", "10:30", "10:30:00", True),
        ("lt", "10:30", "9:15", True),
        ("lte", "10:30", "10:30:01", False),
        ("between", ["09:00", "17:00"], "17:00:00", True),
        ("between", ["09:00", "17:00"], "17:00:01", False),
        ("in", ["10:30", "11:00"], "11:00:00", True),
        ("!in", ["10:30"], "11:00", True),
        ("=", "10:30", "garbage", False),
        ("=", "10:30", "25:30", False),
        ("like", "10:%", "10:45", True),
    ],
)
def test_time_operators(operator, value, stored, expected):
    check("opens", operator, value, stored, expected)


# --- absolute dates ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "operator, value, stored, expected",
    [
        ("=", "2024-05-15", "2024-05-15", True),
        ("=", "2024-05-15", "2024-05-15 10:00:00", True),
        ("=", "2024-05-15", "2024-05-16", False),
        ("=", "2024-05-15T00:00:00+00:00", "2024-05-15", True),
        ("=", "2024-05-15", "2024-05-15T01:00:00+02:00", False),
        ("=", "2024-05-15", "not a date", False),
        ("!=", "2024-05-15", "2024-05-16", True),
        ("!=", "2024-05-15", None, True),
        ("!=", "2024-05-15", "x", True),
        ("!=", "2024-05-15", "2024-05-15", False),
        ("gt", "2024-05-15", "2024-05-16", True),
        ("gt", "2024-05-15", "2024-05-15", False),
        ("gte", "2024-05-15", "2024-05-15", True),
        ("gte", "2024-05-15", "2024-05-14", False),
        ("lt", "2024-05-15", "2024-05-14", True),
        ("lt", "2024-05-15", "2024-05-15", False),
        ("lte", "2024-05-15", "2024-05-15", True),
        ("lte", "2024-05-15", "2024-05-16", False),
        ("gt", "2024-05-15", None, False),
        ("lt", "2024-05-15", "", False),
        ("between", ["2024-05-01", "2024-05-31"], "2024-05-31", True),
        ("between", ["2024-05-01", "2024-05-31"], "2024-06-01", False),
        ("between", {"from": "2024-05-01", "to": "2024-05-31"}, "2024-05-01", True),
        ("!between", ["2024-05-01", "2024-05-31"], "2024-04-30", True),
        ("in", ["2024-01-01", "2024-05-15"], "2024-05-15", True),
        ("!in", ["2024-01-01"], "2024-05-15", True),
        ("date", "2024-05-15", "2024-05-15", True),
        ("date", "2024-05-15 18:00:00", "2024-05-15", True),
        ("like", "2024-05%", "2024-05-03", True),
        ("!like", "2024-05%", "2024-06-03", True),
        ("empty", None, None, True),
        ("!empty", None, "2024-05-15", True),
    ],
)
def test_date_operators(operator, value, stored, expected):
    check("dob", operator, value, stored, expected)


@pytest.mark.parametrize(
    "operator, value, stored, expected",
    [
        ("=", "2024-05-15 10:00:00", "2024-05-15T10:00:00+00:00", True),
        ("=", "2024-05-15 10:00:00", "2024-05-15T12:00:00+02:00", True),
        ("=", "2024-05-15T10:00:00Z", "2024-05-15 10:00:00", True),
        ("=", "2024-05-15 10:00:00", "2024-05-15 10:00:01", False),
        ("=", "2024-05-15", "2024-05-15 10:00:00", False),
        ("=", "2024-05-15", "2024-05-15", True),
        ("!=", "2024-05-15 10:00:00", "2024-05-15 10:00:01", True),
        ("!=", "2024-05-15 10:00:00", None, True),
        ("date", "2024-05-15", "2024-05-15 23:59:59", True),
        ("date", "2024-05-15", "2024-05-16 00:00:00", False),
        ("date", "2024-05-15 08:00:00", "2024-05-15 23:00:00", True),
        ("gt", "2024-05-15 10:00:00", "2024-05-15 10:00:01", True),
        ("gt", "2024-05-15 10:00:00", "2024-05-15 10:00:00", False),
        ("gte", "2024-05-15 10:00:00", "2024-05-15 10:00:00", True),
        ("gte", "2024-05-15 10:00:00", "2024-05-15", False),
        ("lt", "2024-05-15 10:00:00", "2024-05-15 09:59:59", True),
        ("lt", "2024-05-15 10:00:00", "2024-05-15 10:00:00", False),
        ("lte", "2024-05-15 10:00:00", "2024-05-15 10:00:00", True),
        ("lte", "2024-05-15 10:00:00", "2024-05-15 10:00:00.5", False),
        ("between", ["2024-05-01 00:00:00", "2024-05-31 23:59:59"], "2024-05-31 23:59:59", True),
        ("between", ["2024-05-01 00:00:00", "2024-05-31 23:59:59"], "2024-06-01 00:00:00", False),
        ("!between", ["2024-05-01", "2024-05-31"], "2024-05-31 12:00:00", True),
        ("in", ["2024-05-15 10:00:00"], "2024-05-15T10:00:00Z", True),
    ],
)
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
