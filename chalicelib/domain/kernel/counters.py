"""Numbers of stored documents that public events move (a page's `hits`, an asset's downloads, a
dynamic content's `sentCount`): the resource's `counted` attributes.

A public event never rewrites the document: it adds one to one of `SHARDS` counter items of a
number (`doccount#<kind>#<id>#<name>#<shard>`, a shard chosen at random: one UpdateItem), so one
busy page takes `SHARDS` x 1,000 hits a second before a counter item throttles, and the document
(its size in write units, its revision) is left alone. A visitor's first hit goes to the shards of
the first-time number (`uniqueHits`) only, which count in the total too: every hit is one write. A
document shows its stored value (what was counted in it before, or what a client wrote) plus its
shards, read for a whole page of documents in one BatchGetItem per 100 counter items (`with_counts`).
"""

import copy
import random
from collections.abc import Sequence

from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Resource, Write
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.store import port as store

SHARDS = 16  # counter items per number: 16,000 increments a second before one item throttles


def names(resource: Resource) -> tuple[str, ...]:
    """Every number of a resource kept in counters."""
    return tuple(name for group in resource.counted for name in group)


def shard_names(kind: str, doc_id: JSON, name: str) -> list[str]:
    """The counter items of one number of one document."""
    return [f"doccount#{kind}#{int(str(doc_id))}#{name}#{shard}" for shard in range(SHARDS)]


def add(kind: str, doc_id: JSON, name: str, n: int = 1) -> None:
    """Add `n` to a number of a document: one UpdateItem on one of its shards, chosen at random."""
    store.add(shard_names(kind, doc_id, name)[random.randrange(SHARDS)], n)


def live_number(kind: str, ids: Sequence[JSON], name: str) -> dict[int, int]:
    """{id: counted} of one number of documents (its shards only, not the stored value)."""
    items = {int(str(i)): shard_names(kind, i, name) for i in ids}
    found = store.counters([item for shards in items.values() for item in shards]) if items else {}
    return {i: sum(found.get(item, 0) for item in shards) for i, shards in items.items()}


def live(resource: Resource, ids: Sequence[JSON]) -> dict[int, dict[str, int]]:
    """{id: {name: counted}} of the `counted` numbers of documents: each number's shards, a total's
    with its first-time number's added. One BatchGetItem per 100 counter items (16 per number)."""
    items = {(int(str(i)), n): shard_names(resource.kind, i, n) for i in ids for n in names(resource)}
    found = store.counters([item for shards in items.values() for item in shards]) if items else {}
    sums = {key: sum(found.get(item, 0) for item in shards) for key, shards in items.items()}
    numbers: dict[int, dict[str, int]] = {}
    for doc_id in (int(str(i)) for i in ids):
        numbers[doc_id] = {name: sums[(doc_id, name)] for name in names(resource)}
        for total, *firsts in resource.counted:
            numbers[doc_id][total] += sum(sums[(doc_id, first)] for first in firsts)
    return numbers


def _cache_key(kind: str) -> str:
    return f"doccounts:{kind}"


def with_counts(resource: Resource, docs: Sequence[Doc], ctx: Context) -> list[Doc]:
    """Copies of the documents whose `counted` numbers are the stored value plus the live counters
    (the documents themselves are left as stored, so nothing shown is ever written back; a copy
    given again is returned as it is). The counters are read once per request and document."""
    if not resource.counted or not docs:
        return list(docs)
    known: dict[int, dict[str, int]] = ctx.cache.setdefault(_cache_key(resource.kind), {})
    made: dict[int, Doc] = ctx.cache.setdefault(_cache_key(resource.kind) + ":made", {})
    fresh = [d for d in docs if made.get(id(d)) is not d]
    wanted = [d["id"] for d in fresh if d.get("id") is not None and int(d["id"]) not in known]
    if wanted:
        known.update(live(resource, list(dict.fromkeys(wanted))))
    return [_counted(doc, known, made) if made.get(id(doc)) is not doc else doc for doc in docs]


def _counted(doc: Doc, known: dict[int, dict[str, int]], made: dict[int, Doc]) -> Doc:
    """A copy of `doc` with its live counts added, remembered (by identity, kept alive) as made."""
    out = copy.copy(doc)
    counts = known.get(int(doc["id"])) if doc.get("id") is not None else None
    for name, value in (counts or {}).items():
        out[name] = int(doc.get(name) or 0) + value
    made[id(out)] = out
    return out


def written(resource: Resource, doc: Doc, write: Write) -> None:
    """A counted number a client writes (a dynamic content's `sentCount`) is what it then sees: the
    stored value becomes the written one less the live counters."""
    written_names = [n for n in names(resource) if n in write.payload and n in doc and n not in write.errors]
    if not written_names or write.existing is None or doc.get("id") is None:
        return
    counts = live(resource, [doc["id"]])[int(doc["id"])]
    for name in written_names:
        doc[name] = int(doc.get(name) or 0) - counts[name]


def count_hit(
    resource: Resource,
    doc: Doc,
    total: str,
    unique: str | None = None,
    visitor: JSON = None,
    new_visitor: bool = False,
    firsts: tuple[str, ...] = (),
) -> None:
    """One more on a document's `total` number, on its `unique` number instead (which counts in the
    total too) the first time `visitor` comes (`new_visitor`: known to be the first time): one
    counter shard (`add`), the document not written; that first time also one more on each of
    `firsts` (a page's `variantHits`). A visitor's first time is a one-time marker (a GetItem, then a
    conditional PutItem that only one of two concurrent first visits wins)."""
    marker = f"{resource.kind}-{unique}#{doc['id']}#{visitor}"
    first = bool(unique) and (new_visitor or not store.marked(marker)) and store.claim(marker)
    add(resource.kind, doc["id"], unique if first and unique else total)
    for name in firsts if first else ():
        add(resource.kind, doc["id"], name)
