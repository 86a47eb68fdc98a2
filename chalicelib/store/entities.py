"""Entity repository over DynamoDB, the production implementation of the store port
(`store/port.py`, whose `EntityStore` lists what it offers; its exceptions and `Tally` are
`store/common.py`'s): documents by kind and id, atomic ids and counts, unique values.

Every write that touches more than one item (a document, its count, its unique values)
is one DynamoDB transaction, so a failed request leaves nothing half-written. Documents carry
their revision as `_rev`; replacing a document that carries one succeeds only if nobody wrote it
since (optimistic locking: `Stale` otherwise). Small kinds
read on many requests (field definitions, point triggers) are "versioned": each write bumps
the kind's attribute of the one `versions` item (`store/versions_item.py`) in the same transaction
so readers can cache them safely. Where an item lives (its partition key, its feed's index key, a
count's shards) is `store/keys.py`; how it holds its document (plain or compressed) `store/documents.py`.
The reads are `store/entity_reads.py`'s and the writes of one item `store/item_writes.py`'s, offered
here with the transactional writes: this module is what the port hands its calls to (`__all__`).
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NoReturn

from pynamodb.exceptions import PutError, TransactWriteError
from pynamodb.transactions import TransactWrite

from chalicelib import aws
from chalicelib.store import versions_item
from chalicelib.store.common import (
    Checked,
    Conflict,
    Derived,
    Document,
    EntityId,
    Extra,
    Loser,
    Missing,
    Stale,
    Tally,
    TooLarge,
    Uniques,
    chunks,
    claimable,
    unique_changes,
    unique_key,
    watched,
)
from chalicelib.store.entity_reads import (
    batch_get,
    batch_get_keys,
    count,
    counters,
    feed,
    get,
    ids_by_email,
    iterate,
    last_id,
    lookup,
    lookup_many,
    versions,
)
from chalicelib.store.item_writes import (
    add,
    add_many,
    allocate_ids,
    claim,
    entity_item,
    entity_key,
    marked,
    overwrite,
    put,
    put_if,
    put_many,
    remove,
    set_feed,
    transaction,
)
from chalicelib.store.keys import (
    count_item,
)
from chalicelib.store.models import Counter, Entity, Unique

# what the store port calls (`port.EntityStore`): the reads of entity_reads.py and the writes below
__all__ = [
    "get",
    "batch_get",
    "batch_get_keys",
    "iterate",
    "feed",
    "ids_by_email",
    "count",
    "allocate_ids",
    "add",
    "add_many",
    "last_id",
    "counters",
    "versions",
    "lookup",
    "lookup_many",
    "create",
    "create_many",
    "replace",
    "delete",
    "merge",
    "put",
    "put_if",
    "put_many",
    "set_feed",
    "remove",
    "claim",
    "marked",
]
Build = Callable[[TransactWrite], None]  # adds a write's items to its transaction
Counts = dict[str, int]  # counter name -> amount added in one transaction


def _put_uniques(tx: TransactWrite, kind: str, entity_id: int, uniques: Uniques) -> None:
    for field, value in uniques.items():
        tx.save(
            Unique(unique_key(kind, field, value), id=entity_id),
            condition=Unique.key.does_not_exist() | (Unique.id == entity_id),
        )


def _delete_uniques(tx: TransactWrite, kind: str, entity_id: int, uniques: Uniques) -> None:
    for field, value in uniques.items():
        tx.delete(Unique(unique_key(kind, field, value)), condition=Unique.id == entity_id)


def _commit(
    kind: str,
    entity_id: int,
    build: Build,
    claimed: Uniques,
    creating: bool = False,
    rev: int | None = None,
    derived: Iterable[Derived] = (),
) -> None:
    """Run a write's transaction; a refusal becomes `Conflict`, `Missing` or `Stale` by what is stored
    now (`Stale` also when a `Checked` item of `derived` was written since it was read)."""
    try:
        with transaction() as tx:
            build(tx)
    except TransactWriteError as error:
        _explain(error, kind, entity_id, claimed, creating, rev, watched(derived))


def _explain(
    error: Exception,
    kind: str,
    entity_id: int,
    claimed: Uniques,
    creating: bool = False,
    rev: int | None = None,
    checked: Sequence[tuple[str, int, int]] = (),
) -> NoReturn:
    """Raise why a conditional write was refused: `Conflict`, `Missing` or `Stale` by what is stored
    now, else the error itself (AWS throttling or failing: the write applied nothing, a 503 or SQS retries)."""
    if aws.unavailable(error):
        raise error
    taken = [f for f, v in claimed.items() if lookup(kind, f, v) not in (None, entity_id)]
    if taken:
        raise Conflict(taken) from error
    moved = [i for k, i, r in checked if (get(k, i) or {}).get("_rev") != r]
    if moved:
        raise Stale(moved[0]) from error
    current = get(kind, entity_id)
    if creating and current is not None:
        raise Conflict(["id"]) from error
    if current is None:
        raise Missing(entity_id) from error
    if rev is not None and current.get("_rev") != rev:
        raise Stale(entity_id) from error
    raise error


def _bump_version(tx: TransactWrite, kind: str, versioned: bool) -> None:
    if versioned:
        versions_item.bump(tx, {kind: 1})


def _put_extra(
    tx: TransactWrite, extra: Iterable[Extra] | None, derived: Iterable[Derived] | None, counts: Counts
) -> None:
    """Put `extra` documents, put or delete `derived` items; tallies are added to `counts`."""
    for kind, doc in extra or ():
        tx.save(entity_item(kind, doc, None), condition=Entity.id.does_not_exist())
    for kind, entity_id, item in derived or ():
        if isinstance(item, Tally):
            counts[item.name(kind)] = counts.get(item.name(kind), 0) + item.n
        elif item is None:
            tx.delete(entity_key(kind, entity_id))
        elif isinstance(item, Checked):
            tx.update(
                entity_key(kind, entity_id),
                actions=overwrite(dict(item.doc, id=int(entity_id))),
                condition=Entity.rev == item.rev,
            )
        else:
            tx.update(entity_key(kind, entity_id), actions=overwrite(dict(item, id=int(entity_id))))


def _create_items(
    tx: TransactWrite,
    counts: Counts,
    kind: str,
    doc: Document,
    uniques: Uniques | None = None,
    versioned: bool = False,
    email: str | None = None,
    extra: Iterable[Extra] | None = None,
    derived: Iterable[Derived] | None = None,
) -> None:
    """The items of a new document (see `create`); its counters are added to `counts`."""
    tx.save(entity_item(kind, doc, email), condition=Entity.id.does_not_exist())
    _put_extra(tx, extra, derived, counts)
    _put_uniques(tx, kind, int(doc["id"]), claimable(uniques))
    counts[f"count#{kind}"] = counts.get(f"count#{kind}", 0) + 1
    if versioned:
        counts[f"version#{kind}"] = counts.get(f"version#{kind}", 0) + 1


def _add_counts(tx: TransactWrite, counts: Counts, anchor: int) -> None:
    """Add a transaction's counter changes: versions to the one versions item, a sharded count's to
    the shard of `anchor` (one item per counter however many documents the transaction counts, as a
    transaction must)."""
    versions_item.bump(tx, {name.partition("#")[2]: n for name, n in counts.items() if name.startswith("version#")})
    items: Counts = {}
    for name, n in counts.items():
        if not name.startswith("version#"):
            items[count_item(name, anchor)] = items.get(count_item(name, anchor), 0) + n
    for name, n in items.items():
        if n:
            tx.update(Counter(name), actions=[Counter.value.add(n)])


def create(
    kind: str,
    doc: Document,
    uniques: Uniques | None = None,
    versioned: bool = False,
    email: str | None = None,
    extra: Iterable[Extra] | None = None,
    derived: Iterable[Derived] | None = None,
) -> None:
    """Store a new document, count it and claim its unique values, in one transaction.

    `email` (optional) is indexed for look-ups by email; `versioned` bumps the kind's version;
    `extra` lists (kind, document) pairs written as new documents in the same transaction
    (timeline events of the change); `derived` lists (kind, id, document or None) items put or
    deleted with it (index entries such as segment members), `Checked` documents only at the
    revision they were read."""
    derived = list(derived or ())

    def build(tx: TransactWrite) -> None:
        counts: Counts = {}
        _create_items(tx, counts, kind, doc, uniques, versioned, email, extra, derived)
        _add_counts(tx, counts, int(doc["id"]))

    _commit(kind, int(doc["id"]), build, claimable(uniques), creating=True, derived=derived)
    doc["_rev"] = 1


def _create_chunk(chunk: list[Mapping[str, Any]]) -> list[Exception | None]:
    """Create the chunk's documents in one transaction; if it is refused, one by one."""
    try:
        with transaction() as tx:
            counts: Counts = {}
            for entry in chunk:
                _create_items(tx, counts, **entry)
            _add_counts(tx, counts, int(chunk[0]["doc"]["id"]))
    except (TransactWriteError, TooLarge):  # one too large is refused alone, the others are stored
        return [_outcome(create, **entry) for entry in chunk]
    for entry in chunk:
        entry["doc"]["_rev"] = 1
    return [None] * len(chunk)


def _outcome(operation: Callable[..., None], **arguments: Any) -> Exception | None:
    """None when the operation succeeds, else the exception it raised."""
    try:
        operation(**arguments)
    except Exception as error:  # noqa: BLE001 - handed back to the entry's owner
        return error
    return None


def create_many(entries: Sequence[Mapping[str, Any]]) -> list[Exception | None]:
    """Store new documents, each entry the arguments of `create` (kind, doc, uniques...), in as
    few transactions as their items fit (counters added up). The entries of a refused transaction
    are then stored one by one. Returns, per entry, None or the exception its `create` raised."""
    return [result for chunk in chunks(entries) for result in _create_chunk(chunk)]


def replace(
    kind: str,
    doc: Document,
    old_uniques: Uniques | None = None,
    new_uniques: Uniques | None = None,
    versioned: bool = False,
    email: str | None = None,
    extra: Iterable[Extra] | None = None,
    derived: Iterable[Derived] | None = None,
) -> None:
    """Overwrite an existing document and move its unique values, in one transaction; when the
    document carries `_rev`, only if that is still the stored revision (else `Stale`)."""
    removed, added = unique_changes(claimable(old_uniques), claimable(new_uniques))
    entity_id = int(doc["id"])
    rev = doc.get("_rev")
    condition = Entity.id.exists() & (Entity.rev == rev) if rev is not None else Entity.id.exists()
    extra, derived = list(extra or ()), list(derived or ())
    if not (removed or added or extra or derived or versioned):  # one item: no transaction (half the units)
        try:
            entity_item(kind, doc, email).save(condition=condition)
        except PutError as error:
            _explain(error, kind, entity_id, {}, rev=rev)
        doc["_rev"] = (rev or 0) + 1
        return

    def build(tx: TransactWrite) -> None:
        tx.save(entity_item(kind, doc, email), condition=condition)
        counts: Counts = {}
        _put_extra(tx, extra, derived, counts)
        _add_counts(tx, counts, entity_id)
        _delete_uniques(tx, kind, entity_id, removed)
        _put_uniques(tx, kind, entity_id, added)
        _bump_version(tx, kind, versioned)

    _commit(kind, entity_id, build, added, rev=rev, derived=derived)
    doc["_rev"] = (rev or 0) + 1


def delete(
    kind: str,
    entity_id: EntityId,
    uniques: Uniques | None = None,
    versioned: bool = False,
    derived: Iterable[Derived] | None = None,
    rev: int | None = None,
) -> None:
    """Remove a document, uncount it and release its unique values (and put or delete `derived`
    items, as `create`), in one transaction; with `rev`, only while that is its revision (`Stale`)."""
    claimed = claimable(uniques)
    key = int(entity_id)
    derived = list(derived or ())

    def build(tx: TransactWrite) -> None:
        condition = Entity.id.exists() & (Entity.rev == rev) if rev is not None else Entity.id.exists()
        tx.delete(entity_key(kind, key), condition=condition)
        counts = {f"count#{kind}": -1}
        _put_extra(tx, (), derived, counts)
        _add_counts(tx, counts, key)
        _delete_uniques(tx, kind, key, claimed)
        _bump_version(tx, kind, versioned)

    _commit(kind, key, build, {}, rev=rev, derived=derived)


def merge(
    kind: str,
    doc: Document,
    loser: Loser,
    uniques: tuple[Uniques | None, Uniques | None],
    versioned: bool = False,
    email: str | None = None,
    extra: Iterable[Extra] | None = None,
    derived: Iterable[Derived] | None = None,
) -> None:
    """Store the survivor `doc` of two entities and delete `loser` = (id, revision, unique values),
    in one transaction: both only if unchanged since read (else `Stale`). `uniques` is the
    survivor's (old, new) unique values; a value the loser held and the survivor now claims
    passes from one to the other."""
    removed, added = unique_changes(claimable(uniques[0]), claimable(uniques[1]))
    loser_id, loser_rev, loser_uniques = loser
    handed = {unique_key(kind, f, v): (f, v) for f, v in claimable(loser_uniques).items()}
    taken = {f: v for f, v in added.items() if unique_key(kind, f, v) not in handed}
    passed = {f: v for f, v in added.items() if unique_key(kind, f, v) in handed}
    released = {
        f: v for key, (f, v) in handed.items() if key not in {unique_key(kind, pf, pv) for pf, pv in passed.items()}
    }
    entity_id, rev = int(doc["id"]), doc.get("_rev")

    def build(tx: TransactWrite) -> None:
        tx.save(entity_item(kind, doc, email), condition=Entity.id.exists() & (Entity.rev == rev))
        tx.delete(entity_key(kind, loser_id), condition=Entity.rev == loser_rev)
        counts = {f"count#{kind}": -1}
        _put_extra(tx, extra, derived, counts)
        _add_counts(tx, counts, entity_id)
        _delete_uniques(tx, kind, entity_id, removed)
        _put_uniques(tx, kind, entity_id, taken)
        for field, value in passed.items():
            tx.save(Unique(unique_key(kind, field, value), id=entity_id), condition=Unique.id == int(loser_id))
        _delete_uniques(tx, kind, int(loser_id), released)
        _bump_version(tx, kind, versioned)

    try:
        with transaction() as tx:
            build(tx)
    except TransactWriteError as error:
        held = [f for f, v in taken.items() if lookup(kind, f, v) not in (None, entity_id)]
        raise (Conflict(held) if held else Stale(entity_id)) from error
    doc["_rev"] = (rev or 0) + 1
