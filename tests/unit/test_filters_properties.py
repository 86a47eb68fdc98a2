"""Filter engine: hypothesis properties of the evaluator."""

from datetime import date

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from chalicelib.domain.segments.filter_operators import NEGATIONS
from chalicelib.domain.segments.filters import validate
from tests.unit.filtercases import FIELDS, KEYWORD_RANGES, SAMPLE_TYPES, F, hit

SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=True) | st.text(max_size=6)
ANYTHING = st.recursive(
    SCALARS
    | st.integers()
    | st.decimals()
    | st.sampled_from(["2024-05-15", "2024-05-15 10:00:00", "10:30", "a|b", "1", "0"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["id", "tag", "x"]), inner, max_size=2),
    max_leaves=6,
)
SMALL_TEXT = st.text(alphabet="aAb %_", max_size=3)
SMALL_NUMBER = st.integers(-3, 3) | st.sampled_from(["1", "2.0", " 3 ", "-1.5"])
SAMPLE_FILTERS = [
    F("firstname", "=", "ab"),
    F("firstname", "!like", "a%"),
    F("firstname", "regexp", "^a"),
    F("firstname", "startsWith", "a"),
    F("firstname", "!in", ["a", "b"]),
    F("age", "gt", 2),
    F("age", "!between", [1, 3]),
    F("age", "in", [1, 2]),
    F("dob", "=", "today"),
    F("dob", "gt", "-1 week"),
    F("dob", "!=", "birthday"),
    F("seen", "lte", "2024-05-15 10:00:00"),
    F("seen", "date", "yesterday"),
    F("seen", "between", ["-1 month", "+1 day"]),
    F("opens", "gte", "10:00"),
    F("opens", "in", ["10:30"]),
    F("vip", "=", 1),
    F("vip", "!=", 0),
    F("colors", "in", ["a", "b"]),
    F("colors", "!=", "a"),
    F("colors", "like", "%a|b%"),
    F("tags", "in", [1, "a"]),
    F("tags", "!in", ["2"]),
    F("leadlist", "in", [1]),
    F("leadlist", "!empty"),
    F("utm_source", "!=", "a"),
    F("utm_source", "contains", "a"),
    F("dnc_bounced", "=", 1),
    F("companyname", "!like", "a%", obj="company"),
    F("employees", "between", [1, 3], obj="company"),
    F("founded", "gt", "month_last", obj="company"),
    F("email", "empty"),
    F("email", "!empty"),
]
FAST = settings(max_examples=60, deadline=None)


@FAST
@given(
    st.lists(ANYTHING, min_size=len(SAMPLE_TYPES), max_size=len(SAMPLE_TYPES)),
    st.lists(st.dictionaries(st.sampled_from(["companyname", "employees", "founded"]), ANYTHING), max_size=3),
)
def test_evaluation_never_raises(values, companies):
    lead = dict(zip(SAMPLE_TYPES, values, strict=True))
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
@given(
    st.sampled_from(["firstname", "plan", "colors", "utm_source"]),
    st.lists(SMALL_TEXT, min_size=1, max_size=4),
    st.one_of(SMALL_TEXT, st.lists(SMALL_TEXT, max_size=3), st.none()),
)
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


POOL = [
    F("firstname", "=", "a"),
    F("age", "gt", 1),
    F("colors", "in", ["a"]),
    F("vip", "=", 1),
    F("companyname", "=", "a", obj="company"),
    F("utm_source", "!=", "a"),
]
SUBJECTS = st.fixed_dictionaries(
    {
        "firstname": st.sampled_from(["a", "A ", "b", None]),
        "age": st.sampled_from([0, 2, "3", None]),
        "colors": st.sampled_from([["a"], "b|a", [], None]),
        "vip": st.sampled_from([True, 0, None]),
        "utm_source": st.sampled_from([["a"], ["b"], []]),
    }
)
COMPANIES = st.lists(st.fixed_dictionaries({"companyname": st.sampled_from(["a", "b", None])}), max_size=2)


@FAST
@given(
    st.lists(st.sampled_from(POOL), min_size=1, max_size=5),
    st.lists(st.sampled_from(["and", "or"]), min_size=5, max_size=5),
    SUBJECTS,
    COMPANIES,
)
def test_glue_combines_single_filters(chosen, glues, lead, companies):
    filters = [
        {**item, "glue": "and" if index == 0 else glue}
        for index, (item, glue) in enumerate(zip(chosen, glues, strict=False))
    ]
    singles = [hit(item, lead, companies) for item in filters]
    groups, current = [], []
    for item, single in zip(filters, singles, strict=True):
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
