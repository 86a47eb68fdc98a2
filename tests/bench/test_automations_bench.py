"""Automations at scale (run with `make bench`, not in CI): contacts entering an automation from a
segment with their first action run, per second, at 1k and 10k members (BENCH_AUTOMATION_SIZES),
and how late delayed events fire on real time (SQS delays, the minute job).

Contacts are written straight into the tables (`_bulk_copies`), all in Prague; the segment is
rebuilt first (not timed), then the automation is created and the workers drained in this process.
"""

import os
import statistics
import time

import pytest

from chalicelib.domain.automations import automation_runs
from chalicelib.domain.kernel import clock
from devstack import workers as local
from tests.bench.conftest import dynamodb_calls
from tests.bench.test_contacts_scale import _bulk_copies
from tests.bench.test_segments_bench import _city_filter, _print, _template

pytestmark = pytest.mark.aws  # tables written through boto3, SQS delays, DynamoDB calls: over moto
SIZES = tuple(int(s) for s in os.environ.get("BENCH_AUTOMATION_SIZES", "1000,10000").split(","))
LATE_CONTACTS = 20


def _events():
    return [
        {
            "id": "new1",
            "name": "Welcome tag",
            "type": "lead.changetags",
            "eventType": "action",
            "properties": {"add_tags": ["welcomed"]},
        },
        {
            "id": "new2",
            "name": "Follow-up",
            "type": "lead.changepoints",
            "eventType": "action",
            "properties": {"points": 5},
            "parent": "new1",
            "triggerMode": "interval",
            "triggerInterval": 1,
            "triggerIntervalUnit": "d",
        },
    ]


def test_enrollment_throughput(http, capsys):
    template, filled = _template(http), 1
    for size in SIZES:
        _bulk_copies(template, filled + 1, size, city=lambda n: "Prague")
        filled = size
        segment = http("POST", "/api/segments/new", {"name": f"All {size}", "filters": _city_filter("Prague")})
        local.drain()
        automation = http(
            "POST",
            "/api/automations/new",
            {"name": f"Welcome {size}", "events": _events(), "lists": [segment["list"]["id"]]},
        )["automation"]
        started = time.perf_counter()
        with dynamodb_calls() as calls:
            local.drain()
        seconds = time.perf_counter() - started
        members = int(http("GET", f"/api/automations/{automation['id']}/contacts?limit=1")["total"])
        tagged = int(http("GET", "/api/contacts?search=tag:welcomed&limit=1")["total"])
        assert members == size and tagged == size
        _print(
            capsys,
            [
                (
                    f"enter + first action at {size:,}",
                    f"{seconds:.1f} s, {size / seconds:,.0f} contacts/s, "
                    f"{sum(calls.values()) / size:.1f} DynamoDB calls per contact {dict(calls)}",
                )
            ],
        )
        http("DELETE", f"/api/automations/{automation['id']}/delete")
        http("DELETE", f"/api/segments/{segment['list']['id']}/delete")
        local.drain()


def _lateness(http, automation_id, contacts, deadline):
    """Run the workers (and the minute job every 60 s) until every contact got the delayed event;
    seconds between each event's due time and its run."""
    next_job = time.monotonic()
    while time.monotonic() < deadline:
        if time.monotonic() >= next_job:
            automation_runs.dispatch()
            next_job += 60
        local.drain()
        runs = [_ran(http, c) for c in contacts]
        if all(runs):
            return [(clock.parse(ran) - clock.parse(due)).total_seconds() for ran, due in runs]
        time.sleep(0.2)
    raise AssertionError("delayed events did not all fire")


def _ran(http, contact_id):
    events = http(
        "GET",
        f"/api/contacts/{contact_id}/activity?filters[includeEvents][]=campaign.event"
        f"&filters[includeEvents][]=campaign.event.scheduled",
    )["events"]
    ran = [e["timestamp"] for e in events if e["event"] == "campaign.event"]
    due = [e["details"]["triggerDate"] for e in events if e["event"] == "campaign.event.scheduled"]
    return (ran[0], due[0]) if ran and due else None


def test_delayed_events_fire_on_time(http, capsys):
    rows = []
    for minutes, how in ((1, "queued by the write"), (3, "queued by the minute job")):
        automation = http(
            "POST",
            "/api/automations/new",
            {
                "name": f"Later {minutes}",
                "events": [
                    {
                        "id": "new1",
                        "name": "Later",
                        "type": "lead.changetags",
                        "eventType": "action",
                        "properties": {"add_tags": ["later"]},
                        "triggerMode": "interval",
                        "triggerInterval": minutes,
                        "triggerIntervalUnit": "i",
                    }
                ],
            },
        )["automation"]
        contacts = []
        for n in range(LATE_CONTACTS):
            contact = http("POST", "/api/contacts/new", {"email": f"late{minutes}-{n}@example.com"})["contact"]
            http("POST", f"/api/automations/{automation['id']}/contact/{contact['id']}/add")
            contacts.append(contact["id"])
        late = _lateness(http, automation["id"], contacts, time.monotonic() + minutes * 60 + 120)
        rows.append(
            (
                f"{minutes} min delay, {how}",
                f"late by median {statistics.median(late):.1f} s, max {max(late):.1f} s over {len(late)} contacts",
            )
        )
    _print(capsys, rows)
