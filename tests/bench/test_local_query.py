"""The embedded DynamoDB's Query at 1k, 10k and 100k items (run with `make bench`, not in CI):
p50 of a list page (Limit 30, first and a later page) and of an email index look-up, with moto's
own Table.query ("before") and with the ordered keys of devstack/query.py ("after").

The items are written straight through moto's Table.put_item (a contact-sized document each) in
a table shaped like the entities table: partition `kind`, range `id`, index `email`.
"""

import copy
import json
import os
import statistics
import time

import boto3

SIZES = (1_000, 10_000, 100_000)
TABLE = "bench-localquery"


def _create(client):
    client.create_table(
        TableName=TABLE,
        BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "kind", "KeyType": "HASH"}, {"AttributeName": "id", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "kind", "AttributeType": "S"},
            {"AttributeName": "id", "AttributeType": "N"},
            {"AttributeName": "email", "AttributeType": "S"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "email",
                "Projection": {"ProjectionType": "KEYS_ONLY"},
                "KeySchema": [
                    {"AttributeName": "kind", "KeyType": "HASH"},
                    {"AttributeName": "email", "KeyType": "RANGE"},
                ],
            }
        ],
    )


def _fill(table, first, last):
    for n in range(first, last + 1):
        doc = {
            "id": n,
            "values": {
                "email": f"bulk{n}@example.com",
                "firstname": f"F{n}",
                "lastname": "Bulk",
                "city": "Paris",
                "points": n % 50,
            },
            "tags": ["a", "b"],
            "owner": 1,
        }
        table.put_item(
            {
                "kind": {"S": "contact"},
                "id": {"N": str(n)},
                "email": {"S": f"bulk{n}@example.com"},
                "doc": {"S": json.dumps(doc)},
            }
        )


def _p50(operation, repeats):
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        operation()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def _queries(client, size):
    later = {"kind": {"S": "contact"}, "id": {"N": str(size // 2)}}
    page = {
        "TableName": TABLE,
        "KeyConditionExpression": "kind = :k",
        "Limit": 30,
        "ExpressionAttributeValues": {":k": {"S": "contact"}},
    }
    email = {
        "TableName": TABLE,
        "IndexName": "email",
        "KeyConditionExpression": "kind = :k AND email = :e",
        "ExpressionAttributeValues": {":k": {"S": "contact"}, ":e": {"S": f"bulk{size // 3}@example.com"}},
    }
    return {
        "list page": lambda: client.query(**page),
        "later list page": lambda: client.query(**page, ExclusiveStartKey=later),
        "email index": lambda: client.query(**email),
    }


def test_query_time_does_not_grow_with_the_table(aws, capsys):
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends
    from moto.dynamodb.models.table import Table

    client = boto3.client("dynamodb", region_name=os.environ["AWS_DEFAULT_REGION"])
    _create(client)
    tables = dynamodb_backends[DEFAULT_ACCOUNT_ID][os.environ["AWS_DEFAULT_REGION"]].tables
    table = tables[TABLE]
    ordered = Table.query
    rows, filled = [], 0
    try:
        for size in SIZES:
            _fill(table, filled + 1, size)
            filled = size
            table = tables[TABLE] = copy.deepcopy(table)  # a fresh copy: its ordered keys are built anew
            started = time.perf_counter()
            client.query(
                **{
                    "TableName": TABLE,
                    "KeyConditionExpression": "kind = :k",
                    "Limit": 1,
                    "ExpressionAttributeValues": {":k": {"S": "contact"}},
                }
            )
            client.query(
                TableName=TABLE,
                IndexName="email",
                KeyConditionExpression="kind = :k",
                Limit=1,
                ExpressionAttributeValues={":k": {"S": "contact"}},
            )
            rows.append((f"first queries at {size:,} (ordered keys built)", (time.perf_counter() - started) * 1000))
            for name, operation in _queries(client, size).items():
                Table.query = ordered.original
                before = _p50(operation, 3 if size > 10_000 else 10)
                Table.query = ordered
                after = _p50(operation, 30)
                rows.append((f"{name} at {size:,}", f"before {before:.1f} ms, after {after:.1f} ms"))
    finally:
        Table.query = ordered
        client.delete_table(TableName=TABLE)
    with capsys.disabled():
        print()
        for name, value in rows:
            print(f"{name:45} {value if isinstance(value, str) else f'{value:.0f} ms'}")
