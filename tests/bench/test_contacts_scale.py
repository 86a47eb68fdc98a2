"""Contacts at scale (run with `make bench`, not in CI): creates per second (one by one and in
batches of 200), and GET / PATCH latency with their DynamoDB calls at 1k and 50k contacts.

The big data set is written straight into the tables (copies of a contact created through the
API, with their email index and unique claims), so the run takes about a minute, not an hour.
"""

import json
import statistics
import time

import boto3
import pytest
from boto3.dynamodb.types import TypeSerializer

from chalicelib import config
from chalicelib.store import entities as store
from chalicelib.store.keys import email_head, partition
from chalicelib.store.models import Counter, Entity, Unique
from tests.bench.conftest import dynamodb_calls

SIZES = (1_000, 50_000)
pytestmark = pytest.mark.aws  # over moto, as the local stack serves it
_serialize = TypeSerializer().serialize


def _bulk_copies(template, first, last, city=None):
    """Contacts first..last as copies of `template` (its city from `city(n)` if given), written 25
    per BatchWriteItem."""
    client = boto3.client("dynamodb", region_name=config.active().AWS_REGION)
    for start in range(first, last + 1, 25):
        entities, uniques = [], []
        for n in range(start, min(start + 25, last + 1)):
            email = f"bulk{n}@example.com"
            values = dict(template["values"], email=email, firstname=f"F{n}")
            if city:
                values["city"] = city(n)
            doc = dict(template, id=n, values=values)
            entities.append(
                {
                    "PutRequest": {
                        "Item": {
                            "kind": {"S": partition("contact", n)},
                            "id": {"N": str(n)},
                            "doc": {"S": json.dumps(doc)},
                            "email": {"S": email},
                            "head": {"S": email_head("contact", email, n)},
                        }
                    }
                }
            )
            uniques.append({"PutRequest": {"Item": {"key": {"S": f"contact#email#{email}"}, "id": {"N": str(n)}}}})
        client.batch_write_item(RequestItems={Entity.Meta.table_name: entities, Unique.Meta.table_name: uniques})
    client.put_item(TableName=Counter.Meta.table_name, Item={"name": {"S": "id#contact"}, "value": _serialize(last)})
    store.add("count#contact", last - store.count("contact"))  # the count (its shards summed) is `last`


def _timed(operation, repeats):
    samples = []
    for n in range(repeats):
        started = time.perf_counter()
        operation(n)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples), max(samples)


def test_contacts_at_scale(http, capsys):
    rows = []
    started = time.perf_counter()
    for n in range(50):
        http("POST", "/api/contacts/new", {"email": f"one{n}@example.com", "firstname": "One"})
    rows.append(("create one by one", f"{50 / (time.perf_counter() - started):.1f} contacts/s"))
    started = time.perf_counter()
    with dynamodb_calls() as calls:
        for batch in range(2):
            body = [{"email": f"batch{batch}-{n}@example.com", "firstname": "B"} for n in range(200)]
            http("POST", "/api/contacts/batch/new", body)
    rate, per_contact = 400 / (time.perf_counter() - started), sum(calls.values()) / 400
    rows.append(
        (
            "create in batches of 200",
            f"{rate:.1f} contacts/s, DynamoDB {per_contact:.2f} calls per contact {dict(calls)}",
        )
    )

    template = http("GET", "/api/contacts/1")["contact"]
    stored = {k: v for k, v in store.get("contact", 1).items() if k != "_rev"}
    filled = 450
    for size in SIZES:
        _bulk_copies(stored, filled + 1, size)
        filled = size
        for name, operation in (
            ("GET", lambda n, size=size: http("GET", f"/api/contacts/{size - n}")),
            ("PATCH", lambda n, size=size: http("PATCH", f"/api/contacts/{size - n}/edit", {"city": f"C{n}"})),
        ):
            operation(0)
            with dynamodb_calls() as calls:
                operation(1)
            median, worst = _timed(operation, 20)
            rows.append(
                (
                    f"{name} at {size:,} contacts",
                    f"median {median:.1f} ms, max {worst:.1f} ms, DynamoDB {sum(calls.values())} {dict(calls)}",
                )
            )
    assert template["id"] == 1
    with capsys.disabled():
        print()
        for label, value in rows:
            print(f"{label:28} {value}")
