"""Filter engine: multiselect, tags, segments, UTM lists, company filters, glue, matcher attributes."""

import re

import pytest

from chalicelib.domain.segments.filters import compile_filters
from tests.unit.filtercases import NOW, F, check, hit


@pytest.mark.parametrize("stored", [["Red", "Blue"], "red|Blue", ("Red", "blue")])
@pytest.mark.parametrize(
    "operator, value, expected",
    [
        ("=", "RED", True),
        ("=", "green", False),
        ("=", "re", False),
        ("!=", "green", True),
        ("!=", "red", False),
        ("in", ["green", "blue"], True),
        ("in", ["green"], False),
        ("in", "blue", True),
        ("!in", ["green"], True),
        ("!in", ["blue", "x"], False),
        ("like", "%d|b%", True),
        ("contains", "blue", True),
        ("startsWith", "red|", True),
        ("endsWith", "|blue", True),
        ("regexp", r"^red\|", True),
        ("!regexp", "green", True),
        ("!like", "%green%", True),
        ("empty", None, False),
        ("!empty", None, True),
    ],
)
def test_multiselect_operators(stored, operator, value, expected):
    check("colors", operator, value, stored, expected)


@pytest.mark.parametrize("stored", [None, [], ""])
@pytest.mark.parametrize(
    "operator, value, expected",
    [
        ("=", "red", False),
        ("!=", "red", True),
        ("in", ["red"], False),
        ("!in", ["red"], True),
        ("like", "r", False),
        ("empty", None, True),
        ("!empty", None, False),
    ],
)
def test_multiselect_missing(stored, operator, value, expected):
    check("colors", operator, value, stored, expected)


TAGS = [{"id": 1, "tag": "VIP"}, {"id": 2, "tag": "Lead Magnet"}, {"id": 7, "tag": "42"}]


@pytest.mark.parametrize(
    "operator, value, stored, expected",
    [
        ("in", [1], TAGS, True),
        ("in", ["2"], TAGS, True),
        ("in", ["vip"], TAGS, True),
        ("in", ["LEAD MAGNET"], TAGS, True),
        ("in", [3, "other"], TAGS, False),
        ("in", ["42"], TAGS, True),
        ("in", [42], TAGS, False),
        ("in", 7, TAGS, True),
        ("in", [1], [], False),
        ("in", [1], None, False),
        ("!in", [3], TAGS, True),
        ("!in", ["vip"], TAGS, False),
        ("!in", [3, 2], TAGS, False),
        ("!in", [1], None, True),
        ("!in", [1], [], True),
        ("empty", None, [], True),
        ("empty", None, None, True),
        ("empty", None, TAGS, False),
        ("!empty", None, TAGS, True),
        ("!empty", None, [], False),
    ],
)
def test_tags(operator, value, stored, expected):
    check("tags", operator, value, stored, expected)
    untyped = {**F("tags", operator, value), "type": None}
    assert compile_filters([untyped]).matches({"lead": {"tags": stored}}, NOW) is expected


@pytest.mark.parametrize(
    "operator, value, stored, expected",
    [
        ("in", [5], [3, 5], True),
        ("in", ["3"], [3, 5], True),
        ("in", [4], [3, 5], False),
        ("in", 5, ["5"], True),
        ("!in", [4], [3, 5], True),
        ("!in", [3, 4], [3, 5], False),
        ("in", [3], None, False),
        ("!in", [3], None, True),
        ("empty", None, [], True),
        ("empty", None, [3], False),
        ("!empty", None, [3], True),
        ("!empty", None, None, False),
    ],
)
def test_leadlist(operator, value, stored, expected):
    check("leadlist", operator, value, stored, expected)


@pytest.mark.parametrize(
    "operator, value, stored, expected",
    [
        ("=", "google", ["Google", "newsletter"], True),
        ("=", "bing", ["Google", "newsletter"], False),
        ("=", "google", "google", True),
        ("=", "google", None, False),
        ("=", "google", [], False),
        ("!=", "google", ["Google", "newsletter"], False),
        ("!=", "bing", ["Google", "newsletter"], True),
        ("!=", "google", None, True),
        ("!=", "google", [], True),
        ("like", "%news%", ["Google", "newsletter"], True),
        ("!like", "%news%", ["Google", "newsletter"], False),
        ("!like", "%news%", ["Google"], True),
        ("regexp", "^goo", ["bing", "Google"], True),
        ("!regexp", "^goo", ["bing", "Google"], False),
        ("contains", "letter", ["newsletter"], True),
        ("in", ["bing", "newsletter"], ["Google", "newsletter"], True),
        ("!in", ["bing"], ["Google"], True),
        ("!in", ["google"], ["Google", "x"], False),
        ("empty", None, [], True),
        ("empty", None, None, True),
        ("empty", None, ["", None], True),
        ("empty", None, ["x"], False),
        ("!empty", None, ["x"], True),
        ("!empty", None, [], False),
    ],
)
def test_utm_lists(operator, value, stored, expected):
    check("utm_source", operator, value, stored, expected)


# --- companies -----------------------------------------------------------------------------------

NO_COMPANY, ACME, BOTH = (
    [],
    [{"companyname": "Acme", "employees": 10}],
    [{"companyname": "Acme", "employees": 10}, {"companyname": "Globex", "employees": 500}],
)


@pytest.mark.parametrize(
    "field, operator, value, expected",
    [
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
    ],
)
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


@pytest.mark.parametrize(
    "lead, expected",
    [
        ({"email": "a@x.io", "city": "Paris"}, True),
        ({"email": "a@x.io"}, False),
        ({"city": "Paris"}, False),
        ({"country": "France"}, True),
        ({"email": "a@x.io", "country": "France"}, True),
        ({}, False),
    ],
)
def test_and_binds_tighter_than_or(lead, expected):
    assert hit([A, B, C], lead) is expected


@pytest.mark.parametrize(
    "lead, expected",
    [
        ({"email": "a@x.io"}, True),
        ({"city": "Paris"}, False),
        ({"city": "Paris", "country": "France"}, True),
    ],
)
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


@pytest.mark.parametrize(
    "filters, relative",
    [
        ([F("dob", "=", "2024-05-15")], False),
        ([F("dob", "=", "today")], True),
        ([F("seen", "gt", "-1 week")], True),
        ([F("dob", "=", "birthday")], True),
        ([F("dob", "between", ["2024-01-01", "month_next"])], True),
        ([F("dob", "empty", "today")], False),
        ([F("firstname", "=", "today")], False),
        ([F("email", "=", "x"), F("founded", "lt", "year_this", obj="company", glue="or")], True),
        ([{**F("date_added", "gt", "-1 day"), "type": None}], True),
        ([F("dob", "like", "2024-%")], False),
    ],
)
def test_relative(filters, relative):
    assert compile_filters(filters).relative is relative


def test_segments_and_objects():
    matcher = compile_filters(
        [
            F("leadlist", "in", [3, "5"]),
            F("leadlist", "!in", 7, glue="or"),
            F("leadlist", "empty"),
            F("companyname", "=", "acme", obj="company"),
        ]
    )
    assert matcher.segments == {3, 5, 7}
    assert matcher.objects == {"lead", "company"}
    assert compile_filters([F("email", "=", "x")]).objects == {"lead"}
    assert compile_filters([F("email", "=", "x")]).segments == set()


def test_patterns_compile_once(monkeypatch):
    matcher = compile_filters(
        [F("firstname", "regexp", "^jo"), F("firstname", "like", "%an%"), F("dob", "=", "2024-05-15")]
    )

    def refuse(*args, **kwargs):
        raise AssertionError("compiled during evaluation")

    monkeypatch.setattr(re, "compile", refuse)
    assert matcher.matches({"lead": {"firstname": "Joan", "dob": "2024-05-15"}}, NOW)
