"""Segments at scale (run with `make bench`, not in CI): a full rebuild of one filtered segment at
10k and 100k contacts (seconds, DynamoDB calls), and the extra cost of one contact write with 0,
10 and 50 published segments.

Contacts are written straight into the tables (`_bulk_copies`); half live in Prague. The rebuild
runs the segment worker on the queued messages in this process, as the local stack does.
"""

import statistics
import time

import pytest

from devstack import workers as local
from tests.bench.conftest import dynamodb_calls
from tests.bench.test_contacts_scale import _bulk_copies

SIZES = (10_000, 100_000)
pytestmark = pytest.mark.aws  # tables written straight through boto3, DynamoDB calls counted: over moto


def _city_filter(city):
    return [
        {
            "glue": "and",
            "field": "city",
            "object": "lead",
            "type": "text",
            "operator": "=",
            "properties": {"filter": city},
        }
    ]


def _template(http):
    from chalicelib.store import entities as store

    http("POST", "/api/contacts/new", {"email": "first@example.com", "firstname": "First", "city": "Prague"})
    return {k: v for k, v in store.get("contact", 1).items() if k != "_rev"}


def test_full_rebuild_at_scale(http, capsys):
    template, filled = _template(http), 1
    for size in SIZES:
        _bulk_copies(template, filled + 1, size, city=lambda n: "Prague" if n % 2 else "Brno")
        filled = size
        segment = http("POST", "/api/segments/new", {"name": f"Prague {size}", "filters": _city_filter("Prague")})
        started = time.perf_counter()
        with dynamodb_calls() as calls:
            local.drain()
        seconds = time.perf_counter() - started
        shown = http("GET", f"/api/segments/{segment['list']['id']}")["list"]["rebuild"]
        members = int(http("GET", f"/api/contacts?search=segment:{segment['list']['alias']}&limit=1")["total"])
        assert shown["status"] == "done" and members == size // 2
        _print(
            capsys,
            [
                (
                    f"rebuild at {size:,}",
                    f"{seconds:.1f} s, {size / seconds:,.0f} contacts/s, "
                    f"{members:,} members, {shown['batches']} batches, "
                    f"DynamoDB {sum(calls.values()):,} {dict(calls)}",
                )
            ],
        )


def test_contact_write_cost_with_segments(http, capsys):
    _template(http)
    rows, made = [], 0
    for count in (0, 10, 50):
        for n in range(made, count):
            http("POST", "/api/segments/new", {"name": f"S{n}", "filters": _city_filter(f"City{n % 5}")})
        made = count
        local.drain()

        for label, body in (
            ("moving", lambda n: {"city": f"City{n % 5}"}),
            ("not moving", lambda n: {"firstname": f"F{n}"}),
        ):
            rows.append((f"PATCH {label}, {count} segments", _patch_cost(http, body)))
    _print(capsys, rows)


def _patch_cost(http, body):
    """Median/max latency and DynamoDB calls of a PATCH of contact 1 with body(n)."""
    http("PATCH", "/api/contacts/1/edit", body(0))
    with dynamodb_calls() as calls:
        http("PATCH", "/api/contacts/1/edit", body(1))
    samples = []
    for n in range(30):
        started = time.perf_counter()
        http("PATCH", "/api/contacts/1/edit", body(n))
        samples.append((time.perf_counter() - started) * 1000)
    return (
        f"median {statistics.median(samples):.1f} ms, max {max(samples):.1f} ms, "
        f"DynamoDB {sum(calls.values())} {dict(calls)}"
    )


def _print(capsys, rows):
    with capsys.disabled():
        for label, value in rows:
            print(f"\n{label:34} {value}", flush=True)
