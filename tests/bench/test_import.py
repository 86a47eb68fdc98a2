"""Bulk import over HTTP against the local stack as `make run` starts it (run with `make bench`).

IMPORT_CONTACTS contacts (default 100,000) go through `/api/contacts/batch/new`, 200 per
request, from IMPORT_CLIENTS parallel clients (default 2). Meanwhile a probe reads one contact
every 50 ms. Reported: contacts per second, batch p50/p95, the probe's p50/p99/max (the longest
read stall), and GET one contact / list page / `email:` search p50 at 1k, 10k and 100k contacts.
"""

import http.client
import os
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from tests.bench.conftest import percentile
from tests.e2e.test_local_stack import Stack, _call

TOTAL = int(os.environ.get("IMPORT_CONTACTS", "100000"))
CLIENTS = int(os.environ.get("IMPORT_CLIENTS", "2"))
BATCH = 200
CHECKPOINTS = [size for size in (1_000, 10_000, 100_000) if size <= TOTAL]


class Probe(threading.Thread):
    """GET one contact every 50 ms; the latencies in ms."""

    def __init__(self, port, contact_id):
        super().__init__(daemon=True)
        self.port, self.contact_id, self.samples, self.stop = port, contact_id, [], threading.Event()

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        while not self.stop.wait(0.05):
            started = time.perf_counter()
            status, _, _ = _call(conn, "GET", f"/api/contacts/{self.contact_id}")
            assert status == 200
            self.samples.append((time.perf_counter() - started) * 1000)


def _reads(port, ids):
    """p50 ms of GET one contact, list page, email search at the current size (`ids`: the contacts
    imported so far; ids come in blocks per process, so they need not be 1..size)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    size = len(ids)
    paths = {
        "GET one": lambda n: f"/api/contacts/{ids[n * 97 % size]}",
        "list page": lambda n: "/api/contacts?limit=30",
        "email search": lambda n: f"/api/contacts?search=email:c{n * 97 % size}@example.com",
    }
    row = {}
    for name, path in paths.items():
        samples = []
        for n in range(30):
            started = time.perf_counter()
            status, _, _ = _call(conn, "GET", path(n))
            assert status == 200
            samples.append((time.perf_counter() - started) * 1000)
        row[name] = statistics.median(samples)
    return row


def _import(port, first, last, batch_ms, ids):
    def one(start):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        body = [
            {"email": f"c{n}@example.com", "firstname": f"F{n}", "lastname": "Import", "city": "Lyon"}
            for n in range(start, min(start + BATCH, last))
        ]
        started = time.perf_counter()
        status, answer, _ = _call(conn, "POST", "/api/contacts/batch/new", body)
        assert status == 201, answer
        batch_ms.append((time.perf_counter() - started) * 1000)
        ids.extend(contact["id"] for contact in answer["contacts"])

    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(one, range(first, last, BATCH)))


def test_import_over_http(tmp_path, capsys):
    stack = Stack(tmp_path / "data")
    try:
        status, body, _ = _call(stack.connection(), "POST", "/api/contacts/new", {"email": "probe@example.com"})
        probe = Probe(stack.port, body["contact"]["id"])
        probe.start()
        batch_ms, ids, reads, done, started = [], [], {}, 0, time.perf_counter()
        for checkpoint in CHECKPOINTS:
            _import(stack.port, done, checkpoint, batch_ms, ids)
            done = checkpoint
            reads[checkpoint] = _reads(stack.port, ids)
        elapsed = time.perf_counter() - started  # the reads at each checkpoint are included: they are few
        probe.stop.set()
        probe.join()
    finally:
        stack.stop()
    with capsys.disabled():
        print(
            f"\nimported {done:,} contacts in {elapsed:.0f} s: {done / elapsed:.0f} contacts/s "
            f"({CLIENTS} clients, batches of {BATCH})"
        )
        print(f"batch of {BATCH}: p50 {percentile(batch_ms, 50):.0f} ms, p95 {percentile(batch_ms, 95):.0f} ms")
        print(
            f"probe GET every 50 ms during the import: p50 {percentile(probe.samples, 50):.0f} ms, "
            f"p99 {percentile(probe.samples, 99):.0f} ms, longest {max(probe.samples):.0f} ms"
        )
        for size, row in reads.items():
            print(f"at {size:>7,} contacts: " + ", ".join(f"{name} p50 {ms:.1f} ms" for name, ms in row.items()))
