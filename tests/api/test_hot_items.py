"""Issue 29 (part 3 of the work: counters and caches off the hot path), over moto through the local
gateway: the id counters and the versions item are no longer written or read on every request."""

import threading
from collections import Counter
from contextlib import contextmanager
from unittest import mock

import botocore.client
import pytest

pytestmark = pytest.mark.aws  # about AWS itself: over moto

_original = botocore.client.BaseClient._make_api_call


@contextmanager
def counter_calls():
    """Counter((operation, key name)) of the DynamoDB calls on the counters table, the authorizer's included."""
    calls, lock = Counter(), threading.Lock()

    def counting(self, operation, params):
        if self.meta.service_model.service_name == "dynamodb" and str(params.get("TableName", "")).endswith("counters"):
            with lock:
                calls[(operation, params["Key"]["name"]["S"])] += 1
        return _original(self, operation, params)

    with mock.patch.object(botocore.client.BaseClient, "_make_api_call", counting):
        yield calls


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_fifty_contact_creates_reserve_their_ids_with_one_update_item_each_counter(api):
    with counter_calls() as calls:
        for n in range(50):
            assert api.post("/api/contacts/new", {"email": f"c{n}@example.com"}).status_code == 201
    assert calls[("UpdateItem", "id#contact")] == 1  # before: 50
    assert calls[("UpdateItem", "id#timeline")] <= 1  # the contacts' events, if any
    ids = [api.get(f"/api/contacts?search=c{n}@example.com").json["contacts"] for n in (0, 49)]
    assert [int(next(iter(found))) for found in ids] == [1, 50]  # one process: ids in order, no gap


def test_a_batch_create_larger_than_the_block_reserves_its_ids_at_once(api):
    api.post("/api/contacts/new", {"email": "first@example.com"})  # a block of 100, 99 left
    with counter_calls() as calls:
        batch = [{"email": f"b{n}@example.com"} for n in range(150)]
        assert api.post("/api/contacts/batch/new", batch).status_code == 201
    assert calls[("UpdateItem", "id#contact")] == 1


@pytest.fixture
def interval(configure, monkeypatch):
    """VERSIONS_TTL = 1 s (the production default) on a clock the test moves."""
    from chalicelib.store import version_cache

    clock = Clock()
    configure(VERSIONS_TTL=1.0)
    monkeypatch.setattr(version_cache, "clock", clock)
    version_cache.forget()
    yield clock
    version_cache.forget()


def test_the_versions_item_is_read_once_per_interval_by_the_api_and_the_authorizer_together(api, interval):
    with counter_calls() as calls:
        for _ in range(5):
            assert api.get("/api/contacts").status_code == 200
    assert calls[("GetItem", "versions")] == 1  # before: 10 BatchGetItem of 12 items (API and authorizer)
    interval.now += 1.0
    with counter_calls() as calls:
        for _ in range(3):
            assert api.get("/api/segments").status_code == 200
    assert calls[("GetItem", "versions")] == 1


def test_a_write_of_this_process_is_seen_at_once_another_containers_within_the_interval(api, interval):
    from chalicelib.domain.kernel import cached
    from chalicelib.domain.kernel.context import Context
    from chalicelib.store import entities

    def segments():
        return [s["name"] for s in cached.documents("segment", Context())]

    assert segments() == []
    assert api.post("/api/segments/new", {"name": "Mine"}).status_code == 201
    assert segments() == ["Mine"]  # this process wrote it: seen at once
    # another container's write: straight to DynamoDB, this process's copy of the versions not told
    entities.create("segment", {"id": 9000, "name": "Theirs", "alias": "theirs"}, versioned=True)
    assert segments() == ["Mine"]
    interval.now += 1.0
    assert segments() == ["Mine", "Theirs"]


def test_a_transaction_cancelled_by_another_on_the_shared_versions_item_is_transient(api):
    """Two versioned writes committing at one instant meet on the `versions` item: DynamoDB cancels
    one (TransactionConflict, no condition failed). That is AWS busy for now (tried again, else 503 with
    Retry-After), never a 404 or 500, and nothing is half-written."""
    from botocore.exceptions import ClientError

    from chalicelib import aws

    conflict = ClientError(
        {
            "Error": {"Code": "TransactionCanceledException", "Message": "Transaction cancelled"},
            "CancellationReasons": [{"Code": "None"}, {"Code": "TransactionConflict"}, {"Code": "None"}],
        },
        "TransactWriteItems",
    )
    failed = ClientError(
        {
            "Error": {"Code": "TransactionCanceledException", "Message": "Transaction cancelled"},
            "CancellationReasons": [{"Code": "ConditionalCheckFailed"}, {"Code": "TransactionConflict"}],
        },
        "TransactWriteItems",
    )
    assert aws.unavailable(conflict) and not aws.unavailable(failed)
    refused = []

    def once(self, operation, params):
        if operation == "TransactWriteItems" and not refused:
            refused.append(operation)
            raise conflict
        return _original(self, operation, params)

    with mock.patch.object(botocore.client.BaseClient, "_make_api_call", once):
        answer = api.post("/api/segments/new", {"name": "Busy"})
    assert refused and answer.status_code in (201, 503), (answer.status_code, answer.json)
    if answer.status_code == 503:
        assert answer.headers["Retry-After"]
    names = [s["name"] for s in api.get("/api/segments").json["lists"].values()]
    assert names == (["Busy"] if answer.status_code == 201 else [])
