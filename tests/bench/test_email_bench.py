"""Segment emails at scale (run with `make bench`, not in CI): one email to a segment of
BENCH_EMAIL_SIZE contacts (default 200; 10000 for the issue's figure) through moto's SES, messages
per second with the limiter off, then BENCH_EMAIL_RATE_CONTACTS of them again under a limit of
BENCH_EMAIL_RATE messages/second, to show the rate it holds.

Contacts are written straight into the tables (`_bulk_copies`); the workers run in this process
on the queued messages (`drain`), as the local stack does.
"""

import os
import time
from collections import Counter

import pytest

from chalicelib.domain.messaging import email_stats
from chalicelib.store import entities as store
from devstack import workers as local
from tests.bench.conftest import dynamodb_calls
from tests.bench.test_contacts_scale import _bulk_copies
from tests.bench.test_segments_bench import _city_filter, _print, _template

pytestmark = pytest.mark.aws  # tables written through boto3, SES and DynamoDB calls: over moto
SIZE = int(os.environ.get("BENCH_EMAIL_SIZE", "200"))
RATE = float(os.environ.get("BENCH_EMAIL_RATE", "20"))
RATE_CONTACTS = int(os.environ.get("BENCH_EMAIL_RATE_CONTACTS", "200"))
HTML = '<p>Hello {contactfield=firstname|there}</p><a href="https://shop.example/">Shop</a>{unsubscribe_text}'


def _audience(http, size):
    template = _template(http)
    _bulk_copies(template, 2, size, city=lambda n: "Prague")
    segment = http("POST", "/api/segments/new", {"name": "All", "filters": _city_filter("Prague")})
    local.drain()
    return segment["list"]["id"]


def _send(http, segment_id, limit=None):
    """Send a new email to the segment (at most `limit` contacts): (email, seconds, DynamoDB calls)."""
    email = http(
        "POST",
        "/api/emails/new",
        {
            "name": "Bench",
            "subject": "Hi {contactfield=firstname}",
            "customHtml": HTML,
            "emailType": "list",
            "lists": [segment_id],
        },
    )["email"]
    started = time.perf_counter()
    with dynamodb_calls() as calls:
        http("POST", f"/api/emails/{email['id']}/send", {"limit": limit} if limit else None)
        local.drain()
    return email, time.perf_counter() - started, sum(calls.values())


def test_segment_send_throughput_and_held_rate(http, capsys, configure):
    segment_id = _audience(http, SIZE)
    configure(EMAIL_SEND_RATE=0)
    email, seconds, calls = _send(http, segment_id)
    shown = http("GET", f"/api/emails/{email['id']}")["email"]
    assert shown["sentCount"] == SIZE and shown["sendProgress"]["status"] == "done"
    rows = [
        (
            f"segment send to {SIZE:,}",
            f"{seconds:.1f} s, {SIZE / seconds:,.0f} messages/s (no limit), "
            f"{shown['sendProgress']['batches']} batches, DynamoDB {calls:,} calls "
            f"({calls / SIZE:.1f} per message)",
        )
    ]
    configure(EMAIL_SEND_RATE=RATE)
    count = min(RATE_CONTACTS, SIZE)
    email, seconds, _ = _send(http, segment_id, limit=count)
    stamps = Counter(stat["dateSent"] for stat in store.iterate(email_stats.kind("email", email["id"])))
    whole = sorted(stamps)[1:-1]  # the first and last seconds are partial
    held = sum(stamps[s] for s in whole) / len(whole) if whole else float(count)
    assert max(stamps.values()) <= RATE
    rows.append(
        (
            f"limited to {RATE:g}/s, {count:,} sent",
            f"{seconds:.1f} s, {count / seconds:.1f} messages/s "
            f"overall, {held:.1f}/s in full seconds, "
            f"busiest second {max(stamps.values())}",
        )
    )
    _print(capsys, rows)
