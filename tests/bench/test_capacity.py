"""`make capacity` at a small scale (`make bench`): every workload of devstack/capacity runs in a
process of its own (the meter hooks botocore sessions before the first one exists) and prints its
table; asserts the report holds what docs/capacity.md reads from it."""

import json
import os
import subprocess
import sys

import pytest

SIZES = {"mix": 200, "import": 400, "segment-send": 100, "sms-broadcast": 100, "tracking": 100, "landing-page": 100}


@pytest.mark.parametrize("workload", list(SIZES))
def test_capacity_report(workload, tmp_path, capsys):
    out = tmp_path / "capacity.json"
    command = [sys.executable, "-m", "devstack.capacity", "--mix", workload, "--requests", str(SIZES[workload])]
    done = subprocess.run(
        [*command, "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    with capsys.disabled():
        print("\n" + done.stdout)
    (result,) = json.loads(out.read_text())
    assert result["count"] == SIZES[workload]
    assert result["write_units"] > 0 and result["cost_per_million"]["total"] > 0
    assert result["keys"] and result["limit"] > 0
    if workload == "segment-send":
        assert result["services"].get("ses:SendRawEmail", 0) + result["services"].get("ses:SendEmail", 0) == 100
        # issue 43's budgets (docs/storage.md "Segment sends in batches"): <= 5 AWS calls a message with
        # SES's, no key throttling under 1,000 messages/s, at most 8 write units a message (6.2
        # measured: an unchanged contact is not rewritten for its `email.sent`)
        assert sum(result["dynamodb_calls"].values()) <= 4 * result["count"], result["dynamodb_calls"]
        assert result["limit"] >= 1000, result["keys"][:3]
        assert result["write_units"] <= 8, result["write_units"]
    if workload == "sms-broadcast":  # the same batches over SNS (docs/storage.md "Segment sends in batches")
        assert result["services"].get("sns:Publish", 0) == 100, result["services"]
        assert sum(result["dynamodb_calls"].values()) <= 4 * result["count"], result["dynamodb_calls"]
        assert result["limit"] >= 1000, result["keys"][:3]
        assert result["write_units"] <= 8, result["write_units"]
    if workload in ("mix", "tracking"):
        assert any(key["name"].startswith("entities.feed[timeline#") for key in result["keys"])
    if workload == "landing-page":  # a hit writes no page document, only counter shards (issue 29)
        assert not [key for key in result["keys"] if key["name"].startswith("entities[page") and key["write"]]


# Known calls on a probe kind, billed by the meter in a process of its own: {label: (units, refused calls)}.
PROBE = r"""
import json, os, boto3
from chalicelib import config
from devstack.capacity import meter
from devstack.capacity.stack import Stack

config.install(config.Settings.from_environment(os.environ))  # as the entry point does
Stack()
db = boto3.client("dynamodb", region_name="us-east-1")
table, counters = config.active().RESOURCE_PREFIX + "entities", config.active().RESOURCE_PREFIX + "counters"
key = {"kind": {"S": "probe"}, "id": {"N": "1"}}
new = "attribute_not_exists(kind)"
item = dict(key, email={"S": "a@x"}, doc={"S": "x" * 1500})  # 1.5 KB: 2 write units, 1 read unit
calls = {
    "put": lambda: db.put_item(TableName=table, Item=item),
    "refused put": lambda: db.put_item(TableName=table, Item=item, ConditionExpression=new),
    "email moved": lambda: db.update_item(
        TableName=table, Key=key, UpdateExpression="SET email = :e", ExpressionAttributeValues={":e": {"S": "b@x"}}
    ),
    "get": lambda: db.get_item(TableName=table, Key=key),
    "consistent get": lambda: db.get_item(TableName=table, Key=key, ConsistentRead=True),
    "index query": lambda: db.query(
        TableName=table, IndexName="email", KeyConditionExpression="kind = :k",
        ExpressionAttributeValues={":k": {"S": "probe"}},
    ),
    "transaction": lambda: db.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": dict(item, id={"N": "2"})}},
        {"Update": {"TableName": counters, "Key": {"name": {"S": "count#probe"}}, "UpdateExpression": "ADD n :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}}}},
    ]),
    "canceled transaction": lambda: db.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": dict(item, id={"N": "3"})}},
        {"Put": {"TableName": table, "Item": dict(item, id={"N": "2"}), "ConditionExpression": new}},
    ]),
    "delete": lambda: db.delete_item(TableName=table, Key=key),
}
billed = {}
for label, call in calls.items():
    with meter.measuring(meter.Tally()) as tally:
        try:
            call()
        except db.exceptions.ClientError:
            pass
    units = {f"{scope} {name} {kind}": amount for (scope, name, kind), amount in tally.units.items()}
    billed[label] = [units, sum(tally.refused.values())]
print(json.dumps(billed))
"""


def test_meter_bills_known_calls_as_dynamodb_does():
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    billed = json.loads(done.stdout.strip().splitlines()[-1])
    item, partition, email = "item entities[probe/1]", "key entities[probe]", "key entities.email[probe]"
    assert billed["put"] == [{f"{partition} write": 2.0, f"{item} write": 2.0, f"{email} write": 1.0}, 0]
    assert billed["refused put"] == [{f"{partition} write": 2.0, f"{item} write": 2.0}, 1]  # still billed, no index
    assert billed["email moved"][0][f"{email} write"] == 2.0  # the old entry deleted, the new one put
    assert billed["get"] == [{f"{partition} read": 0.5, f"{item} read": 0.5}, 0]  # eventually consistent: half
    assert billed["consistent get"][0][f"{item} read"] == 1.0
    assert billed["index query"] == [{f"{email} read": 0.5}, 0]  # keys-only entries, one 4 KB step, halved
    assert billed["transaction"][0] == {
        "key entities[probe] write": 4.0,  # doubled
        "item entities[probe/2] write": 4.0,
        f"{email} write": 1.0,  # index entries are not doubled
        "key counters[count#probe] write": 2.0,
        "item counters[count#probe] write": 2.0,
    }
    assert billed["canceled transaction"] == [
        {"key entities[probe] write": 8.0, "item entities[probe/3] write": 4.0, "item entities[probe/2] write": 4.0},
        1,
    ]
    assert billed["delete"][0][f"{email} write"] == 1.0
