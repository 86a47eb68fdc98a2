"""Filter engine: validation errors keyed by filter, as the segment API reports them."""

import pytest

from chalicelib.domain.segments.filters import validate
from tests.unit.filtercases import FIELDS, F


def test_valid_filters_have_no_errors():
    filters = [
        F("email", "like", "%@acme.com"),
        F("age", "in", 3),
        F("age", "between", {"from": "1", "to": 2.5}),
        F("dob", "gt", "-1 week"),
        F("seen", "date", "2024-05-15T10:00:00+02:00"),
        F("dob", "=", "anniversary"),
        F("tags", "in", [1, "vip", "2"]),
        F("leadlist", "!in", ["4"]),
        F("dnc_bounced", "=", "0"),
        F("utm_source", "contains", "goo"),
        F("companyname", "!=", "acme", obj="company", glue="or"),
        F("colors", "in", ["red"]),
        F("opens", "between", ["09:00", "17:30:00"]),
        F("vip", "empty", "whatever"),
        F("points", "gte", 10, type="number"),
        F("owner_id", "empty"),
        F("firstname", "regexp", r"^\w+$"),
        {**F("id", "=", 5), "type": None},
        F("plan", "!in", "basic"),
        F("city", "=", ""),
        F("last_active", "lt", "month_this", type="datetime"),
        F("leadlist", "empty"),
    ]
    assert validate(filters, FIELDS) == {}


@pytest.mark.parametrize(
    "filter_, key, message",
    [
        (F("foo", "=", "x"), "filters[0][field]", "Unknown field 'foo' for object 'lead'."),
        (F("email", "=", "x", obj="company"), "filters[0][field]", "Unknown field 'email' for object 'company'."),
        (F("companyname", "=", "x", obj="account"), "filters[0][object]", "Unknown object 'account'"),
        (F("email", "zz", "x"), "filters[0][operator]", "Unknown operator 'zz'."),
        (F("email", "=", "x", type="weird"), "filters[0][type]", "Unknown type 'weird'."),
        (F("tags", "in", [1], type="text"), "filters[0][type]", "Type 'text' does not apply to field 'tags'."),
        (
            F("email", "in", ["x"], type="leadlist"),
            "filters[0][type]",
            "Type 'leadlist' does not apply to field 'email'",
        ),
        (F("email", "=", "x", glue="xor"), "filters[0][glue]", "Unknown glue 'xor'"),
        (F("vip", "regexp", "1"), "filters[0][operator]", "Operator 'regexp' does not apply to type 'boolean'."),
        (F("vip", "gt", 1), "filters[0][operator]", "Operator 'gt' does not apply to type 'boolean'."),
        (F("email", "date", "2024-01-01"), "filters[0][operator]", "Operator 'date' does not apply to type 'email'."),
        (F("age", "date", "2024-01-01"), "filters[0][operator]", "Operator 'date' does not apply to type 'number'."),
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
    ],
)
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
        "filters[0][operator]": ["Operator 'gt' does not apply to type 'boolean'."]
    }
    assert validate([{**F("tags", "in", ["vip"]), "type": None}], {}) == {}
