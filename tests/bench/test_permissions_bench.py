"""Permissions (run with `make bench`, not in CI): the DynamoDB calls a role adds, for an
administrator, a role granting own and other documents, and a role granting only its own, with
100 and then 1,000 contacts (10 of them the restricted user's). Each request runs once to warm the
caches, then is counted and timed."""

import time

import pytest

from tests.api.test_permissions import _as
from tests.bench.conftest import dynamodb_calls
from tests.bench.test_segments_bench import _print
from tests.conftest import Api, local_http

pytestmark = pytest.mark.aws  # DynamoDB calls through the app: over moto


def _measure(client, path, method="GET", body=None):
    client.call(method, path, body)
    started = time.perf_counter()
    with dynamodb_calls() as calls:
        response = client.call(method, path, body)
    assert response.status_code < 300, response.json
    return sum(calls.values()), (time.perf_counter() - started) * 1000


def _import(api, n, start):
    for first in range(start, start + n, 100):
        batch = [{"email": f"c{i}@example.com"} for i in range(first, min(first + 100, start + n))]
        assert api.post("/api/contacts/batch/new", batch).status_code == 201


def test_permission_costs(chalice_app, fresh, capsys):
    api = Api(local_http(chalice_app))
    everyone = _as(api, "everyone", {"lead:leads": ["viewother", "editother"]})
    own = _as(api, "own", {"lead:leads": ["viewown", "editown", "create"]})
    mine = [own.post("/api/contacts/new", {"email": f"own{i}@example.com"}).json["contact"]["id"] for i in range(10)]
    rows, made = [], 0
    for size in (100, 1000):
        _import(api, size - made, made)
        made = size
        for name, client in (("admin", api), ("viewother", everyone), ("viewown only", own)):
            for label, method, path, body in (
                ("GET one", "GET", f"/api/contacts/{mine[0]}", None),
                ("PATCH one", "PATCH", f"/api/contacts/{mine[0]}/edit", {"firstname": name}),
                ("list page", "GET", "/api/contacts?limit=30", None),
            ):
                calls, ms = _measure(client, path, method, body)
                rows.append((f"{size} contacts, {name}: {label}", f"{calls} calls, {ms:.1f} ms"))
    _print(capsys, rows)
