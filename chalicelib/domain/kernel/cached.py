"""All documents of a small, often-read kind (field definitions, point actions, triggers and groups, segments, webhooks,
API settings, API clients, revocations), cached in process, with what is computed from them.

A request reads the versions of every cached kind once and reloads a kind only when its version
moved. The versions are one item, which a process reads at most once per `config.active().VERSIONS_TTL`
seconds (default 1; `store/version_cache.py`, shared with the authorizer): another container's
write is seen within that time, this process's own at once.
"""

from collections.abc import Callable
from typing import Any, TypeVar

from chalicelib.domain.kernel import cache_keys
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.store import port as store

T = TypeVar("T")

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
_cache: dict[str, tuple[int, list[Doc]]] = {}  # kind -> (version, documents)
_derived: dict[tuple[str, str], tuple[list[Doc], Any]] = {}  # (kind, name) -> (documents, what was computed)


def documents(kind: str, ctx: Context) -> list[Doc]:
    """Every document of a cached kind, in id order."""
    current = version(kind, ctx)
    hit = _cache.get(kind)
    if hit is None or hit[0] != current:
        hit = _cache[kind] = (current, list(store.iterate(kind)))
    return hit[1]


def version(kind: str, ctx: Context) -> int:
    """The write version of a cached kind as this request sees it (one snapshot per request: at most
    one GetItem, none while the process's copy is fresh)."""
    return ctx.memo(cache_keys.VERSIONS, lambda: store.versions(CACHED_KINDS))[kind]


def derived(kind: str, name: str, compute: Callable[[list[Doc]], T], ctx: Context) -> T:
    """compute(documents of kind), recomputed only when the kind's documents changed."""
    docs = documents(kind, ctx)
    hit = _derived.get((kind, name))
    if hit is None or hit[0] is not docs:
        hit = _derived[(kind, name)] = (docs, compute(docs))
    return hit[1]


def forget() -> None:
    """Drop the cache, and what the process keeps of the store (tests restore older table states)."""
    _cache.clear()
    _derived.clear()
    store.forget()
