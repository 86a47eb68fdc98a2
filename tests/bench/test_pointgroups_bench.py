"""Point groups (run with `make bench`, not in CI): the DynamoDB calls of the group resource and
of a contact's group scores, with 5 and then 50 groups and scores: none grows with them. Each
operation runs once to warm the caches (a group write moves the kind's version, so the next
request reloads the groups with one Query), then is counted."""

import pytest

from tests.bench.conftest import dynamodb_calls
from tests.bench.test_segments_bench import _print

pytestmark = pytest.mark.aws  # DynamoDB calls through the app: over moto


def _count(operation):
    with dynamodb_calls() as calls:
        operation()
    return sum(calls.values()), dict(calls)


def _operations(http, contact, group, n):
    scores = f"/api/contacts/{contact}/points/groups"
    return {
        "POST /points/groups/new": lambda: http("POST", "/api/points/groups/new", {"name": f"G{n}"}),
        "GET /points/groups/{id}": lambda: http("GET", f"/api/points/groups/{group}"),
        "PATCH /points/groups/{id}/edit": lambda: http("PATCH", f"/api/points/groups/{group}/edit", {"name": f"E{n}"}),
        "GET /points/groups (page)": lambda: http("GET", "/api/points/groups?limit=30"),
        "GET contact's group scores": lambda: http("GET", scores),
        "GET contact's score in a group": lambda: http("GET", f"{scores}/{group}"),
        "POST .../plus/{value}": lambda: http("POST", f"{scores}/{group}/plus/{n}"),
        "DELETE /points/groups/{id}/delete": lambda: http("DELETE", f"/api/points/groups/{n - 1}/delete"),
    }


def test_group_costs(http, capsys):
    contact = http("POST", "/api/contacts/new", {"email": "pat@example.com"})["contact"]["id"]
    rows, costs, made = [], {}, 0
    for size in (5, 50):
        for _ in range(made, size):
            group = http("POST", "/api/points/groups/new", {"name": "G"})["pointGroup"]["id"]
            http("POST", f"/api/contacts/{contact}/points/groups/{group}/set/1")
        made = size
        for name, operation in _operations(http, contact, 2, size).items():
            operation()
            total, calls = _count(_operations(http, contact, 2, size + 1)[name])
            costs.setdefault(name, set()).add(total)
            rows.append((f"{size} groups: {name}", f"{total} {calls}"))
    _print(capsys, rows)
    assert all(len(totals) == 1 for totals in costs.values()), costs
