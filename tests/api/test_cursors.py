"""Cursor paging: list answers carry `next` and a `Link` header while more items follow in key
order; `after=<cursor>` continues reading only the page, however deep."""

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from chalicelib.store import port as entities
from tests.api.payloads import assert_error


def _tags(api, n):
    r = api.post("/api/tags/batch/new", [{"tag": f"t{i:03}"} for i in range(n)])
    assert r.status_code == 201
    return [t["id"] for t in r.json["tags"]]


def _ids(answer):
    tags = answer.json["tags"]
    return [t["id"] for t in (tags.values() if isinstance(tags, dict) else tags)]


def _walk(api, first):
    pages, r = [], api.get(first)
    while True:
        assert r.status_code == 200, r.json
        pages.append(_ids(r))
        if "next" not in r.json:
            assert "Link" not in r.headers
            return pages
        link = re.fullmatch(r'<([^>]+)>; rel="next"', r.headers["Link"]).group(1)
        parts = urlsplit(link)
        query = parse_qs(parts.query)
        assert query["after"] == [r.json["next"]] and "start" not in query
        r = api.get(f"{parts.path}?{parts.query}")


def test_walking_the_cursors_visits_every_item_once_in_order(api):
    ids = _tags(api, 7)
    assert _walk(api, "/api/tags?limit=3") == [ids[0:3], ids[3:6], ids[6:7]]


def test_descending_order(api):
    ids = _tags(api, 5)
    assert _walk(api, "/api/tags?limit=2&orderByDir=desc") == [ids[4:2:-1], ids[2:0:-1], ids[0:1]]


def test_a_full_last_page_has_no_next(api):
    ids = _tags(api, 4)
    assert _walk(api, "/api/tags?limit=2") == [ids[0:2], ids[2:4]]


def test_offset_pages_carry_a_cursor_too(api):
    ids = _tags(api, 5)
    r = api.get("/api/tags?start=1&limit=2")
    assert _ids(r) == ids[1:3] and int(r.json["total"]) == 5
    assert _ids(api.get(f"/api/tags?limit=2&after={r.json['next']}")) == ids[3:5]


def test_after_reads_only_the_page_however_deep(api, monkeypatch):
    ids = _tags(api, 40)
    r = api.get("/api/tags?start=35&limit=2")
    read = []
    iterate = entities.iterate

    def counting(*args, **kw):
        for doc in iterate(*args, **kw):
            read.append(doc["id"])
            yield doc

    monkeypatch.setattr(entities, "iterate", counting)
    assert _ids(api.get(f"/api/tags?limit=2&after={r.json['next']}")) == ids[37:39]
    assert read == ids[37:40]  # the page and one more to know whether a next page exists


def test_lists_without_more_items_and_non_key_order_lists_have_no_cursor(api):
    _tags(api, 3)
    assert "next" not in api.get("/api/tags").json
    r = api.get("/api/tags?limit=1&search=t00")
    assert int(r.json["total"]) == 3 and "next" not in r.json


@pytest.mark.parametrize("cursor", ["garbage", "dGFnOng", "Y29udGFjdDox", "%00"])
def test_a_bad_cursor_is_400_naming_after(api, cursor):
    _tags(api, 2)
    assert_error(api.get(f"/api/tags?after={cursor}"), 400, field="after")


def test_a_cursor_with_a_search_is_400(api):
    _tags(api, 3)
    cursor = api.get("/api/tags?limit=1").json["next"]
    assert_error(api.get(f"/api/tags?limit=1&search=t&after={cursor}"), 400, field="after")
