"""The local stack's contact list and search speed (run with `make bench`, not in CI): p50 of a
list page (`limit=30`), a cursor page and an exact `search=email:` at 1k and 20k contacts, in
process over moto with the local stack's adjustments (`devstack/patches.py`), as `make run`
serves them, with the DynamoDB calls of each (docs/storage.md, "Local stack"): the reads through
moto's HTTP detour ("detour") and answered directly (`devstack/direct_reads.py`, "direct"), back
to back, so both are measured at the same load of the machine.

The contacts are copies of one created through the API, written straight into the tables
(`tests/bench/test_contacts_scale.py`), so the run takes a minute, not an hour.
"""

import os
import statistics
import time

import pytest

from chalicelib.store import entities as store
from devstack import direct_reads
from tests.bench.conftest import dynamodb_calls
from tests.bench.test_contacts_scale import _bulk_copies

SIZES = tuple(int(size) for size in os.environ.get("LIST_SIZES", "1000,20000").split(","))
REPEATS = int(os.environ.get("LIST_REPEATS", "30"))
pytestmark = pytest.mark.aws  # over moto, as the local stack serves it


def _p50(operation, repeats=REPEATS):
    """(wall, CPU) p50 in ms of `operation(n)`: the CPU time of the process (every thread; moto runs
    in it) is what the load of the shared machine inflates least."""
    walls, cpus = [], []
    for n in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        operation(n)
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def _operations(http, size):
    """The three reads by name, each an operation(n)."""
    after = http("GET", "/api/contacts?limit=30")["next"]
    return {
        "list page": lambda n: http("GET", "/api/contacts?limit=30"),
        "cursor page": lambda n: http("GET", f"/api/contacts?limit=30&after={after}"),
        "email search": lambda n: http("GET", f"/api/contacts?search=email:bulk{size - n}@example.com"),
    }


def test_list_speed(http, capsys):
    http("POST", "/api/contacts/new", {"email": "one@example.com", "firstname": "One"})
    stored = {k: v for k, v in store.get("contact", 1).items() if k != "_rev"}
    rows, filled = [], 1
    for size in SIZES:
        _bulk_copies(stored, filled + 1, size)
        filled = size
        for name, operation in _operations(http, size).items():
            operation(0)
            with dynamodb_calls() as calls:
                answer = operation(1)
            assert int(answer["total"]) == (1 if name == "email search" else size), (name, answer["total"])
            direct_reads.switch["on"] = False
            detour = _p50(operation)
            direct_reads.switch["on"] = True
            direct = _p50(operation)
            rows.append(
                (
                    f"{name} at {size:,}",
                    f"p50 wall/CPU {detour[0]:5.1f}/{detour[1]:5.1f} ms detour, "
                    f"{direct[0]:5.1f}/{direct[1]:5.1f} ms direct, DynamoDB {sum(calls.values())}",
                )
            )
    with capsys.disabled():
        print()
        for label, value in rows:
            print(f"{label:24} {value}")
