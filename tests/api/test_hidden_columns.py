"""Hidden attributes (stored, never shown: a password hash, a role's implied permissions, an asset's
stored file, a contact's raw values) are no filter or sort column (issue 27): `where`, `order` and
`orderBy` naming one are a 400 naming the parameter, as an unknown column is, for every resource."""

from urllib.parse import quote

import pytest

from tests.api.payloads import assert_error


def _hidden():
    from chalicelib import bootstrap

    return [
        (resource.prefix, attr.name)
        for resource in bootstrap.resources()  # every registered resource (users, notes and reports too)
        for attr in resource.all_attrs
        if attr.hidden
    ]


HIDDEN = _hidden()
QUERIES = {
    "where": "where[0][col]={col}&where[0][expr]=isNotNull",
    "order": "order[0][col]={col}&order[0][dir]=desc",
    "orderBy": "orderBy={col}",
}


def test_every_resource_with_hidden_attributes_is_covered():
    assert {"users", "roles", "assets", "contacts", "companies"} <= {prefix for prefix, _ in HIDDEN}


@pytest.mark.parametrize("prefix, column", HIDDEN, ids=[f"{p}.{c}" for p, c in HIDDEN])
@pytest.mark.parametrize("parameter", list(QUERIES))
def test_a_hidden_attribute_is_no_column(api, prefix, column, parameter):
    assert_error(api.get(f"/api/{prefix}?" + QUERIES[parameter].format(col=column)), 400, field=parameter)


def test_a_password_hash_prefix_cannot_be_recovered(api):
    from chalicelib.auth import passwords

    prefix = quote(passwords.hash_password("anything")[:24] + "%")
    for column in ("passwordHash", "password_hash", "u.passwordHash"):
        r = api.get(f"/api/users?where[0][col]={column}&where[0][expr]=like&where[0][val]={prefix}")
        assert_error(r, 400, field="where")
        assert "users" not in r.json


def test_shown_attributes_still_filter_and_sort(api):
    assert int(api.get("/api/users?where[0][col]=username&where[0][expr]=eq&where[0][val]=admin").json["total"]) == 1
    assert api.get("/api/users?orderBy=username").status_code == 200
    assert api.get("/api/roles?order[0][col]=name&order[0][dir]=desc").status_code == 200
