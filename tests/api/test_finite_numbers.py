"""Issue 39: `{"age": "Infinity"}` (also `NaN`, `1e309`, `-Infinity`, and in `points`) answered 500
on PATCH and create. Every number field of every resource refuses them with a 400 naming the
field, whether sent as a string, as a JSON literal (`Infinity`, `1e309` parse as floats) or
form-encoded; nothing is written."""

import json

import pytest

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import registry
from tests.api.payloads import RESOURCES, assert_error, create

NON_FINITE = ("Infinity", "-Infinity", "NaN", "1e309")
JSON_HEADERS = {"Content-Type": "application/json"}
FORM_HEADERS = {"Content-Type": "application/x-www-form-urlencoded"}


def _raw(body, literal):
    """A JSON body whose `__number__` placeholder is the bare literal (not a string)."""
    return json.dumps(body).replace('"__number__"', literal).encode()


def _number_fields(res):
    resource = next(r for r in registry.resources() if r.prefix == res.prefix)
    return [attr.name for attr in resource.attrs if attr.writable and attr.coerce is a.as_int]


@pytest.fixture
def age(api):
    made = api.post("/api/fields/contact/new", {"label": "Age", "alias": "age", "type": "number"})
    assert made.status_code == 201, made.json
    return api.post("/api/contacts/new", {"firstname": "Ann", "email": "ann@example.com", "age": 41}).json["contact"]


@pytest.mark.parametrize("field", ["age", "points"])
@pytest.mark.parametrize("number", NON_FINITE)
def test_a_contact_number_refuses_non_finite_values(api, age, field, number):
    url = f"/api/contacts/{age['id']}/edit"
    before = api.get(f"/api/contacts/{age['id']}").json["contact"]
    assert_error(api.patch(url, {field: number}), 400, field=field)
    assert_error(api.call("PATCH", url, raw=_raw({field: "__number__"}, number), headers=JSON_HEADERS), 400, field)
    assert_error(api.call("PATCH", url, raw=f"{field}={number}".encode(), headers=FORM_HEADERS), 400, field=field)
    assert_error(api.put(url, {"email": "ann@example.com", field: number}), 400, field=field)
    created = {"firstname": "Bob", "email": "bob@example.com", field: number}
    assert_error(api.post("/api/contacts/new", created), 400, field=field)
    assert api.post("/api/contacts/batch/new", [created]).json["statusCodes"] == [400]
    assert api.get(f"/api/contacts/{age['id']}").json["contact"] == before
    assert int(api.get("/api/contacts").json["total"]) == 1


def _send(api, method, url, body, number):
    return api.call(method, url, raw=_raw(body, number), headers=JSON_HEADERS)


@pytest.mark.parametrize("res", RESOURCES, ids=str)
def test_every_number_field_refuses_non_finite_values(api, res):
    """Each integer attribute as a string and as a JSON literal, and a literal in the text field
    (a float no document holds): 400 naming the field on create and PATCH, nothing written."""
    made = create(api, res)
    url = f"{res.base}/{made['id']}"
    before, total = api.get(url).json[res.singular], api.get(res.base).json["total"]
    for field in [*_number_fields(res), res.name]:
        for number in NON_FINITE:
            if field != res.name:
                assert_error(api.patch(f"{url}/edit", {field: number}), 400, field=field)
            assert_error(_send(api, "PATCH", f"{url}/edit", {field: "__number__"}, number), 400, field=field)
            created = _send(api, "POST", f"{res.base}/new", dict(res.create, **{field: "__number__"}), number)
            assert_error(created, 400, field=field)
    assert api.get(url).json[res.singular] == before
    assert api.get(res.base).json["total"] == total
