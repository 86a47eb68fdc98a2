"""Contact list `where[n][col|expr|val]` and `order[n][col|dir]` through the API (spec "List query
parameters", compat 7.1 and 7.3), with query strings as the api-library sends them."""

from urllib.parse import quote

import pytest

from tests.api.payloads import BY_PREFIX, assert_error, ids, make


def http_build_query(params, prefix=None):
    """PHP's http_build_query (what the api-library uses for GET): nested arrays in bracket notation."""
    pairs = []
    items = params.items() if isinstance(params, dict) else enumerate(params)
    for key, value in items:
        name = f"{prefix}[{key}]" if prefix is not None else str(key)
        if isinstance(value, (dict, list)):
            pairs.append(http_build_query(value, name))
        else:
            pairs.append(f"{quote(name, safe='')}={quote(str(value), safe='')}")
    return "&".join(p for p in pairs if p)


def found(api, query):
    """(total, ids in response order) of GET /contacts?<query>."""
    r = api.get(f"/api/contacts?{query}")
    assert r.status_code == 200, r.json
    return int(r.json["total"]), ids(BY_PREFIX["contacts"], r.json)


def where(api, *clauses, **extra):
    return found(api, http_build_query({"where": list(clauses), **extra}))


@pytest.fixture
def people(api):
    rows = [
        {"firstname": "Ann", "email": "ann@x.com", "city": "Prague", "points": 5, "lastActive": "2024-01-10 10:00:00"},
        {"firstname": "Bob", "email": "bob@y.com", "city": "Brno", "points": 12, "lastActive": "2024-02-10 10:00:00"},
        {"firstname": "Cid", "email": "cid@X.COM", "city": "", "points": 0},
        {
            "firstname": "Dee",
            "email": "dee@z.org",
            "city": "Prague, CZ",
            "points": 12,
            "lastActive": "2024-03-10 10:00:00",
        },
    ]
    return [make(api, "contacts", row)["id"] for row in rows]


# --- raw query strings, exactly as written by hand or by the api-library -------------------------


def test_like_with_raw_brackets(api, people):
    ann, bob, cid, dee = people
    assert found(api, "where[0][col]=email&where[0][expr]=like&where[0][val]=%25@x.com") == (2, [ann, cid])


def test_like_encoded_brackets(api, people):
    ann, bob, cid, dee = people
    query = "where%5B0%5D%5Bcol%5D=email&where%5B0%5D%5Bexpr%5D=notLike&where%5B0%5D%5Bval%5D=%25%40x.com"
    assert found(api, query) == (2, [bob, dee])


def test_in_with_csv(api, people):
    ann, bob, cid, dee = people
    assert found(api, "where[0][col]=city&where[0][expr]=in&where[0][val]=Brno,%22Prague,%20CZ%22") == (2, [bob, dee])
    # Cid's blank city is not stored (NULL): like SQL, NULL is neither in nor notIn a list
    assert found(api, "where[0][col]=city&where[0][expr]=notIn&where[0][val]=brno,prague") == (1, [dee])


def test_in_with_array_values(api, people):
    ann, bob, cid, dee = people
    assert found(api, "where[0][col]=city&where[0][expr]=in&where[0][val][]=Brno&where[0][val][]=Prague") == (
        2,
        [ann, bob],
    )
    assert where(api, {"col": "id", "expr": "in", "val": [ann, dee]}) == (2, [ann, dee])
    assert where(api, {"col": "id", "expr": "notIn", "val": [ann, dee]}) == (2, [bob, cid])


def test_single_value_in_is_eq(api, people):
    ann, bob, cid, dee = people
    assert where(api, {"col": "city", "expr": "in", "val": "brno"}) == (1, [bob])
    assert where(api, {"col": "city", "expr": "notIn", "val": ["Brno"]}) == (2, [ann, dee])  # NULL city: neither


def test_comparisons_on_points_are_numeric(api, people):
    ann, bob, cid, dee = people
    assert where(api, {"col": "points", "expr": "gt", "val": "9"}) == (2, [bob, dee])
    assert where(api, {"col": "points", "expr": "lte", "val": "5"}) == (2, [ann, cid])
    assert where(api, {"col": "points", "expr": "eq", "val": "12"}) == (2, [bob, dee])
    assert where(api, {"col": "l.points", "expr": "neq", "val": "12"}) == (2, [ann, cid])
    assert where(api, {"col": "points", "expr": "lt", "val": "0"}) == (0, [])
    assert where(api, {"col": "points", "expr": "gte", "val": "0"}) == (4, [ann, bob, cid, dee])


def test_eq_is_case_insensitive(api, people):
    ann, bob, cid, dee = people
    assert where(api, {"col": "email", "expr": "eq", "val": "CID@x.com"}) == (1, [cid])
    assert where(api, {"column": "firstname", "expr": "eq", "value": "ann"}) == (1, [ann])


def test_between_on_points_and_dates(api, people):
    ann, bob, cid, dee = people
    assert found(api, "where[0][col]=points&where[0][expr]=between&where[0][val][0]=1&where[0][val][1]=12") == (
        3,
        [ann, bob, dee],
    )
    assert where(api, {"col": "points", "expr": "notBetween", "val": ["1", "11"]}) == (3, [bob, cid, dee])
    assert where(api, {"col": "last_active", "expr": "between", "val": ["2024-02-01", "2024-03-31"]}) == (2, [bob, dee])
    assert where(api, {"col": "lastActive", "expr": "lt", "val": "2024-02-10T10:00:00+00:00"}) == (1, [ann])


def test_null_and_empty(api, people):
    ann, bob, cid, dee = people
    assert where(api, {"col": "city", "expr": "isEmpty"}) == (1, [cid])
    assert where(api, {"col": "city", "expr": "isNotEmpty"}) == (3, [ann, bob, dee])
    assert where(api, {"col": "last_active", "expr": "isNull"}) == (1, [cid])
    assert where(api, {"col": "l.last_active", "expr": "isNotNull"}) == (3, [ann, bob, dee])
    assert where(api, {"col": "owner_id", "expr": "isNull"})[0] == 4


def test_entries_are_anded_and_with_search(api, people):
    ann, bob, cid, dee = people
    clauses = [{"col": "points", "expr": "eq", "val": "12"}, {"col": "city", "expr": "like", "val": "prague%"}]
    assert where(api, *clauses) == (1, [dee])
    assert found(api, "search=bob&where[0][col]=points&where[0][expr]=gt&where[0][val]=1") == (1, [bob])
    assert found(api, "search=ann&where[0][col]=points&where[0][expr]=gt&where[0][val]=5") == (0, [])


def test_or_x_nesting_as_in_compat_example(api, people):
    ann, bob, cid, dee = people
    query = (
        "where[0][col]=email&where[0][expr]=notLike&where[0][val]=%25@y.com"
        "&where[1][expr]=orX"
        "&where[1][val][0][col]=city&where[1][val][0][expr]=eq&where[1][val][0][val]=Prague"
        "&where[1][val][1][expr]=andX"
        "&where[1][val][1][val][0][col]=points&where[1][val][1][val][0][expr]=lt&where[1][val][1][val][0][val]=1"
        "&where[1][val][1][val][1][col]=firstname&where[1][val][1][val][1][expr]=like"
        "&where[1][val][1][val][1][val]=c%25"
    )
    assert found(api, query) == (2, [ann, cid])


def test_internal_clauses_are_ignored(api, people):
    assert where(api, {"col": "email", "expr": "eq", "val": "nobody", "internal": "1"})[0] == 4


def test_top_level_columns(api, people):
    ann, bob, cid, dee = people
    assert where(api, {"col": "id", "expr": "gt", "val": str(bob)}) == (2, [cid, dee])
    assert where(api, {"col": "l.id", "expr": "eq", "val": str(ann)}) == (1, [ann])
    assert where(api, {"col": "date_added", "expr": "isNotNull"})[0] == 4
    assert where(api, {"col": "dateIdentified", "expr": "isNotNull"})[0] == 4
    assert where(api, {"col": "is_published", "expr": "eq", "val": "1"})[0] == 4


def test_owner(api, people):
    ann, bob, cid, dee = people
    owner = api.get("/api/contacts/list/owners").json[0]["id"]
    assert api.patch(f"/api/contacts/{bob}/edit", {"owner": owner}).status_code == 200
    assert where(api, {"col": "owner_id", "expr": "eq", "val": str(owner)}) == (1, [bob])
    assert where(api, {"col": "owner", "expr": "isNull"}) == (3, [ann, cid, dee])


def test_custom_field_alias(api, people):
    ann, bob, cid, dee = people
    field = {"label": "Shoe size", "alias": "shoe_size", "type": "number", "object": "lead"}
    assert api.post("/api/fields/contact/new", field).status_code == 201
    assert api.patch(f"/api/contacts/{dee}/edit", {"shoe_size": 44}).status_code == 200
    assert where(api, {"col": "shoe_size", "expr": "gte", "val": "40"}) == (1, [dee])
    assert where(api, {"col": "shoeSize", "expr": "isNull"}) == (3, [ann, bob, cid])


def test_total_counts_every_match_and_pages(api, people):
    ann, bob, cid, dee = people
    query = http_build_query({"where": [{"col": "points", "expr": "gte", "val": "5"}], "limit": 1, "start": 1})
    assert found(api, query) == (3, [bob])
    query = http_build_query(
        {"where": [{"col": "points", "expr": "gte", "val": "5"}], "limit": 2, "orderBy": "id", "orderByDir": "desc"}
    )
    assert found(api, query) == (3, [dee, bob])


def test_minimal_with_where(api, people):
    ann, bob, cid, dee = people
    r = api.get("/api/contacts?minimal=1&where[0][col]=email&where[0][expr]=eq&where[0][val]=ann@x.com")
    assert r.status_code == 200 and int(r.json["total"]) == 1 and list(r.json["contacts"]) == [str(ann)]


# --- order ----------------------------------------------------------------------------------------


def test_order_multi_key(api, people):
    ann, bob, cid, dee = people
    assert found(api, "order[0][col]=points&order[0][dir]=desc&order[1][col]=email&order[1][dir]=desc") == (
        4,
        [dee, bob, ann, cid],
    )
    assert found(api, "order[0][col]=points&order[0][dir]=desc&order[1][col]=email") == (4, [bob, dee, ann, cid])
    assert found(api, "order[0][col]=l.points&order[1][col]=firstname&order[1][dir]=DESC") == (4, [cid, ann, dee, bob])


def test_order_overrides_order_by(api, people):
    ann, bob, cid, dee = people
    assert found(api, "orderBy=firstname&orderByDir=desc&order[0][col]=email") == (4, [ann, bob, cid, dee])


def test_order_by_id_and_date_added(api, people):
    ann, bob, cid, dee = people
    assert found(api, "order[0][col]=id&order[0][dir]=desc&limit=2") == (4, [dee, cid])
    assert found(api, "order[0][col]=date_added") == (4, [ann, bob, cid, dee])


def test_order_by_date_column_with_nulls(api, people):
    ann, bob, cid, dee = people
    assert found(api, "order[0][col]=last_active&order[0][dir]=desc")[1] == [cid, dee, bob, ann]
    assert found(api, "order[0][col]=lastActive")[1] == [ann, bob, dee, cid]


def test_where_with_order_and_paging(api, people):
    ann, bob, cid, dee = people
    query = http_build_query(
        {
            "where": [{"col": "email", "expr": "notLike", "val": "%@y.com"}],
            "order": [{"col": "firstname", "dir": "desc"}],
            "start": 1,
            "limit": 5,
        }
    )
    assert found(api, query) == (3, [cid, ann])


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        "where[0][col]=email&where[0][expr]=foo&where[0][val]=x",
        "where[0][col]=email&where[0][val]=x",
        "where[0][expr]=eq&where[0][val]=x",
        "where[0][col]=nope&where[0][expr]=eq&where[0][val]=x",
        "where[0][col]=c.companyname&where[0][expr]=eq&where[0][val]=x",
        "where[0][col]=points&where[0][expr]=between&where[0][val]=1,2",
        "where[0][col]=points&where[0][expr]=between&where[0][val][]=1",
        "where[0][expr]=orX&where[0][val]=x",
        "where[0][expr]=orX&where[0][val][0][col]=city&where[0][val][0][expr]=eq",
        "where=email",
    ],
)
def test_bad_where_is_400(api, people, query):
    assert_error(api.get(f"/api/contacts?{query}"), 400, field="where")


def test_bad_where_message_names_the_entry(api, people):
    error = assert_error(
        api.get(
            "/api/contacts?where[0][col]=email&where[0][expr]=eq&where[0][val]=x"
            "&where[1][col]=email&where[1][expr]=foo&where[1][val]=x"
        ),
        400,
        field="where",
    )
    assert "where[1]: expression 'foo' is not one of" in error["details"]["where"][0]


@pytest.mark.parametrize(
    "query",
    [
        "order[0][col]=nope",
        "order[0][col]=email&order[0][dir]=sideways",
        "order[0][dir]=asc",
        "order=email",
    ],
)
def test_bad_order_is_400(api, people, query):
    assert_error(api.get(f"/api/contacts?{query}"), 400, field="order")


# --- other lists: `where` and `order` apply to the document's own columns ---------------------------


def test_where_and_order_on_another_list(api):
    a = make(api, "emails", {"name": "Alpha", "subject": "Hi"})["id"]
    b = make(api, "emails", {"name": "Beta", "subject": "Hi"})["id"]
    c = make(api, "emails", {"name": "Gamma", "subject": "Yo", "isPublished": False})["id"]
    r = api.get(
        "/api/emails?where[0][col]=subject&where[0][expr]=eq&where[0][val]=hi&order[0][col]=name&order[0][dir]=desc"
    )
    assert r.status_code == 200 and int(r.json["total"]) == 2 and ids(BY_PREFIX["emails"], r.json) == [b, a]
    r = api.get("/api/emails?where[0][col]=e.is_published&where[0][expr]=eq&where[0][val]=0")
    assert r.status_code == 200 and ids(BY_PREFIX["emails"], r.json) == [c]
    assert_error(api.get("/api/emails?where[0][col]=nope&where[0][expr]=isNull"), 400, field="where")
