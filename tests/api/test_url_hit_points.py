"""Issue 41: the `url.hit` point action's rules (Mautic's PointActionHelper::validateUrlHit) on each page
hit of the tracking pixel, scored by the points subscriber: a hit count, returns within / after, and
the time spent on the URL's pages. Time is driven by the `frozen` clock."""

from urllib.parse import urlencode

import pytest

from tests.api.payloads import assert_error
from tests.api.test_pages_public import fetch, person
from tests.conftest import visitor_cookie


def _action(api, **props):
    body = {
        "name": "Pricing fan",
        "type": "url.hit",
        "delta": 10,
        "properties": {"page_url": "https://site.example/pricing*", **props},
    }
    r = api.post("/api/points/new", body)
    assert r.status_code == 201, r.json
    return r.json["point"]


def _visit(api, contact, url="https://site.example/pricing"):
    pixel = fetch(
        api,
        "/mtracking.gif?" + urlencode({"page_url": url}),
        {"Cookie": visitor_cookie(contact["id"]), "Accept": "*/*"},
    )
    assert pixel.status_code == 200
    return api.get(f"/api/contacts/{contact['id']}").json["contact"]["points"]


def test_a_hit_count_scores_at_the_third_hit_once(api, frozen):
    _action(api, page_hits=3)
    ann = person(api)
    assert [_visit(api, ann), _visit(api, ann, "https://site.example/about")] == [0, 0]  # another URL: not counted
    assert _visit(api, ann, "https://site.example/pricing?plan=pro") == 0  # the second matching hit
    assert _visit(api, ann) == 10  # the third
    assert _visit(api, ann) == 10  # not repeatable: once
    gained = [e for e in api.get(f"/api/contacts/{ann['id']}/activity").json["events"] if e["event"] == "point.gained"]
    assert [e["details"]["type"] for e in gained] == ["url.hit"]


def test_a_repeatable_count_scores_every_hit_from_the_count_on(api, frozen):
    body = {
        "name": "Loyal",
        "type": "url.hit",
        "delta": 1,
        "repeatable": True,
        "properties": {"page_url": "pricing", "page_hits": 2},
    }
    assert api.post("/api/points/new", body).status_code == 201
    ann = person(api)
    assert [_visit(api, ann) for _ in range(4)] == [0, 1, 2, 3]


def test_returns_within_and_after(api, frozen):
    _action(api, returns_within=2, returns_within_unit="H")
    body = {
        "name": "Comeback",
        "type": "url.hit",
        "delta": 100,
        "properties": {"page_url": "pricing", "returns_after": 1, "returns_after_unit": "d"},
    }
    assert api.post("/api/points/new", body).status_code == 201
    ann = person(api)
    assert _visit(api, ann) == 0  # no previous hit: neither holds
    frozen.advance(hours=3)
    assert _visit(api, ann) == 0  # back after 3 hours: not within 2, not after a day
    frozen.advance(hours=1)
    assert _visit(api, ann) == 10  # within 2 hours of the last
    frozen.advance(days=2)
    assert _visit(api, ann) == 110  # two days later


def test_accumulated_time_on_the_pages(api, frozen):
    _action(api, accumulative_time=5, accumulative_time_unit="i")
    ann = person(api)
    assert _visit(api, ann) == 0
    frozen.advance(minutes=3)
    assert _visit(api, ann, "https://site.example/about") == 0  # 3 minutes on pricing (left for /about)
    assert _visit(api, ann) == 0  # 3 minutes; /about's time is not pricing's
    frozen.advance(minutes=2)
    assert _visit(api, ann) == 10  # 3 + 2 minutes


@pytest.mark.aws  # counts DynamoDB calls: over moto
def test_costs_of_a_counted_hit(api, frozen):
    from tests.bench.conftest import dynamodb_calls

    _action(api, page_hits=3)
    ann = person(api)
    _visit(api, ann)
    with dynamodb_calls() as calls:
        _visit(api, ann)
    print("url.hit costs", dict(calls))
    assert calls["Query"] <= 3  # the contact's timeline, read once for its hits and its point history


def test_options_that_are_not_whole_numbers_are_refused(api):
    for name, value in (("page_hits", "three"), ("returns_within", -1), ("accumulative_time", "Infinity")):
        body = {"name": "Bad", "type": "url.hit", "properties": {"page_url": "x", name: value}}
        assert_error(api.post("/api/points/new", body), 400, field=f"properties[{name}]")
    assert api.get("/api/points").json["total"] == 0
