"""Documents a request reads by reference (to check a write, to show what a document names),
memoised per request in its context's cache, whatever their kinds in one BatchGetItem per 100."""

from collections.abc import Iterable, Mapping

from chalicelib.domain.kernel import cache_keys
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.store import port as store


def remember(kind: str, doc: Doc, ctx: Context) -> None:
    """A document the request already read: references to it are shown without reading it again."""
    ctx.cache.setdefault(cache_keys.ref(kind), {})[doc["id"]] = doc


def referenced(kind: str, ids: Iterable[JSON], ctx: Context) -> dict[JSON, Doc]:
    """Documents of another kind by id, memoised for the request."""
    return referenced_many({kind: ids}, ctx)[kind]


def referenced_many(wanted: Mapping[str, Iterable[JSON]], ctx: Context) -> dict[str, dict[JSON, Doc]]:
    """Documents of several kinds by id ({kind: ids} -> {kind: {id: doc}}), memoised per kind for
    the request: the ones not read yet in one BatchGetItem per 100, whatever their kinds."""
    caches = {kind: ctx.cache.setdefault(cache_keys.ref(kind), {}) for kind in wanted}
    unknown = list(dict.fromkeys((kind, i) for kind, ids in wanted.items() for i in ids if i not in caches[kind]))
    if unknown:
        found = store.batch_get_keys(unknown)
        for kind, i in unknown:
            caches[kind][i] = found.get((kind, int(i)))
    return {kind: {i: caches[kind][i] for i in ids if caches[kind].get(i) is not None} for kind, ids in wanted.items()}
