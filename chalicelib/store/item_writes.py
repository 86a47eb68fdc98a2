"""The store's items over DynamoDB and the writes of one item each (`store/entities.py` offers
them with its transactions): how a document becomes an item (`entity_key`, `entity_item`,
`overwrite`), the process's transaction connection, counters and ids, and the writes that touch a
single item (or a batch of independent ones) and so need no transaction: a conditional PutItem
costs a unit per KB where a transaction's item costs two."""

from collections.abc import Mapping, Sequence
from typing import Any

from pynamodb.connection import Connection
from pynamodb.exceptions import DoesNotExist, PutError
from pynamodb.expressions.update import Action
from pynamodb.transactions import TransactWrite

from chalicelib import aws, config
from chalicelib.store import documents
from chalicelib.store.common import FEED, Conflict, Document, EntityId, Stale
from chalicelib.store.keys import email_head, feed_key, partition
from chalicelib.store.models import Counter, Entity, Unique

_connection: list[Connection] = []


def entity_key(kind: str, entity_id: EntityId) -> Entity:
    """The item of a document, by key only (for updates and deletes)."""
    return Entity(partition(kind, entity_id), int(entity_id))


def entity_item(kind: str, doc: Mapping[str, Any], email: str | None) -> Entity:
    """The item of a document; a document naming a feed (`_feed`) is indexed in it (FeedIndex), one with
    an email under it and its first character (EmailIndex, EmailHeadIndex)."""
    stored = documents.packed(doc)
    email = email.lower() if email else None
    return Entity(
        partition(kind, doc["id"]),
        int(doc["id"]),
        doc=stored if isinstance(stored, str) else None,
        z=stored if isinstance(stored, bytes) else None,
        rev=int(doc.get("_rev") or 0) + 1,
        email=email,
        head=email_head(kind, email, doc["id"]) if email else None,
        feed=feed_key(doc[FEED], doc["id"]) if doc.get(FEED) else None,
    )


def transaction() -> TransactWrite:
    """A transaction on the process's one connection (opened on first use)."""
    if not _connection:
        _connection.append(
            Connection(
                region=config.active().AWS_REGION,
                max_retry_attempts=config.active().AWS_RETRIES["dynamodb"][1] - 1,
                connect_timeout_seconds=config.active().AWS_CONNECT_TIMEOUT,
                read_timeout_seconds=config.active().AWS_READ_TIMEOUT,
            )
        )
    return TransactWrite(connection=_connection[0])


def overwrite(doc: Mapping[str, Any]) -> list[Action]:
    """UpdateItem actions that set a document whatever was stored, its revision still moving on
    (and its feed, when it names one); the document's one form set, the other removed."""
    stored = documents.packed(doc)
    form: list[Action] = (
        [Entity.doc.set(stored), Entity.z.remove()]
        if isinstance(stored, str)
        else [Entity.z.set(stored), Entity.doc.remove()]
    )
    actions: list[Action] = [*form, Entity.rev.add(1)]
    return actions + ([Entity.feed.set(feed_key(doc[FEED], doc["id"]))] if doc.get(FEED) else [])


def allocate_ids(name: str, n: int = 1) -> list[int]:
    """Reserve n consecutive integer ids from the counter of `name`. One UpdateItem, not counted
    as a write a request's run again would repeat (aws.writes): an id reserved twice only leaves a gap."""
    with aws.harmless():
        last = add(f"id#{name}", n)
    return list(range(last - n + 1, last + 1))


def add(name: str, n: int = 1) -> int:
    """Add n to a counter; its new value. One UpdateItem."""
    counter = Counter(name)
    counter.update(actions=[Counter.value.add(n)])
    return int(counter.value)


def add_many(amounts: Mapping[str, int]) -> None:
    """Add to several counters in one TransactWriteItems (100 at most; two units each, as any
    transaction's item): a batch of sends counts its emails and variants in one call."""
    with transaction() as tx:
        for name, n in amounts.items():
            tx.update(Counter(name), actions=[Counter.value.add(n)])


def put(kind: str, doc: Document) -> None:
    """Write a document that nothing else refers to (no count, no unique values), unconditionally;
    its revision moves on, so a writer holding an older read still gets `Stale`. One UpdateItem."""
    entity_key(kind, doc["id"]).update(actions=overwrite(doc))


def put_if(kind: str, doc: Document) -> None:
    """Write one document (no count, no unique values) while it is absent (no `_rev`) or at its
    `_rev`: one conditional PutItem, a unit per KB (a transaction would take two). `Conflict` when
    it exists, `Stale` when its revision moved or it is gone."""
    rev = doc.get("_rev")
    condition = Entity.id.does_not_exist() if rev is None else Entity.rev == int(rev)
    try:
        entity_item(kind, doc, None).save(condition=condition)
    except PutError as error:
        if aws.unavailable(error):
            raise
        raise (Conflict(["id"]) if rev is None else Stale(int(doc["id"]))) from error
    doc["_rev"] = int(rev or 0) + 1


def put_many(items: Sequence[tuple[str, Document]]) -> None:
    """Write documents nothing refers to, unconditionally, 25 to a BatchWriteItem (PynamoDB sends
    again what DynamoDB left unprocessed): a unit per KB each, against two in a transaction."""
    with Entity.batch_write() as batch:
        for kind, doc in items:
            batch.save(entity_item(kind, doc, None))
    for _, doc in items:
        doc["_rev"] = int(doc.get("_rev") or 0) + 1


def set_feed(kind: str, entity_id: EntityId, name: str | None) -> None:
    """Put an existing document in the feed `name` (None: in none) without rewriting it. One UpdateItem."""
    action = Entity.feed.set(feed_key(name, entity_id)) if name else Entity.feed.remove()
    entity_key(kind, entity_id).update(actions=[action], condition=Entity.id.exists())


def remove(kind: str, entity_id: EntityId) -> None:
    """Delete a document that nothing else refers to. One DeleteItem."""
    entity_key(kind, entity_id).delete()


def claim(marker: str) -> bool:
    """Set a one-time marker; True when this call set it (conditional PutItem)."""
    try:
        Unique(f"marker#{marker}", id=0).save(condition=Unique.key.does_not_exist())
        return True
    except PutError:
        return False


def marked(marker: str) -> bool:
    """Whether a one-time marker is set. One GetItem."""
    try:
        Unique.get(f"marker#{marker}")
        return True
    except DoesNotExist:
        return False
