"""The reads of the entity repository over DynamoDB (`entities.py`, which offers them to the store
port with its writes): documents by kind and id, in id order or by feed, by email prefix, counts
and counters, unique values' holders and the versions of cached kinds. Each says its calls."""

import heapq
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

from pynamodb.exceptions import DoesNotExist

from chalicelib.store import documents, fanout, versions_item
from chalicelib.store.common import Document, EntityId, unique_key
from chalicelib.store.keys import count_parts, email_heads, feed_keys, logical, partition, partitions, sharded_count
from chalicelib.store.models import Counter, Entity, Unique


def ids_by_email(kind: str, prefix: str) -> list[int]:
    """Ids whose email starts with a non-empty `prefix` (case-insensitive), by email: a Query on the
    `emailhead` index per key of the prefix's first character (EMAIL_INDEX_SHARDS), all at once, merged."""
    lowered = prefix.lower()
    found = fanout.started(
        iter(Entity.by_email_head.query(key, Entity.email.startswith(lowered))) for key in email_heads(kind, lowered)
    )
    return [int(item.id) for item in heapq.merge(*found, key=lambda item: (item.email, int(item.id)))]


def get(kind: str, entity_id: EntityId) -> Document | None:
    """One document, or None. One GetItem."""
    try:
        return documents.document(Entity.get(partition(kind, entity_id), int(entity_id)))
    except DoesNotExist:
        return None


def batch_get(kind: str, ids: Iterable[EntityId], consistent: bool = False) -> dict[int, Document]:
    """Documents for the given ids, keyed by id (missing ids absent). BatchGetItem per 100 ids;
    `consistent`: strongly consistent reads (a unit per 4 KB instead of half)."""
    keys = [(partition(kind, i), int(i)) for i in dict.fromkeys(int(i) for i in ids)]
    return {int(item.id): documents.document(item) for item in Entity.batch_get(keys, consistent_read=consistent)}


def batch_get_keys(keys: Iterable[tuple[str, EntityId]]) -> dict[tuple[str, int], Document]:
    """Documents of any kinds by (kind, id), keyed by (kind, id) (missing keys absent).
    BatchGetItem per 100 keys."""
    unique = dict.fromkeys((partition(kind, i), int(i)) for kind, i in keys)
    return {(logical(item.kind), int(item.id)): documents.document(item) for item in Entity.batch_get(list(unique))}


def iterate(
    kind: str, descending: bool = False, limit: int | None = None, between: tuple[int, int] | None = None
) -> Iterator[Document]:
    """Documents of a kind in id order (`between`: an inclusive (first, last) id range): a Query,
    paged by DynamoDB (1 MB per call). A sharded kind: a Query per shard, their first pages fetched
    at once (one round trip), merged lazily by id, each paged at about its share of `limit` (+2), so a
    page (or a cursor's) stays O(page)."""
    keys = partitions(kind)
    page = min(limit // len(keys) + 2 if len(keys) > 1 else limit, 1000) if limit else None
    shards = fanout.started(_partition(key, descending, limit, page, between) for key in keys)
    merged = heapq.merge(*shards, key=lambda item: item.id, reverse=descending) if len(keys) > 1 else shards[0]
    for item in islice(merged, limit):
        yield documents.document(item)


def _partition(
    key: str, descending: bool, limit: int | None, page: int | None, between: tuple[int, int] | None
) -> Iterator[documents.Stored]:
    """A partition key's items in id order, up to `limit`: a Query per page of `page` items (DynamoDB's
    1 MB at most), on the botocore client PynamoDB keeps (its retries and timeouts) without its model
    objects, which cost a list page of 32 shard Queries more CPU than the calls' own Python."""
    params: dict[str, Any] = {
        "TableName": Entity.Meta.table_name,
        "KeyConditionExpression": "#k = :k" + (" AND #i BETWEEN :lo AND :hi" if between else ""),
        "ExpressionAttributeNames": {"#k": "kind", **({"#i": "id"} if between else {})},
        "ExpressionAttributeValues": {":k": {"S": key}, **_range_values(between)},
        "ScanIndexForward": not descending,
    }
    client, read = Entity._get_connection().connection.client, 0
    while limit is None or read < limit:
        if page:
            params["Limit"] = page if limit is None else min(page, limit - read)
        answer = client.query(**params)
        for raw in answer.get("Items", ()):
            yield documents.stored_item(raw)
        read += len(answer.get("Items", ()))
        if "LastEvaluatedKey" not in answer:
            return
        params["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


def _range_values(between: tuple[int, int] | None) -> dict[str, dict[str, str]]:
    """The key condition's values of an inclusive id range (none without one)."""
    return {":lo": {"N": str(between[0])}, ":hi": {"N": str(between[1])}} if between else {}


def feed(name: str, descending: bool = True) -> Iterator[Document]:
    """The documents of a feed (FeedIndex), by id: a Query per page of keys of each of its shards (the
    first pages at once), merged lazily by id, then 1 BatchGetItem per 100 documents. Documents gone
    since they were indexed are skipped."""
    shards = fanout.started(
        iter(Entity.in_feed.query(key, scan_index_forward=not descending, page_size=100)) for key in feed_keys(name)
    )
    merged = heapq.merge(*shards, key=lambda item: (int(item.id), logical(item.kind)), reverse=descending)
    keys = []
    for item in merged:
        keys.append((item.kind, int(item.id)))
        if len(keys) == 100:
            yield from _in_order(keys)
            keys = []
    yield from _in_order(keys)


def _in_order(keys: list[tuple[str, int]]) -> list[Document]:
    """The documents of feed keys (partition keys as stored), in the keys' order."""
    found = {(item.kind, int(item.id)): documents.document(item) for item in Entity.batch_get(keys)} if keys else {}
    return [found[key] for key in keys if key in found]


def count(kind: str) -> int:
    """Number of entities of a kind. One GetItem (a sharded kind: one BatchGetItem of its count's shards)."""
    if sharded_count(f"count#{kind}"):
        return counters([f"count#{kind}"])[f"count#{kind}"]
    try:
        return int(Counter.get(f"count#{kind}").value)
    except DoesNotExist:
        return 0


def last_id(kind: str) -> int:
    """The highest id handed out for a kind (0 when none). One GetItem."""
    return counters([f"id#{kind}"])[f"id#{kind}"]


def counters(names: Sequence[str]) -> dict[str, int]:
    """Current values of counters, {name: int} (0 when absent; a sharded count: its shards summed).
    One BatchGetItem per 100 items."""
    parts = {name: count_parts(name) for name in names}
    keys = list(dict.fromkeys(part for named in parts.values() for part in named))
    found = {item.name: int(item.value) for item in Counter.batch_get(keys)}
    return {name: sum(found.get(part, 0) for part in parts[name]) for name in names}


def lookup(kind: str, field: str, value: Any) -> int | None:
    """Id of the entity holding a unique value, or None. One GetItem."""
    try:
        return int(Unique.get(unique_key(kind, field, value)).id)
    except DoesNotExist:
        return None


def lookup_many(kind: str, pairs: Iterable[tuple[str, Any]]) -> dict[tuple[str, Any], int | None]:
    """Ids of the entities holding unique values, {(field, value): id or None} for the given
    (field, value) pairs. One BatchGetItem per 100 distinct values."""
    keys = list(dict.fromkeys(unique_key(kind, field, value) for field, value in pairs))
    found = {item.key: int(item.id) for item in Unique.batch_get(keys)} if keys else {}
    return {(field, value): found.get(unique_key(kind, field, value)) for field, value in pairs}


def versions(kinds: Sequence[str]) -> dict[str, int]:
    """Current write versions of versioned kinds, {kind: int}. One GetItem (the `versions` item)."""
    return versions_item.read(kinds)
