"""The physical key layout of the entities and counters tables, pure arithmetic over the settings
(docs/storage.md "Sharded keys"): the partition keys of a sharded kind (`<kind>@<shard>`,
config.active().SHARDED_KINDS), the FeedIndex keys of a feed (config.active().FEED_SHARDS) and the items of a sharded
kind's row count (config.active().COUNT_SHARDS) and the `emailhead` index keys of an email
(config.active().EMAIL_INDEX_SHARDS). Used by `store/entities.py` and `store/reshard.py`.
"""

from chalicelib import config
from chalicelib.store.common import EntityId

SHARD = "@"  # `<kind>@<shard>`: a partition key of a sharded kind (config.active().SHARDED_KINDS)
FAMILY = "#*"  # `emailsend#*`: a SHARDED_KINDS entry for every kind `emailsend#<id>` (one kind per email)


def shards(kind: str) -> int:
    """The partition keys of a kind: its own SHARDED_KINDS entry, else its family's (`<prefix>#*`
    for `<prefix>#<id>`), else 0 (not sharded)."""
    named = config.active().SHARDED_KINDS.get(kind)
    if named is not None or "#" not in kind:
        return named or 0
    return config.active().SHARDED_KINDS.get(kind.partition("#")[0] + FAMILY, 0)


def partition(kind: str, entity_id: EntityId) -> str:
    """The partition key of a document: `<kind>@<id % shards>` for a sharded kind, else its kind, so a
    hot kind's writes (new ids at the end of one key) spread over its shards' keys."""
    count = shards(kind)
    return f"{kind}{SHARD}{int(entity_id) % count}" if count else kind


def partitions(kind: str) -> list[str]:
    """Every partition key of a kind: its shards', or its own."""
    count = shards(kind)
    return [f"{kind}{SHARD}{r}" for r in range(count)] if count else [kind]


def logical(key: str) -> str:
    """The kind a partition key stores (`contact@7` -> `contact`)."""
    kind, mark, shard = key.rpartition(SHARD)
    return kind if mark and shard.isdigit() else key


def feed_key(name: str, entity_id: EntityId) -> str:
    """The FeedIndex hash key of a feed's item: `<name>@<id % FEED_SHARDS>`, so the new items of one
    feed (a timeline bucket, one user's owner feed) spread over several index keys."""
    return f"{name}{SHARD}{int(entity_id) % config.active().FEED_SHARDS}" if config.active().FEED_SHARDS > 1 else name


def feed_keys(name: str) -> list[str]:
    """Every FeedIndex hash key of a feed."""
    shards = config.active().FEED_SHARDS
    return [f"{name}{SHARD}{r}" for r in range(shards)] if shards > 1 else [name]


def sharded_count(name: str) -> bool:
    """Whether a counter is the row count of a sharded kind, kept in COUNT_SHARDS items (a family's
    kinds keep one count item each: an email's counts are read with the email's other counters)."""
    return (
        name.startswith("count#")
        and name[len("count#") :] in config.active().SHARDED_KINDS
        and config.active().COUNT_SHARDS > 1
    )


def count_item(name: str, anchor: int) -> str:
    """The item a transaction adds a counter's change to: a sharded count's shard `<name>@<anchor %
    COUNT_SHARDS>` (anchor: the id of the transaction's document), else the counter itself."""
    return f"{name}{SHARD}{anchor % config.active().COUNT_SHARDS}" if sharded_count(name) else name


def count_parts(name: str) -> list[str]:
    """The items whose sum is a counter: a sharded count's shards and its unsharded item (its value
    from before the kind was sharded), else the counter itself."""
    return (
        [name] + [f"{name}{SHARD}{r}" for r in range(config.active().COUNT_SHARDS)] if sharded_count(name) else [name]
    )


def email_head(kind: str, email: str, entity_id: EntityId) -> str:
    """The `emailhead` index key of a document's lower-cased email: `<kind>#<its first character>@<id %
    EMAIL_INDEX_SHARDS>`, so a prefix search reads the few keys of one character, not every shard of the kind,
    and the emails of one character (an import of `test1@`...`testN@`) spread their writes over several keys."""
    shards = config.active().EMAIL_INDEX_SHARDS
    head = f"{kind}#{email[:1]}"
    return f"{head}{SHARD}{int(entity_id) % shards}" if shards > 1 else head


def email_heads(kind: str, prefix: str) -> list[str]:
    """Every `emailhead` index key holding the emails that begin with a (lower-cased, non-empty) prefix."""
    shards = config.active().EMAIL_INDEX_SHARDS
    head = f"{kind}#{prefix[:1]}"
    return [f"{head}{SHARD}{r}" for r in range(shards)] if shards > 1 else [head]
