"""DynamoDB writes handed to moto without the HTTP detour (`devstack/direct_writes.py`): the same
answers and the same refusals as the HTTP way, nothing written by a refused one, every write journaled."""

import pytest
from botocore.exceptions import ClientError

from devstack import capture, direct_writes

pytestmark = pytest.mark.aws  # about the embedded AWS itself


class Sink:
    """Keeps the records captured."""

    def __init__(self):
        self.records = []

    def append(self, records):
        self.records.extend(records)


@pytest.fixture
def table(aws):
    from chalicelib import aws as clients

    client = clients.client("dynamodb")
    name = "direct-writes-test"
    if name not in client.list_tables()["TableNames"]:
        client.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
    for item in client.scan(TableName=name)["Items"]:
        client.delete_item(TableName=name, Key={"id": item["id"]})
    return client, name


def _both_ways(run):
    """run() with the direct way, then with the HTTP way: (answer or error) of each."""
    outcomes = []
    for on in (True, False):
        direct_writes.switch["on"] = on
        try:
            outcomes.append(run())
        except ClientError as error:
            outcomes.append((error.response["Error"], error.response.get("CancellationReasons")))
        finally:
            direct_writes.switch["on"] = True
    return outcomes


def test_an_update_answers_as_over_http(table):
    client, name = table
    client.put_item(TableName=name, Item={"id": {"S": "counter"}, "n": {"N": "0"}})

    def add():
        answer = client.update_item(
            TableName=name,
            Key={"id": {"S": "counter"}},
            UpdateExpression="ADD n :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
            ReturnValues="UPDATED_NEW",
        )
        return answer["Attributes"]

    assert _both_ways(add) == [{"n": {"N": "1"}}, {"n": {"N": "2"}}]


def test_a_failed_condition_is_the_same_error_and_writes_nothing(table):
    client, name = table
    client.put_item(TableName=name, Item={"id": {"S": "a"}, "v": {"S": "first"}})

    def put_again():
        client.put_item(
            TableName=name,
            Item={"id": {"S": "a"}, "v": {"S": "second"}},
            ConditionExpression="attribute_not_exists(id)",
        )

    direct, over_http = _both_ways(put_again)
    assert direct == over_http
    assert direct[0]["Code"] == "ConditionalCheckFailedException"
    assert client.get_item(TableName=name, Key={"id": {"S": "a"}})["Item"]["v"] == {"S": "first"}


def test_a_cancelled_transaction_gives_the_same_reasons_and_writes_nothing(table):
    client, name = table
    client.put_item(TableName=name, Item={"id": {"S": "taken"}})

    def both():
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": name, "Item": {"id": {"S": "new"}}}},
                {
                    "Put": {
                        "TableName": name,
                        "Item": {"id": {"S": "taken"}, "v": {"S": "x"}},
                        "ConditionExpression": "attribute_not_exists(id)",
                    }
                },
            ]
        )

    direct, over_http = _both_ways(both)
    assert direct == over_http
    assert direct[0]["Code"] == "TransactionCanceledException"
    assert [reason["Code"] for reason in direct[1]] == ["None", "ConditionalCheckFailed"]
    assert "Item" not in client.get_item(TableName=name, Key={"id": {"S": "new"}})
    assert "v" not in client.get_item(TableName=name, Key={"id": {"S": "taken"}})["Item"]


def test_a_direct_write_is_journaled(table):
    client, name = table
    sink = Sink()
    capture.start(sink)
    try:
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": name, "Item": {"id": {"S": "j1"}, "b": {"B": b"\x00\x01"}}}},
                {"Put": {"TableName": name, "Item": {"id": {"S": "j2"}}}},
            ]
        )
        client.delete_item(TableName=name, Key={"id": {"S": "j2"}})
    finally:
        capture.stop()
    kept = {record["k"]["id"]["S"]: record["i"] for record in sink.records if record.get("d") == name}
    assert kept == {"j1": {"id": {"S": "j1"}, "b": {"B": "AAE="}}, "j2": None}
    assert client.get_item(TableName=name, Key={"id": {"S": "j1"}})["Item"]["b"] == {"B": b"\x00\x01"}
