"""Issue 39 (the fuzzer's 500s): `GET /api/tweets` (and `/api/tags`) with nested `order[...][...]`
keys answered 500: a key such as `²` passes `str.isdigit` but not `int`. Every list route answers
odd or nested query parameters with a 200 (ignored) or a 400 naming the parameter, never a 500;
so do the public routes that read a number from their path."""

from urllib.parse import quote

import pytest

ODD = (
    "order[²][col]=id",
    "order[0][col][²]=1&order[0][dir]=desc",
    "order[0][col]=id&order[²]=x",
    "order[a][b][c]=1&order[a][b][d][]=2",
    "where[²][col]=id&where[²][expr]=eq&where[²][val]=1",
    "where[0][col]=id&where[0][expr]=in&where[0][val][²]=1&where[0][val][x][y]=2",
    "where[0][col]=id&where[0][expr]=eq&where[0][val]=²",
    "where[0][expr]=andX&where[0][val][²][col]=id&where[0][val][²][expr]=eq&where[0][val][²][val]=1",
    "limit=²&start=²&page=²",
    "limit[a]=1&start[]=2&search[x]=y&orderBy[a][b]=c&orderByDir[]=x&minimal[]=1&publishedOnly[a]=1",
    "ids[²]=1&ids[a][b]=2",
)


def _list_routes():
    from chalicelib.api.blueprints import API_ROUTES

    return sorted(
        path for routes in API_ROUTES for path, methods in routes.needs.items() if "GET" in methods and "{" not in path
    )


@pytest.mark.parametrize("path", _list_routes())
def test_odd_query_parameters_are_a_400_or_ignored(api, path):
    for query in ODD:
        encoded = "&".join(quote(pair, safe="=[]") for pair in query.split("&"))
        answer = api.get(f"/api{path}?{encoded}")
        assert answer.status_code in (200, 400), (path, query, answer.status_code, answer.json)
        if answer.status_code == 400:
            assert answer.json["errors"][0]["message"], (path, query)


@pytest.mark.parametrize("path", ["/asset/²", "/focus/².js", "/email/view/²", "/p/page/²", "/r/²?url=x&sig=y"])
def test_a_unicode_digit_in_a_public_path_is_not_a_500(api, path):
    answer = api.http.request("GET", quote(path, safe="/?=&"), headers={"Accept": "*/*"}, body=b"")
    assert answer.status_code < 500, (path, answer.status_code)


@pytest.mark.parametrize(
    ("path", "key"),
    [("/api/points/triggers/new", "events"), ("/api/forms/new", "fields"), ("/api/automations/new", "events")],
)
def test_a_collection_keyed_by_a_unicode_digit_is_read_in_order(api, path, key):
    """`POST /api/points/triggers/new` with `events` keyed `²` (a PHP array from a fuzzer) was a 500:
    its keys are ordered numbers first, and `²` is no number. Malformed items are a 400 naming them."""
    answer = api.post(path, {"name": "T", key: {"0": {"name": "a"}, "²": {"name": "b"}}})
    assert answer.status_code == 400, answer.json
    assert f"{key}[" in answer.json["errors"][0]["message"]
