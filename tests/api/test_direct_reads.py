"""The local stack's direct reads (devstack/direct_reads.py) answer as moto's HTTP way does: the same
items (binary values as bytes), keys, counts and unprocessed keys for Query, GetItem and BatchGetItem."""

import zlib

import boto3
import pytest

from chalicelib import config
from chalicelib.store.models import Entity
from devstack import direct_reads

pytestmark = [pytest.mark.aws, pytest.mark.usefixtures("fresh")]  # about the embedded DynamoDB: over moto

TABLE = Entity.Meta.table_name
NESTED = {"M": {"B": {"S": "an attribute named B"}, "raw": {"B": b"\x00\xff"}, "set": {"BS": [b"\x01", b"\x02"]}}}


def _both(call):
    """(the direct answer, the HTTP way's answer), each without its ResponseMetadata."""
    answers = []
    for direct in (True, False):
        direct_reads.switch["on"] = direct
        try:
            answer = call()
        finally:
            direct_reads.switch["on"] = True
        answer.pop("ResponseMetadata")
        answers.append(answer)
    return answers


def test_direct_reads_answer_as_the_http_way():
    client = boto3.client("dynamodb", region_name=config.active().AWS_REGION)
    for n in range(1, 6):
        item = {"kind": {"S": "probe"}, "id": {"N": str(n)}, "z": {"B": zlib.compress(b"x" * n)}, "nested": NESTED}
        client.put_item(TableName=TABLE, Item=item)
    keys = [{"kind": {"S": "probe"}, "id": {"N": str(n)}} for n in (1, 3, 9)]
    calls = {
        "Query": lambda: client.query(
            TableName=TABLE,
            KeyConditionExpression="#k = :k",
            ExpressionAttributeNames={"#k": "kind"},
            ExpressionAttributeValues={":k": {"S": "probe"}},
            Limit=2,
        ),
        "GetItem": lambda: client.get_item(TableName=TABLE, Key=keys[1]),
        "GetItem missing": lambda: client.get_item(TableName=TABLE, Key=keys[2]),
        "BatchGetItem": lambda: client.batch_get_item(RequestItems={TABLE: {"Keys": keys}}),
    }
    for name, call in calls.items():
        direct, http = _both(call)
        assert direct == http, name
    direct, _ = _both(calls["Query"])
    assert direct["Items"][0]["z"]["B"] == zlib.compress(b"x") and direct["Items"][0]["nested"] == NESTED
    assert direct["LastEvaluatedKey"] == {"kind": {"S": "probe"}, "id": {"N": "2"}}
