"""All documents of a small, often-read kind (field definitions, point triggers, API settings,
API clients, revocations), cached in process.

A request reads the versions of every cached kind once (one BatchGetItem) and reloads a kind
only when its version moved, so every container sees a write on its next request.
"""
from chalicelib.store import entities as store

CACHED_KINDS = ("contactfield", "companyfield", "trigger", "setting", "apiclient", "revocation")
_cache = {}


def documents(kind, ctx):
    """Every document of a cached kind, in id order."""
    version = ctx.memo("versions", lambda: store.versions(CACHED_KINDS))[kind]
    hit = _cache.get(kind)
    if hit is None or hit[0] != version:
        hit = _cache[kind] = (version, list(store.iterate(kind)))
    return hit[1]


def forget():
    """Drop the cache (tests restore older table states)."""
    _cache.clear()
