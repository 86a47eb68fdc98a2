"""The embedded DynamoDB's ordered-key Query (devstack/query.py) answers exactly as moto does.

Random tables (string or number keys, an index with and one without a range key), random writes
through boto3 (puts, updates that move index keys, deletes, batches, transactions that succeed
or roll back, the table replaced by a deep copy as the test fixtures do), then random queries
paged through their whole partition: every answer is compared with moto's own Table.query on the
same table, and every query shape generated here must be answered from the ordered keys.
"""

import copy
import itertools
import os

import boto3
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from devstack import query as localquery

_names = itertools.count()
SMALL = st.integers(0, 6)
NUMBERS = st.one_of(SMALL.map(str), st.sampled_from(["2.50", "2.5", "-1", "0.25"]))
STRINGS = st.text("ab", min_size=1, max_size=3)


def _values(kind):
    return NUMBERS if kind == "N" else STRINGS


@st.composite
def _schemas(draw):
    return {"range": draw(st.sampled_from(["N", "S", None])), "gsi_range": draw(st.sampled_from(["N", "S"]))}


def _backend():
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    return dynamodb_backends[DEFAULT_ACCOUNT_ID][os.environ["AWS_DEFAULT_REGION"]]


@pytest.fixture(scope="module")
def client(aws):
    return boto3.client("dynamodb", region_name=os.environ["AWS_DEFAULT_REGION"])


@pytest.fixture
def compared():
    """Table.query replaced by one that asserts the ordered-key answer equals moto's."""
    from moto.dynamodb.models.table import Table

    installed = Table.query
    original = installed.original

    def query(table, *args, **kwargs):
        fast = localquery.fast_query(table, *args, **kwargs)
        assert fast is not None, "a query shape of this test was left to moto"
        assert _plain(fast) == _plain(original(table, *args, **kwargs))
        return fast

    Table.query = query
    yield
    Table.query = installed


def _plain(answer):
    items, scanned, last_key = answer
    last = None if last_key is None else {k: v.to_json() for k, v in last_key.items()}
    return [item.to_json() for item in items], scanned, last


def _create(client, schema):
    name = f"localquery-{next(_names)}"
    keys = [{"AttributeName": "pk", "KeyType": "HASH"}]
    attributes = [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "gh", "AttributeType": "S"},
        {"AttributeName": "gr", "AttributeType": schema["gsi_range"]},
    ]
    if schema["range"]:
        keys.append({"AttributeName": "sk", "KeyType": "RANGE"})
        attributes.append({"AttributeName": "sk", "AttributeType": schema["range"]})
    client.create_table(
        TableName=name,
        KeySchema=keys,
        AttributeDefinitions=attributes,
        BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[
            {
                "IndexName": "ranged",
                "Projection": {"ProjectionType": "ALL"},
                "KeySchema": [{"AttributeName": "gh", "KeyType": "HASH"}, {"AttributeName": "gr", "KeyType": "RANGE"}],
            },
            {
                "IndexName": "hashed",
                "Projection": {"ProjectionType": "KEYS_ONLY"},
                "KeySchema": [{"AttributeName": "gh", "KeyType": "HASH"}],
            },
        ],
    )
    return name


@st.composite
def _keys(draw, schema):
    key = {"pk": {"S": draw(st.sampled_from(["p", "q"]))}}
    if schema["range"]:
        key["sk"] = {schema["range"]: draw(_values(schema["range"]))}
    return key


@st.composite
def _items(draw, schema):
    item = dict(draw(_keys(schema)), v={"N": str(draw(SMALL))})
    if draw(st.booleans()):
        item["gh"] = {"S": draw(st.sampled_from(["x", "y"]))}
    if draw(st.booleans()):
        item["gr"] = {schema["gsi_range"]: draw(_values(schema["gsi_range"]))}
    if draw(st.integers(0, 9)) == 0:
        item["blob"] = {"S": "z" * 150_000}  # a few of these reach the 1 MB page limit
    return item


@st.composite
def _updates(draw, schema):
    key = draw(_keys(schema))
    if draw(st.booleans()):
        values = {
            ":gh": {"S": draw(st.sampled_from(["x", "y"]))},
            ":gr": {schema["gsi_range"]: draw(_values(schema["gsi_range"]))},
        }
        return {"Key": key, "UpdateExpression": "SET gh = :gh, gr = :gr", "ExpressionAttributeValues": values}
    return {"Key": key, "UpdateExpression": draw(st.sampled_from(["REMOVE gr", "REMOVE gh", "REMOVE v"]))}


def _writes(schema):
    return st.lists(
        st.one_of(
            st.tuples(st.just("put"), _items(schema)),
            st.tuples(st.just("update"), _updates(schema)),
            st.tuples(st.just("delete"), _keys(schema)),
            st.tuples(st.just("batch"), st.lists(st.one_of(_items(schema), _keys(schema)), max_size=4)),
            st.tuples(
                st.just("transaction"), st.tuples(st.lists(_items(schema), max_size=2), _updates(schema), st.booleans())
            ),
            st.tuples(st.just("copy"), st.none()),
        ),
        min_size=4,
        max_size=20,
    )


def _write(client, name, operation, argument):
    if operation == "put":
        client.put_item(TableName=name, Item=argument)
    elif operation == "update":
        client.update_item(TableName=name, **argument)
    elif operation == "delete":
        client.delete_item(TableName=name, Key=argument)
    elif operation == "batch":
        requests, seen = [], set()
        for entry in argument:
            key = repr(sorted((k, v) for k, v in entry.items() if k in ("pk", "sk")))
            if key not in seen:
                seen.add(key)
                requests.append({"PutRequest": {"Item": entry}} if "v" in entry else {"DeleteRequest": {"Key": entry}})
        if requests:
            client.batch_write_item(RequestItems={name: requests})
    elif operation == "transaction":
        _transact(client, name, *argument)
    else:
        tables = _backend().tables
        tables[name] = copy.deepcopy(tables[name])


def _transact(client, name, puts, update, fails):
    """Puts and an update, then (if `fails`) a condition that cancels them all."""
    operations, seen = [], set()
    for item in puts + [update["Key"]]:
        key = repr(sorted((k, v) for k, v in item.items() if k in ("pk", "sk")))
        if key not in seen:
            seen.add(key)
            operations.append(
                {"Put": {"TableName": name, "Item": item}} if "v" in item else {"Update": dict(update, TableName=name)}
            )
    if fails:
        operations.append(
            {
                "ConditionCheck": {
                    "TableName": name,
                    "Key": {"pk": {"S": "absent"}, **{k: v for k, v in update["Key"].items() if k == "sk"}},
                    "ConditionExpression": "attribute_exists(pk)",
                }
            }
        )
    try:
        client.transact_write_items(TransactItems=operations)
    except client.exceptions.TransactionCanceledException:
        assert fails


@st.composite
def _queries(draw, schema):
    target = draw(st.sampled_from([None, "ranged", "hashed"]))
    hash_name, range_kind = {
        None: ("pk", schema["range"]),
        "ranged": ("gh", schema["gsi_range"]),
        "hashed": ("gh", None),
    }[target]
    condition, values = "#h = :h", {":h": {"S": draw(st.sampled_from(["p", "q"] if target is None else ["x", "y"]))}}
    names = {"#h": hash_name}
    operators = ["=", "<", "<=", ">", ">=", "BETWEEN"] + (["begins_with"] if range_kind == "S" else [])
    operator = draw(st.sampled_from(operators)) if range_kind and draw(st.booleans()) else None
    if operator:
        names["#r"] = "sk" if target is None else "gr"
        values[":a"] = {range_kind: draw(_values(range_kind))}
        if operator == "BETWEEN":
            values[":b"] = {range_kind: draw(_values(range_kind))}
            condition += " AND #r BETWEEN :a AND :b"
        elif operator == "begins_with":
            condition += " AND begins_with(#r, :a)"
        else:
            condition += f" AND #r {operator} :a"
    request = {
        "KeyConditionExpression": condition,
        "ExpressionAttributeNames": names,
        "ScanIndexForward": draw(st.booleans()),
    }
    if target:
        request["IndexName"] = target
    limit = draw(st.one_of(st.none(), st.integers(1, 4)))
    if limit:
        request["Limit"] = limit
    if draw(st.booleans()):
        request["FilterExpression"] = "attribute_exists(v) AND v <> :n"
        values[":n"] = {"N": str(draw(SMALL))}
    if draw(st.booleans()):
        request["ProjectionExpression"] = "#h, v"
    request["ExpressionAttributeValues"] = values
    return request


def _page_through(client, name, request):
    """Every page of the query, each compared with moto's answer by the `compared` fixture."""
    start, pages = None, 0
    while True:
        answer = client.query(TableName=name, **request, **({"ExclusiveStartKey": start} if start else {}))
        pages += 1
        start = answer.get("LastEvaluatedKey")
        if not start or pages > 60:
            return


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_ordered_keys_answer_as_moto(client, compared, data):
    schema = data.draw(_schemas())
    name = _create(client, schema)
    try:
        for item in data.draw(st.lists(_items(schema), min_size=5, max_size=30)):
            client.put_item(TableName=name, Item=item)
        for operation, argument in data.draw(_writes(schema)):
            _write(client, name, operation, argument)
            if data.draw(st.integers(0, 3)) == 0:
                _page_through(client, name, data.draw(_queries(schema)))
        for request in data.draw(st.lists(_queries(schema), min_size=1, max_size=6)):
            _page_through(client, name, request)
    finally:
        client.delete_table(TableName=name)


@pytest.mark.parametrize("condition", ["", " AND sk <= :a", " AND sk > :a", " AND sk BETWEEN :a AND :b"])
@pytest.mark.parametrize("forward", [True, False])
def test_the_1mb_page_limit_is_moto_s(client, compared, condition, forward):
    """Pages of big items end where moto ends them, also on an item past the range condition."""
    name = _create(client, {"range": "N", "gsi_range": "N"})
    try:
        for n in range(12):
            client.put_item(
                TableName=name,
                Item={
                    "pk": {"S": "p"},
                    "sk": {"N": str(n)},
                    "gh": {"S": "x"},
                    "gr": {"N": str(n % 3)},
                    "blob": {"S": "z" * 210_000},
                },
            )
        values = {":p": {"S": "p"}, ":a": {"N": "3"}, ":b": {"N": "8"}}
        used = {k: v for k, v in values.items() if k in "pk = :p" + condition}
        _page_through(
            client,
            name,
            {
                "KeyConditionExpression": "pk = :p" + condition,
                "ExpressionAttributeValues": used,
                "ScanIndexForward": forward,
            },
        )
        _page_through(
            client,
            name,
            {
                "IndexName": "ranged",
                "KeyConditionExpression": "gh = :x",
                "ExpressionAttributeValues": {":x": {"S": "x"}},
                "ScanIndexForward": forward,
            },
        )
    finally:
        client.delete_table(TableName=name)


def test_shapes_it_does_not_handle_go_to_moto(client):
    name = _create(client, {"range": "N", "gsi_range": "S"})
    try:
        client.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"N": "1"}, "v": {"N": "1"}})
        client.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"N": "2"}, "gh": {"S": "x"}, "gr": {"N": "5"}})
        table = _backend().tables[name]
        query = dict(
            range_comparison=None,
            range_objs=[],
            limit=None,
            exclusive_start_key=None,
            scan_index_forward=True,
            projection_expressions=None,
        )
        from moto.dynamodb.models.dynamo_type import DynamoType

        hash_key = DynamoType({"S": "p"})
        assert localquery.fast_query(table, hash_key, **query) is not None
        assert localquery.fast_query(table, hash_key, **query, v={"ComparisonOperator": "EQ"}) is None
        assert localquery.fast_query(table, None, **query) is None
        gh = [("gh", DynamoType({"S": "x"}))]
        assert localquery.fast_query(table, None, **query, index_name="ranged", hash_key_conditions=gh) is None
        answer = client.query(
            TableName=name,
            IndexName="ranged",
            KeyConditionExpression="gh = :x",
            ExpressionAttributeValues={":x": {"S": "x"}},
        )
        assert answer["Count"] == 1  # moto's answer: "gr" is a number where the index says string
    finally:
        client.delete_table(TableName=name)
