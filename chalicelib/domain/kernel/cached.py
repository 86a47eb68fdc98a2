"""All documents of a small, often-read kind (field definitions, point actions, triggers and groups, segments, webhooks,
API settings, API clients, revocations), cached in process, with what is computed from them.

A request reads the versions of every cached kind once (one BatchGetItem) and reloads a kind
only when its version moved, so every container sees a write on its next request.
"""

from chalicelib.domain.kernel import cache_keys
from chalicelib.store import port as store

CACHED_KINDS = (
    "contactfield",
    "companyfield",
    "trigger",
    "point",
    "segment",
    "hook",
    "setting",
    "apiclient",
    "revocation",
    "automation",
    "role",
    "pointgroup",
)
_cache = {}
_derived = {}


def documents(kind, ctx):
    """Every document of a cached kind, in id order."""
    current = version(kind, ctx)
    hit = _cache.get(kind)
    if hit is None or hit[0] != current:
        hit = _cache[kind] = (current, list(store.iterate(kind)))
    return hit[1]


def version(kind, ctx):
    """The write version of a cached kind as this request sees it (the request's one BatchGetItem)."""
    return ctx.memo(cache_keys.VERSIONS, lambda: store.versions(CACHED_KINDS))[kind]


def derived(kind, name, compute, ctx):
    """compute(documents of kind), recomputed only when the kind's documents changed."""
    docs = documents(kind, ctx)
    hit = _derived.get((kind, name))
    if hit is None or hit[0] is not docs:
        hit = _derived[(kind, name)] = (docs, compute(docs))
    return hit[1]


def forget():
    """Drop the cache (tests restore older table states)."""
    _cache.clear()
    _derived.clear()
