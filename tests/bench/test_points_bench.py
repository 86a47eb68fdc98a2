"""Point triggers (run with `make bench`, not in CI): the DynamoDB calls of a contact PATCH that
writes points, with and without crossing a trigger, and the `triggerExistingLeads` pass over
1,000 contacts (BENCH_POINTS_SIZES), half of them at the threshold, then the same pass again
(nothing left to do). Contacts are written straight into the tables (`_bulk_copies`)."""

import os
import time

import pytest

from devstack import workers as local
from tests.bench.conftest import dynamodb_calls
from tests.bench.test_contacts_scale import _bulk_copies
from tests.bench.test_segments_bench import _print, _template

SIZES = tuple(int(s) for s in os.environ.get("BENCH_POINTS_SIZES", "1000").split(","))
pytestmark = pytest.mark.aws  # tables written straight through boto3, DynamoDB calls counted: over moto
TAG = {"name": "Tag", "type": "lead.changetags", "properties": {"add_tags": ["hot"]}}


def _counted(operation):
    with dynamodb_calls() as calls:
        operation()
    return f"{sum(calls.values())} {dict(calls)}"


def test_patch_costs(http, capsys):
    http("POST", "/api/points/triggers/new", {"name": "Hot", "points": 10, "events": [TAG]})
    ids = [http("POST", "/api/contacts/new", {"email": f"p{n}@example.com"})["contact"]["id"] for n in range(3)]
    http("PATCH", f"/api/contacts/{ids[0]}/edit", {"points": 10})  # warm; the tag exists from here on
    rows = [
        (
            "PATCH city (points as they were)",
            _counted(lambda: http("PATCH", f"/api/contacts/{ids[1]}/edit", {"city": "Prague"})),
        ),
        (
            "PATCH points, below the threshold",
            _counted(lambda: http("PATCH", f"/api/contacts/{ids[1]}/edit", {"points": 5})),
        ),
        (
            "PATCH points, crossing a trigger",
            _counted(lambda: http("PATCH", f"/api/contacts/{ids[2]}/edit", {"points": 12})),
        ),
    ]
    _print(capsys, rows)


def _timed_drain(size):
    started = time.perf_counter()
    with dynamodb_calls() as calls:
        local.drain()
    seconds = time.perf_counter() - started
    return f"{seconds:.1f} s, {size / seconds:,.0f} contacts/s, {sum(calls.values())} DynamoDB calls {dict(calls)}"


def test_existing_contacts_pass(http, capsys):
    template, filled = _template(http), 1
    for size in SIZES:
        _bulk_copies(dict(template, values=dict(template["values"], points=50)), filled + 1, filled + size // 2)
        _bulk_copies(dict(template, values=dict(template["values"], points=5)), filled + size // 2 + 1, filled + size)
        trigger = http(
            "POST",
            "/api/points/triggers/new",
            {"name": f"Hot {size}", "points": 10, "events": [TAG], "triggerExistingLeads": True},
        )["trigger"]
        rows = [(f"first pass over {size:,}", _timed_drain(size))]
        http("PATCH", f"/api/points/triggers/{trigger['id']}/edit", {"points": 9})  # lower: a new pass
        rows.append((f"second pass over {size:,} (nothing due)", _timed_drain(size)))
        assert int(http("GET", "/api/contacts?search=tag:hot&limit=1")["total"]) == size // 2
        _print(capsys, rows)
        http("DELETE", f"/api/points/triggers/{trigger['id']}/delete")
        filled += size
