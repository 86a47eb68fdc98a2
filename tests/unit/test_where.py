"""Unit tests for chalicelib.domain.kernel.where (contact list `where` / `order`, compat 7.1 and 7.3)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chalicelib.domain.kernel.errors import ValidationError
from chalicelib.domain.kernel.where import (
    Between,
    Check,
    Compare,
    Group,
    In,
    contact_column,
    contact_value,
    document_column,
    matches,
    parse,
    parse_order,
    resolve,
    sanitize,
    sort_key,
)


def W(*clauses):
    """A `where` parameter as the PHP-bracket parser delivers it: {"0": {...}, "1": {...}}."""
    return {str(i): c for i, c in enumerate(clauses)}


def c(col, expr, val=None, **extra):
    clause = {"col": col, "expr": expr, **extra}
    if val is not None:
        clause["val"] = val
    return clause


def ok(raw, doc):
    return matches(parse(raw), lambda column: doc.get(column))


def one(raw):
    (clause,) = parse(raw).clauses
    return clause


def error_of(raw):
    with pytest.raises(ValidationError) as caught:
        parse(raw)
    assert list(caught.value.fields) == ["where"]
    (message,) = caught.value.fields["where"]
    return message


# --- parsing -------------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [None, "", [], {}, {"0": {"col": "x", "expr": "eq", "val": 1, "internal": "1"}}])
def test_absent_or_empty_is_none(raw):
    assert parse(raw) is None


def test_parse_value_expressions():
    assert one(W(c("email", "like", "%@x.com"))) == Compare("email", "like", "%@x.com")
    assert one([c("points", "gte", "10")]) == Compare("points", "gte", "10")


def test_column_and_value_aliases():
    assert one(W({"column": "city", "expr": "eq", "value": "Brno"})) == Compare("city", "eq", "Brno")


def test_in_csv_with_quotes():
    clause = one(W(c("city", "in", 'Brno, "Prague, CZ",Ostrava')))
    assert clause == In("city", ("Brno", "Prague, CZ", "Ostrava"), False)


def test_in_array_list_and_php_object():
    assert one(W(c("city", "in", ["a", "b"]))) == In("city", ("a", "b"), False)
    assert one(W(c("city", "notIn", {"1": "b", "0": "a"}))) == In("city", ("a", "b"), True)


@pytest.mark.parametrize("val", ["Brno", ["Brno"], '"Brno"'])
def test_single_value_in_degrades_to_eq_and_neq(val):
    assert one(W(c("city", "in", val))) == Compare("city", "eq", "Brno")
    assert one(W(c("city", "notIn", val))) == Compare("city", "neq", "Brno")


def test_between_two_elements():
    assert one(W(c("points", "between", {"0": "1", "1": "5"}))) == Between("points", "1", "5", False)
    assert one(W(c("points", "notBetween", ["1", "5"]))) == Between("points", "1", "5", True)


@pytest.mark.parametrize("expr", ["isNull", "isNotNull", "isEmpty", "isNotEmpty"])
def test_column_only(expr):
    assert one(W({"col": "city", "expr": expr})) == Check("city", expr)


def test_composites_nest():
    raw = W(
        c("email", "like", "%@x.com"),
        {
            "expr": "orX",
            "val": W(
                c("city", "eq", "Brno"), {"expr": "andX", "val": W(c("city", "eq", "Prague"), c("points", "gt", "3"))}
            ),
        },
    )
    assert parse(raw) == Group(
        (
            Compare("email", "like", "%@x.com"),
            Group(
                (Compare("city", "eq", "Brno"), Group((Compare("city", "eq", "Prague"), Compare("points", "gt", "3")))),
                any_=True,
            ),
        )
    )


def test_internal_clauses_are_stripped_at_every_level():
    raw = W(
        c("a", "eq", "1", internal="1"), {"expr": "orX", "val": W(c("b", "eq", "2"), c("c", "eq", "3", internal=""))}
    )
    assert parse(raw) == Group((Group((Compare("b", "eq", "2"),), any_=True),))


def test_entries_in_numeric_key_order():
    raw = {"10": c("b", "eq", "2"), "2": c("a", "eq", "1")}
    assert [x.column for x in parse(raw).clauses] == ["a", "b"]


def test_column_names_are_sanitized():
    assert one(W(c("l.e`mail; DROP", "eq", "x"))).column == "l.emailDROP"
    assert sanitize("first-name (x)") == "firstnamex"


# --- errors --------------------------------------------------------------------------------------


def test_unknown_expression_names_the_entry():
    message = error_of(W(c("a", "eq", "1"), c("b", "foo", "1")))
    assert message.startswith("where[1]: expression 'foo' is not one of eq, neq")


def test_expressions_are_case_sensitive():
    assert "'EQ'" in error_of(W(c("a", "EQ", "1")))
    assert "'notlike'" in error_of(W(c("a", "notlike", "1")))


@pytest.mark.parametrize(
    "raw, fragment",
    [
        (W({"col": "a", "val": "1"}), "where[0]: the clause has no `expr`"),
        (W({"expr": "eq", "val": "1"}), "where[0]: the clause has no `col`"),
        (W({"col": "a", "expr": "eq"}), "where[0]: 'eq' needs a `val`"),
        (W({"col": "%%", "expr": "eq", "val": "1"}), "is not a column name"),
        (W(c("a", "eq", ["1", "2"])), "'eq' needs a single value"),
        (W(c("a", "between", "1,2")), "'between' needs `val` as an array of 2 values"),
        (W(c("a", "notBetween", ["1"])), "'notBetween' needs `val` as an array of 2 values"),
        (W(c("a", "between", ["1", "2", "3"])), "array of 2 values"),
        (W({"expr": "orX", "val": "x"}), "'orX' needs `val`: an array of clauses"),
        (W({"expr": "andX"}), "'andX' needs `val`"),
        (W({"expr": "orX", "val": W(c("a", "eq", "1"), {"col": "b"})}), "where[0][val][1]: the clause has no `expr`"),
        (W("eq"), "where[0]: a clause should be an object"),
        ("email", "where: this value should be an array"),
        (W(c("a", "in", 'x,"y')), "not a valid comma-separated list"),
        (W(c("a", "in", [["x"]])), "single values"),
        (W(c({"x": 1}, "eq", "1")), "`col` should be a column name"),
    ],
)
def test_errors(raw, fragment):
    assert fragment in error_of(raw)


def test_nesting_is_bounded():
    raw = c("a", "eq", "1")
    for _ in range(40):
        raw = {"expr": "andX", "val": [raw]}
    assert "nested deeper" in error_of([raw])


# --- evaluation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expr, val, doc_value, expected",
    [
        ("eq", "Brno", "brno", True),  # strings: case-insensitive
        ("eq", "Brno", "Brnox", False),
        ("neq", "Brno", "Prague", True),
        ("neq", "Brno", "BRNO", False),
        ("lt", "b", "A", True),  # case-insensitive ordering
        ("gt", "9", 10, True),  # numbers as numbers
        ("gt", "9", "10", True),
        ("lt", "9", "10", False),
        ("eq", "10", 10.0, True),
        ("eq", "010", 10, True),
        ("lte", "10", 10, True),
        ("gte", "10.5", 10, False),
        ("lt", "2024-02-01", "2024-01-31T23:59:59+00:00", True),  # dates as instants
        ("lt", "2024-02-01", "2024-02-01T00:00:00+00:00", False),
        ("eq", "2024-02-01 10:00:00", "2024-02-01T10:00:00+00:00", True),
        ("eq", "2024-02-01T12:00:00+02:00", "2024-02-01T10:00:00+00:00", True),
        ("gt", "2024-02-01", "2024-02-01 10:00:00", True),
        ("eq", "2024-02-01", "2024-02-01T10:00:00+00:00", False),
        ("eq", "1", True, True),  # booleans are 1/0
        ("eq", "0", False, True),
        ("eq", "true", True, True),
        ("eq", "false", True, False),
        ("like", "%@x.com", "Ann@X.com", True),
        ("like", "ann%", "Ann@x.com", True),
        ("like", "x.com", "ann@x.com", False),  # whole value, no implied wildcards
        ("like", "a_n%", "ann@x.com", False),  # `_` is literal
        ("notLike", "%@x.com", "ann@y.com", True),
        ("notLike", "%@x.com", "ann@x.com", False),
        ("like", "1%", 12, True),
    ],
)
def test_value_expressions(expr, val, doc_value, expected):
    assert ok(W(c("f", expr, val)), {"f": doc_value}) is expected


@pytest.mark.parametrize("expr", ["eq", "neq", "lt", "lte", "gt", "gte", "like", "notLike"])
def test_null_satisfies_no_value_expression(expr):
    assert ok(W(c("f", expr, "x")), {}) is False
    assert ok(W(c("f", expr, "x")), {"f": None}) is False
    assert ok(W(c("f", expr, "x")), {"f": ["x"]}) is False


def test_in_and_not_in():
    raw = W(c("city", "in", "Brno,Prague"))
    assert ok(raw, {"city": "prague"}) and not ok(raw, {"city": "Ostrava"}) and not ok(raw, {})
    raw = W(c("city", "notIn", ["Brno", "Prague"]))
    assert ok(raw, {"city": "Ostrava"}) and not ok(raw, {"city": "BRNO"}) and not ok(raw, {})
    assert ok(W(c("n", "in", "1,2,3")), {"n": 2}) and not ok(W(c("n", "in", "1,2,3")), {"n": 4})


def test_in_with_empty_array():
    assert not ok(W(c("city", "in", [])), {"city": "Brno"})
    assert ok(W(c("city", "notIn", {})), {"city": "Brno"})


def test_between_is_inclusive():
    raw = W(c("points", "between", ["2", "5"]))
    assert [ok(raw, {"points": p}) for p in (1, 2, 3, 5, 6)] == [False, True, True, True, False]
    raw = W(c("points", "notBetween", ["2", "5"]))
    assert [ok(raw, {"points": p}) for p in (1, 2, 5, 6, None)] == [True, False, False, True, False]
    raw = W(c("d", "between", ["2024-01-01", "2024-01-31 23:59:59"]))
    assert ok(raw, {"d": "2024-01-15T08:00:00+00:00"}) and not ok(raw, {"d": "2024-02-01T00:00:00+00:00"})


@pytest.mark.parametrize(
    "value, null, empty",
    [
        (None, True, True),
        ("", False, True),
        ("x", False, False),
        (0, False, False),
        ([], False, True),
        (["x"], False, False),
        (False, False, False),
    ],
)
def test_null_and_empty(value, null, empty):
    doc = {"f": value}
    assert ok(W({"col": "f", "expr": "isNull"}), doc) is null
    assert ok(W({"col": "f", "expr": "isNotNull"}), doc) is not null
    assert ok(W({"col": "f", "expr": "isEmpty"}), doc) is empty
    assert ok(W({"col": "f", "expr": "isNotEmpty"}), doc) is not empty


def test_missing_key_is_null():
    assert ok(W({"col": "f", "expr": "isNull"}), {})


def test_top_level_entries_are_anded():
    raw = W(c("a", "eq", "1"), c("b", "eq", "2"))
    assert ok(raw, {"a": 1, "b": 2}) and not ok(raw, {"a": 1, "b": 3})


def test_or_and_nesting():
    raw = W(
        c("email", "like", "%@x.com"),
        {
            "expr": "orX",
            "val": W(
                c("city", "eq", "Brno"), {"expr": "andX", "val": W(c("city", "eq", "Prague"), c("points", "gt", "3"))}
            ),
        },
    )
    assert ok(raw, {"email": "a@x.com", "city": "Brno"})
    assert ok(raw, {"email": "a@x.com", "city": "Prague", "points": 4})
    assert not ok(raw, {"email": "a@x.com", "city": "Prague", "points": 3})
    assert not ok(raw, {"email": "a@y.com", "city": "Brno"})


def test_empty_composites_add_no_condition():
    assert ok([{"expr": "orX", "val": []}], {})
    assert ok([{"expr": "andX", "val": {}}], {})
    assert ok([{"expr": "orX", "val": [c("a", "eq", "1", internal="1")]}], {})


def test_none_matches_everything():
    assert matches(None, lambda column: None)


# --- columns -------------------------------------------------------------------------------------

ALIASES = {"email", "firstname", "city", "points", "last_active", "my_custom"}


@pytest.mark.parametrize(
    "name, column",
    [
        ("email", "email"),
        ("l.email", "email"),
        ("L.Email", "email"),
        ("my_custom", "my_custom"),
        ("myCustom", "my_custom"),
        ("points", "points"),
        ("l.points", "points"),
        ("id", "id"),
        ("l.id", "id"),
        ("date_added", "dateAdded"),
        ("dateAdded", "dateAdded"),
        ("date_modified", "dateModified"),
        ("last_active", "lastActive"),
        ("lastActive", "lastActive"),
        ("date_identified", "dateIdentified"),
        ("dateIdentified", "dateIdentified"),
        ("owner_id", "owner"),
        ("ownerId", "owner"),
        ("owner", "owner"),
        ("is_published", "isPublished"),
        ("isPublished", "isPublished"),
    ],
)
def test_contact_columns(name, column):
    assert contact_column(name, ALIASES) == column


@pytest.mark.parametrize("name", ["nope", "c.email", "l.x.email", "tags", "values", "createdByUser"])
def test_unknown_contact_columns(name):
    assert contact_column(name, ALIASES) is None


def test_contact_values():
    doc = {
        "id": 3,
        "owner": 1,
        "dateAdded": "2024-01-01T00:00:00+00:00",
        "isPublished": True,
        "values": {"email": "a@x.com", "points": 7, "id": 99},
    }
    assert contact_value(doc, "email") == "a@x.com"
    assert contact_value(doc, "points") == 7
    assert contact_value(doc, "id") == 3
    assert contact_value(doc, "owner") == 1
    assert contact_value(doc, "isPublished") is True
    assert contact_value(doc, "city") is None
    assert contact_value({"id": 1}, "email") is None


def test_document_columns():
    known = {"id", "name", "dateAdded", "isPublished"}
    assert document_column("date_added", known) == "dateAdded"
    assert document_column("e.name", known) == "name"
    assert document_column("NAME", known) == "name"
    assert document_column("is_published", known) == "isPublished"
    assert document_column("nope", known) is None


def test_resolve_replaces_columns_and_rejects_unknown():
    raw = W(c("l.email", "eq", "x"), {"expr": "orX", "val": W({"col": "date_added", "expr": "isNull"})})
    clause = resolve(parse(raw), lambda name: contact_column(name, ALIASES))
    assert clause == Group((Compare("email", "eq", "x"), Group((Check("dateAdded", "isNull"),), any_=True)))
    with pytest.raises(ValidationError) as caught:
        resolve(parse(W(c("nope", "eq", "x"))), lambda name: contact_column(name, ALIASES))
    assert "'nope' is not a column" in caught.value.fields["where"][0]


# --- order ---------------------------------------------------------------------------------------


def column_of(name):
    return contact_column(name, ALIASES)


def test_order_entries():
    raw = {"0": {"col": "email", "dir": "desc"}, "1": {"col": "l.date_added"}, "2": {"column": "id", "dir": "ASC"}}
    assert parse_order(raw, column_of) == [("email", True), ("dateAdded", False), ("id", False)]
    assert parse_order(None, column_of) == [] and parse_order({}, column_of) == []


@pytest.mark.parametrize(
    "raw, fragment",
    [
        ({"0": {"dir": "asc"}}, "order[0]: the entry has no `col`"),
        ({"0": {"col": "email", "dir": "up"}}, "order[0]: `dir` should be asc or desc"),
        ({"0": {"col": "email"}, "1": {"col": "nope"}}, "order[1]: 'nope' is not a column"),
        ({"0": "email"}, "order[0]: an entry should be an object"),
        ("email", "order: this value should be an array"),
    ],
)
def test_order_errors(raw, fragment):
    with pytest.raises(ValidationError) as caught:
        parse_order(raw, column_of)
    assert list(caught.value.fields) == ["order"]
    assert fragment in caught.value.fields["order"][0]


def test_sort_key_orders_numbers_dates_and_text():
    values = ["b", None, "10", 9, "A", "", "2024-01-02", "2024-01-01T10:00:00+00:00"]
    ordered = sorted(values, key=sort_key)
    assert ordered[:2] == [9, "10"]
    assert ordered[2:4] == ["2024-01-01T10:00:00+00:00", "2024-01-02"]
    assert ordered[4:6] == ["A", "b"]
    assert set(ordered[6:]) == {None, ""}


# --- properties ----------------------------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.integers(-50, 50),
    st.text(alphabet="aAbB1%,", max_size=4),
    st.sampled_from(["2024-01-01", "2024-01-01T10:00:00+00:00", "1.5"]),
)
operands = st.one_of(
    st.integers(-50, 50),
    st.text(alphabet="aAbB1", max_size=4),
    st.sampled_from(["2024-01-01", "2024-01-01 10:00:00", "1.5"]),
)


@given(scalars, operands)
def test_negations_partition_non_null_values(value, val):
    doc = {"f": value}
    for positive, negative, arg in (
        ("eq", "neq", val),
        ("like", "notLike", str(val)),
        ("between", "notBetween", [val, val]),
    ):
        yes, no = ok(W(c("f", positive, arg)), doc), ok(W(c("f", negative, arg)), doc)
        assert (yes, no) == (False, False) if value is None else yes != no


@given(scalars, operands)
def test_order_expressions_are_consistent(value, val):
    doc = {"f": value}
    lt, eq, gt = (ok(W(c("f", e, val)), doc) for e in ("lt", "eq", "gt"))
    if value is None:
        assert not (lt or eq or gt)
    else:
        assert [lt, eq, gt].count(True) == 1
        assert ok(W(c("f", "lte", val)), doc) == (lt or eq)
        assert ok(W(c("f", "gte", val)), doc) == (gt or eq)


@given(scalars, st.lists(operands, min_size=2, max_size=4))
def test_in_is_any_eq(value, vals):
    doc = {"f": value}
    assert ok(W(c("f", "in", vals)), doc) == any(ok(W(c("f", "eq", v)), doc) for v in vals)
