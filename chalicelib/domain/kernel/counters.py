"""Counters on stored documents: hits, downloads and sends, total and unique per visitor."""

import copy

from chalicelib.domain.kernel import retries
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.store import port as store


def count_hit(
    resource: Resource,
    doc: Doc,
    total: str,
    unique: str | None = None,
    visitor: JSON = None,
    new_visitor: bool = False,
) -> Doc:
    """Add one to a document's `total` counter, and to `unique` the first time `visitor` comes
    (`new_visitor`: known to be the first time). The document is rewritten without an audit stamp
    (optimistic revision, reloaded when stale)."""
    marker = f"{resource.kind}-{unique}#{doc['id']}#{visitor}"
    first = bool(unique) and (new_visitor or not store.marked(marker))
    read = [copy.deepcopy(doc)]

    def attempt() -> Doc:
        fresh = read.pop() if read else store.get(resource.kind, doc["id"])
        if fresh is None:
            raise NotFound()
        fresh[total] = int(fresh.get(total) or 0) + 1
        if unique:
            fresh[unique] = int(fresh.get(unique) or 0) + (1 if first else 0)
        uniques = resource.hooks.uniques(fresh)
        store.replace(resource.kind, fresh, uniques, uniques)
        return fresh

    doc = retries.settled(attempt)
    if first:
        store.claim(marker)
    return doc
