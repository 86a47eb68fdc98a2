"""Benchmark (`make bench`, not in CI): DynamoDB calls of the public tracked requests (landing page,
tracking pixel, asset download) for a new visitor (an anonymous contact is created), a tracked
contact (the `mtc_id` cookie) and a bot, after 0 and 1000 other contacts. Prints a table; asserts
that no cost grows with the contacts and that a new visitor's contact is one transaction."""

import pytest

from tests.api.test_files_assets import make_local_asset
from tests.api.test_pages_public import make_page
from tests.api.test_visitors import BROWSER
from tests.bench.conftest import dynamodb_calls
from tests.bench.test_api_costs import _fill
from tests.conftest import visitor_cookie

pytestmark = pytest.mark.aws  # DynamoDB calls of public requests: over moto
PIXEL = "/mtracking.gif?page_url=https%3A%2F%2Fsite.example%2F"
VISITORS = {"new visitor": (BROWSER, False), "tracked contact": (BROWSER, True), "bot": (None, False)}


def _get(api, path, user_agent, cookie):
    headers = {
        "Accept": "*/*",
        **({"User-Agent": user_agent} if user_agent else {}),
        **({"Cookie": visitor_cookie(cookie)} if cookie else {}),
    }
    response = api.http.request("GET", path, headers=headers, body=b"")
    assert response.status_code == 200, response.body[:300]


def test_public_hit_costs(api, capsys):
    make_page(api)
    asset, _ = make_local_asset(api)
    known = api.post("/api/contacts/new", {"email": "pia@example.com"}).json["contact"]["id"]
    requests = {"landing page": "/spring-offer", "tracking pixel": PIXEL, "asset download": f"/asset/{asset['id']}"}
    rows = []
    for size in (0, 1000):
        _fill(None, 0, size)
        for request, path in requests.items():
            for visitor, (user_agent, tracked) in VISITORS.items():
                _get(api, path, user_agent, known if tracked else None)  # warm: versions, first-visit markers
                with dynamodb_calls() as calls:
                    _get(api, path, user_agent, known if tracked else None)
                rows.append((size, f"{request}, {visitor}", dict(calls)))
    with capsys.disabled():
        print("\n%-6s %-36s %5s  %s" % ("other", "request", "calls", "DynamoDB calls"))
        for size, name, calls in rows:
            print("%-6d %-36s %5d  %s" % (size, name, sum(calls.values()), calls))
    for _, name, calls in rows:
        assert sum(calls.values()) == next(sum(c.values()) for _, n, c in rows if n == name), name
    created = {name: calls for _, name, calls in rows if name.endswith("new visitor")}
    assert created["tracking pixel, new visitor"]["TransactWriteItems"] == 1
