"""Hostile input never reaches a 500: deep nesting is a 400 naming what nests, odd types and sizes
in bodies, query parameters and path segments are answered (4xx or ignored), never a 5xx."""

import pytest

from tests.api.payloads import assert_error

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
DEEP = 5000


@pytest.mark.parametrize(
    "raw", ["[" * DEEP + "]" * DEEP, '{"a":' * 900 + "1" + "}" * 900, '{"firstname":' + "[" * 40 + "]" * 40 + "}"]
)
def test_deep_json_body_is_400(api, raw):
    r = api.call("POST", "/api/contacts/new", raw=raw.encode(), headers={"Content-Type": JSON})
    assert_error(r, 400, field="body")
    assert int(api.get("/api/contacts").json["total"]) == 0


def test_json_body_at_the_depth_limit_is_accepted(api):
    nested = "x"
    for _ in range(30):
        nested = {"k": nested}
    r = api.post("/api/tags/new", {"tag": "deep", "extra": nested})
    assert r.status_code == 201, r.json


def test_deep_form_key_is_400_naming_it(api):
    r = api.call(
        "POST", "/api/contacts/new", raw=("firstname" + "[b]" * 3000 + "=1").encode(), headers={"Content-Type": FORM}
    )
    assert_error(r, 400, field="firstname")
    assert int(api.get("/api/contacts").json["total"]) == 0


def test_deep_query_key_is_400_naming_it(api):
    assert_error(api.get("/api/contacts?where" + "[0]" * 3000 + "=1"), 400, field="where")


@pytest.mark.parametrize(
    "method,path,body",
    [
        ("GET", "/api/contacts/99999999999999999999999999999999999999999999999", None),
        ("GET", "/api/contacts/1e999", None),
        ("GET", "/api/contacts?start=1e999", None),
        ("GET", "/api/contacts?limit=999999999999999999999999999999", None),
        ("GET", "/api/contacts?search=" + "(" * 3000, None),
        ("GET", "/api/contacts?search=ids:" + "9" * 50, None),
        ("GET", "/api/contacts?orderBy[]=x&orderByDir[]=y&search[]=z", None),
        ("GET", "/api/contacts?where=x&order=y", None),
        ("GET", "/api/contacts?where[0][col][]=email&order[0][dir][]=x", None),
        ("GET", "/api/contacts?after[]=x", None),
        ("GET", "/api/contacts?after=%00%ff", None),
        ("POST", "/api/contacts/new", {"email": "a@b.co", "points": 10**40}),
        ("POST", "/api/emails/new", {"name": "x", "category": 10**40, "publishUp": "9" * 40}),
        ("POST", "/api/tags/new", {"tag": 1.5e308}),
        (
            "POST",
            "/api/segments/new",
            {"name": "x", "filters": [{"glue": [], "field": {}, "operator": [], "filter": {}}]},
        ),
        ("POST", "/api/forms/new", {"name": "x", "fields": [{"label": [], "type": {}, "properties": 5}]}),
        ("POST", "/api/automations/new", {"name": "x", "events": [{"type": [], "eventType": {}, "parent": "x"}]}),
        ("POST", "/api/hooks/new", {"name": "x", "webhookUrl": ["x"], "triggers": {"a": []}}),
        ("POST", "/api/contacts/1/points/plus/" + "9" * 60, None),
        ("GET", "/api/files/images?subdir[]=x", None),
    ],
)
def test_odd_types_and_sizes_are_never_server_errors(api, method, path, body):
    r = api.call(method, path, body)
    assert r.status_code < 500, (r.status_code, r.body[:300])
    assert r.status_code < 400 or r.json["errors"][0]["code"] == r.status_code
