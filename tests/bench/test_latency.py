"""The latency model (issue 43; `make bench`, not in CI): for each resource of the spec (list page,
GET, create, PATCH) and the contacts' costly pages, the AWS calls a request makes and the round trips
it waits on in sequence (tests/round_trips.py), and its time on AWS at LATENCY_MS per call (default 5,
about a DynamoDB call from Lambda in the same region) plus the app's own time measured here.
The budgets CI keeps are in tests/api/test_round_trips.py; docs/storage.md ("Latency") has the table."""

import os
import time

from tests.api.payloads import RESOURCES
from tests.round_trips import modelled

LATENCY_MS = float(os.environ.get("LATENCY_MS", "5"))
CONTACTS = 300


def _measure(call, method, path, body=None):
    """(calls, round trips, app time in ms) of one request (warmed first)."""
    call(method, path, body)
    with modelled(delay=0.02) as trips:
        call(method, path, body)
    started = time.perf_counter()
    call(method, path, body)
    return trips.calls, trips.rounds, (time.perf_counter() - started) * 1000


def _routes(http):
    for n in range(CONTACTS):
        http("POST", "/api/contacts/new", {"email": f"c{n}@example.com"})
    yield "GET /api/contacts?limit=30", ("GET", "/api/contacts?limit=30")
    after = http("GET", "/api/contacts?limit=30")["next"]
    yield "GET /api/contacts?after=<cursor>", ("GET", f"/api/contacts?limit=30&after={after}")
    yield "GET /api/contacts?search=email:c7@…", ("GET", "/api/contacts?search=email:c7@example.com")
    yield "GET /api/contacts?search=city:x", ("GET", "/api/contacts?search=city:Prague&limit=30")
    for res in RESOURCES:
        created = http("POST", f"{res.base}/new", res.create)[res.singular]
        yield f"GET {res.base}", ("GET", f"{res.base}?limit=30")
        yield f"GET {res.base}/{{id}}", ("GET", f"{res.base}/{created['id']}")
        yield f"PATCH {res.base}/{{id}}/edit", ("PATCH", f"{res.base}/{created['id']}/edit", {res.name: "x"})


def test_latency_model(http, capsys):
    rows = []
    for name, request in _routes(http):
        calls, rounds, app_ms = _measure(http, *request)
        rows.append((name, calls, rounds, app_ms, app_ms + rounds * LATENCY_MS))
    with capsys.disabled():
        print(f"\n{'route':45} {'calls':>6} {'rounds':>7} {'app ms':>8} {f'@{LATENCY_MS:g}ms/call':>13}")
        for name, calls, rounds, app_ms, total in rows:
            print(f"{name:45} {calls:6d} {rounds:7d} {app_ms:8.1f} {total:13.1f}")
    assert all(rounds <= calls for _, calls, rounds, _, _ in rows)
