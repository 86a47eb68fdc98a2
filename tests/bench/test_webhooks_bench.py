"""Benchmark (`make bench`, not in CI): webhook deliveries from the local stack to a receiver on
127.0.0.1. Prints the delay from a contact write (its API answer) to the receipt of its event,
p50/p95, with writes spaced out, and deliveries per second for a burst of writes.

The local stack runs the API and the workers under one lock (moto is not thread-safe) and polls
its queues every 0.2 s when idle, so both figures are the local stack's, not Lambda's."""

import time

from tests.api.test_webhook_delivery import SAVE_TRIGGERS, Receiver
from tests.bench.conftest import percentile
from tests.e2e.test_local_stack import Stack, _call

SPACED, BURST = 100, 300


def _write(conn, n):
    status, body, _ = _call(conn, "POST", "/api/contacts/new", {"email": f"bench{n}@example.com"})
    assert status == 201
    return body["contact"]["id"], time.time()


def _receipts(receiver, count):
    received = receiver.wait(count, timeout=120)
    return {r.json["mautic.lead_post_save_new"][0]["contact"]["id"]: r.at for r in received}


def test_webhook_delivery_rate_and_delay(tmp_path, capsys):
    stack, receiver = Stack(tmp_path / "data"), Receiver()
    try:
        conn = stack.connection()
        _call(conn, "POST", "/api/hooks/new", {"name": "Bench", "webhookUrl": receiver.url, "triggers": SAVE_TRIGGERS})
        written = {}
        for n in range(SPACED):
            contact_id, at = _write(conn, n)
            written[contact_id] = at
            time.sleep(0.05)
        received = _receipts(receiver, SPACED)
        delays = [received[i] - written[i] for i in written]
        started = time.time()
        for n in range(SPACED, SPACED + BURST):
            _write(conn, n)
        writes_done = time.time()
        last = max(_receipts(receiver, SPACED + BURST).values())
        assert len(receiver.received) == SPACED + BURST
        with capsys.disabled():
            print(
                f"\nwrite -> receipt delay ({SPACED} writes 50 ms apart): "
                f"p50 {percentile(delays, 50) * 1000:.0f} ms, p95 {percentile(delays, 95) * 1000:.0f} ms, "
                f"max {max(delays) * 1000:.0f} ms"
            )
            print(
                f"burst of {BURST} writes: {BURST / (writes_done - started):.0f} writes/s; "
                f"{BURST / (last - started):.0f} deliveries/s from the first write to the last receipt"
            )
    finally:
        receiver.close()
        stack.stop()
