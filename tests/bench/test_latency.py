"""The latency model (issue 43; `make bench`, not in CI): for each resource of the spec (list page,
GET, create, PATCH) and the contacts' costly pages, the AWS calls a request makes and the round trips
it waits on in sequence (tests/round_trips.py), and its time on AWS at LATENCY_MS per call (default 5,
about a DynamoDB call from Lambda in the same region) plus the app's own time measured here.
The budgets CI keeps are in tests/api/test_round_trips.py; docs/storage.md ("Latency") has the table."""

import os
import time

import pytest

from tests.api.payloads import RESOURCES
from tests.round_trips import modelled

pytestmark = pytest.mark.aws  # calls and round trips of AWS itself (SQS, DynamoDB): over moto

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


SEND_MEMBERS = int(os.environ.get("BENCH_SEND_MEMBERS", "400"))
WORKERS = 10  # the sends worker's ScalingConfig.MaximumConcurrency (workers.SOURCES["sends"])
POLLER = ("ReceiveMessage", "DeleteMessage", "ChangeMessageVisibility")


def _send_segment(http, drain, members):
    rule = {"glue": "and", "field": "city", "object": "lead", "type": "text", "operator": "="}
    filters = [dict(rule, properties={"filter": "Sendville"})]
    segment = http("POST", "/api/segments/new", {"name": "Sendville", "filters": filters})["list"]["id"]
    for n in range(members):
        http("POST", "/api/contacts/new", {"email": f"s{n}@example.com", "firstname": f"S{n}", "city": "Sendville"})
    drain()
    return segment


def _email(http, segment):
    body = {"name": "Bench", "subject": "Hi {contactfield=firstname}", "emailType": "list", "lists": [segment]}
    body["customHtml"] = '<p>Hi {contactfield=firstname}</p><a href="https://shop.example/">Shop</a>'
    return http("POST", "/api/emails/new", body)["email"]["id"]


def _one_batch(http, segment, trips):
    """Queue a send with nothing inline, run its plan, then one batch message, modelled: (messages,
    the app's own ms on its path, AWS calls left out); its calls and round trips go to `trips`."""
    from chalicelib.store import queues
    from chalicelib.workers import sends

    http("POST", f"/api/emails/{_email(http, segment)}/send")
    ((receipt, plan, _),) = queues.receive("sends")
    sends.handle(plan)
    queues.delete("sends", receipt)
    batch = queues.receive("sends")[0][1]
    with modelled(delay=0.02) as measured:
        started = time.perf_counter()
        sends.handle(dict(batch))
        app_ms = measured.idle_seconds(started, time.perf_counter()) * 1000
    trips.update(calls=measured.calls, rounds=measured.rounds, waves=measured.waves)
    return len(batch["contacts"]), app_ms


def test_segment_send_latency_model(http, drain, configure, capsys):
    """A batch message of the sends worker and the send request, at LATENCY_MS per AWS call: calls,
    sequential round trips, messages/s per worker and for the fleet (WORKERS invocations at once)."""
    segment = _send_segment(http, drain, SEND_MEMBERS)
    configure(EMAIL_SEND_INLINE=0)
    configure(EMAIL_SEND_RATE=0)
    configure(VERSIONS_TTL=60)  # as on AWS: once a second per container
    trips: dict = {}
    size, app_ms = _one_batch(http, segment, trips)
    batch_ms = app_ms + trips["rounds"] * LATENCY_MS
    configure(EMAIL_SEND_INLINE=1000)
    email = _email(http, segment)
    with modelled(delay=0.02) as request:
        started = time.perf_counter()
        answer = http("POST", f"/api/emails/{email}/send")
        own_ms = request.idle_seconds(started, time.perf_counter()) * 1000
    request_ms = own_ms + request.rounds * LATENCY_MS
    with capsys.disabled():
        print(f"\nsegment send, {size} messages a batch, @{LATENCY_MS:g} ms/call:")
        print(f"  batch: {trips['calls']} calls ({trips['calls'] / size:.2f} a message, SES included),")
        print(f"  {trips['rounds']} sequential round trips, app {app_ms:.0f} ms, {batch_ms:.0f} ms in all:")
        print(
            f"  {size / batch_ms * 1000:.0f} messages/s a worker, {size / batch_ms * 1000 * WORKERS:.0f} with {WORKERS}"
        )
        print(f"  request to {SEND_MEMBERS} members: {request.calls} calls, {request.rounds} round trips,")
        print(f"  ~{request_ms:.0f} ms, {answer['sentCount']} sent inline")
    assert trips["rounds"] < trips["calls"]
