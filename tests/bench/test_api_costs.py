"""Benchmarks (run with `make bench`, not in CI): DynamoDB calls per operation and requests per
second through the app over moto, at growing data sizes. Prints a table; asserts only that the
single-entity and default-list costs do not grow with the data.

Requests per second here measure the app plus moto, whose Query sorts the whole partition on
every call; on DynamoDB a call's cost depends on the items it returns. The call counts are the
figure that carries over to AWS."""

import time

import pytest

from tests.bench.conftest import dynamodb_calls

pytestmark = pytest.mark.aws  # DynamoDB calls through the app: over moto
SIZES = (100, 1000, 5000)
FILLED = {}  # fill number -> contact id


def _fill(http, start, end):
    from chalicelib.domain.contacts.declarations import CONTACT
    from chalicelib.domain.kernel import service
    from chalicelib.domain.kernel.context import Context

    ctx = Context()
    for n in range(start, end):
        doc, _ = service.create(CONTACT, {"email": f"c{n}@example.com", "firstname": f"F{n}", "city": "Prague"}, ctx)
        FILLED[n] = doc["id"]


OPERATIONS = {
    "create": lambda http, n: http("POST", "/api/contacts/new", {"email": f"new{n}@example.com"}),
    "get": lambda http, n: http("GET", "/api/contacts/1"),
    "patch": lambda http, n: http("PATCH", "/api/contacts/1/edit", {"city": f"C{n}"}),
    "put": lambda http, n: http("PUT", "/api/contacts/2/edit", {"email": "c1@example.com", "city": "X"}),
    "list page (default order)": lambda http, n: http("GET", "/api/contacts?limit=30"),
    "list page 10 (start=270)": lambda http, n: http("GET", "/api/contacts?limit=30&start=270"),
    "search email: (unique index)": lambda http, n: http("GET", "/api/contacts?search=email:c7@example.com"),
    "search city: (reads kind)": lambda http, n: http("GET", "/api/contacts?search=city:Prague&limit=30"),
    "delete": lambda http, n: http("DELETE", f"/api/contacts/{n // 10 - n % 10 - 1}/delete"),
    "merge (PATCH to another's email)": lambda http, n: _merge(http, n // 20 + 2 * (n % 10)),
}


def _merge(http, k):
    """Give the contact filled as `c<k>` the email of `c<k+1>`: the two merge."""
    http("PATCH", f"/api/contacts/{FILLED[k]}/edit", {"email": f"c{k + 1}@example.com"})


def test_contact_operation_costs(http, capsys):
    rows, filled = [], 0
    for size in SIZES:
        _fill(http, filled, size)
        filled = size
        for name, operation in OPERATIONS.items():
            operation(http, size * 10)  # warm: credentials and cached kinds are re-checked after the fill
            with dynamodb_calls() as calls:
                operation(http, size * 10 + 9)
            started, repeats = time.perf_counter(), 5
            for n in range(1, repeats + 1):
                operation(http, size * 10 + n)
            rate = repeats / (time.perf_counter() - started)
            rows.append((size, name, sum(calls.values()), dict(calls), rate))
    with capsys.disabled():
        print("\n%-7s %-30s %6s %8s  %s" % ("data", "operation", "calls", "req/s", "DynamoDB calls"))
        for size, name, total, calls, rate in rows:
            print("%-7d %-30s %6d %8.1f  %s" % (size, name, total, rate, calls))
    constant = (
        "create",
        "get",
        "patch",
        "put",
        "delete",
        "list page (default order)",
        "search email: (unique index)",
        "merge (PATCH to another's email)",
    )
    for name in constant:
        costs = {total for size, op, total, _, _ in rows if op == name}
        assert len(costs) == 1, (name, costs)
