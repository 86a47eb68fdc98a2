"""Moving stored items to the key layout of the current settings (`python -m chalicelib.cli storage
reshard`, docs/storage.md "Sharded keys", docs/deploy.md): documents of a sharded kind stored under
their kind alone (written before it was sharded, or under another number of shards), feed entries
indexed under an unsharded feed, emails not yet (or otherwise) keyed in the `emailhead` index, and
row-count shards no longer read.

Idempotent and resumable: an item already where the settings put it is left alone, so a run that
stopped half-way is finished by running it again. A moved document is put at its new key before
its old item is deleted (BatchWriteItem, 25 items a call), and is not put again when a run finds it
there already (one BatchGetItem per 100 moved), so a document edited since it moved keeps that edit.
Run one at a time. Cost: a Scan of the entities table (1 MB a call) and of the counters table.
"""

from pynamodb.exceptions import TransactWriteError, UpdateError

from chalicelib import aws
from chalicelib.store import item_writes, keys
from chalicelib.store.models import Counter, Entity

BATCH = 100  # documents moved per BatchGetItem (the targets already there) and its writes


def _home(item: Entity) -> str:
    """The partition key the settings give the item's document."""
    return keys.partition(keys.logical(item.kind), int(item.id))


def _home_feed(item: Entity) -> str | None:
    """The FeedIndex key the settings give the item's feed (None: it names none)."""
    return keys.feed_key(keys.logical(item.feed), int(item.id)) if item.feed else None


def _home_head(item: Entity) -> str | None:
    """The `emailhead` index key the settings give the item's email (None: it has none)."""
    return keys.email_head(keys.logical(item.kind), item.email, int(item.id)) if item.email else None


def _move(batch: list[Entity]) -> int:
    """Put each item at its home key (unless a run put it there already), then delete the old items;
    how many moved."""
    if not batch:
        return 0
    there = {(found.kind, int(found.id)) for found in Entity.batch_get([(_home(i), int(i.id)) for i in batch])}
    with Entity.batch_write() as writer:
        for item in batch:
            if (_home(item), int(item.id)) not in there:
                writer.save(
                    Entity(
                        _home(item),
                        int(item.id),
                        doc=item.doc,
                        z=item.z,  # a compressed document moves as it is
                        rev=item.rev,
                        email=item.email,
                        head=_home_head(item),
                        feed=_home_feed(item),
                    )
                )
    with Entity.batch_write() as writer:
        for item in batch:
            writer.delete(item)
    return len(batch)


def _refeed(item: Entity, feed: str) -> int:
    """Index an item at home under its feed's shard `feed`, unless a write did since it was read (1 or 0)."""
    try:
        item.update(actions=[Entity.feed.set(feed)], condition=Entity.feed == item.feed)
    except UpdateError as error:
        if aws.unavailable(error):
            raise
        return 0  # written since: every write indexes the document under its feed's shard
    return 1


def _rehead(item: Entity, head: str) -> int:
    """Key an item at home in the `emailhead` index under `head`, unless a write changed its email since
    it was read (1 or 0; every write keys the email it writes)."""
    try:
        item.update(actions=[Entity.head.set(head)], condition=Entity.email == item.email)
    except UpdateError as error:
        if aws.unavailable(error):
            raise
        return 0
    return 1


def _reindex(item: Entity, done: dict[str, int]) -> None:
    """Key an item at home in its feed's shard and in `emailhead` as the settings do, counting in `done`."""
    if (feed := _home_feed(item)) and item.feed != feed:
        done["refed"] += _refeed(item, feed)
    if (head := _home_head(item)) and item.head != head:
        done["headed"] += _rehead(item, head)


def _fold_counts() -> int:
    """Add each row-count shard the settings no longer read to its unsharded item, deleting it in the
    same transaction (only while it holds the value read); how many folded."""
    folded = 0
    for counter in Counter.scan():
        base, mark, shard = str(counter.name).rpartition(keys.SHARD)
        if not (mark and shard.isdigit() and base.startswith("count#")) or counter.name in keys.count_parts(base):
            continue
        try:
            with item_writes.transaction() as tx:
                tx.update(Counter(base), actions=[Counter.value.add(int(counter.value))])
                tx.delete(Counter(counter.name), condition=Counter.value == int(counter.value))
        except TransactWriteError as error:
            if aws.unavailable(error):
                raise
            continue  # counted since it was read: the next run folds it
        folded += 1
    return folded


def reshard() -> dict[str, int]:
    """Move every item the settings key elsewhere: {"scanned", "moved", "refed", "headed", "counts"}
    (documents moved to their shard, feed entries re-indexed, emails keyed in `emailhead`, count shards
    folded)."""
    done = {"scanned": 0, "moved": 0, "refed": 0, "headed": 0, "counts": 0}
    batch: list[Entity] = []
    for item in Entity.scan(page_size=BATCH):
        done["scanned"] += 1
        if item.kind != _home(item):
            batch.append(item)
        else:
            _reindex(item, done)
        if len(batch) == BATCH:
            done["moved"] += _move(batch)
            batch = []
    done["moved"] += _move(batch)
    done["counts"] = _fold_counts()
    return done
