"""The document a public hit visits (a landing page by alias, an asset by its download key), kept per
container for `config.active().PUBLIC_DOC_SECONDS` (1 s by default), an unknown key too.

A hit no longer writes the document (its counts are counter shards, `domain/kernel/counters.py`),
so the document is all a busy page reads of its own: kept here, one page takes as many hits a
second as its counter shards allow, not the 6,000 eventually consistent reads a second of its item
(less for a page over 4 KB). A page or asset written in this container is forgotten at once; other
containers see the change within `PUBLIC_DOC_SECONDS`.
"""

import copy
import time
from collections.abc import Callable

from chalicelib import config
from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.types import Doc

LIMIT = 1000  # entries a container keeps; past them it starts over
_cache: dict[tuple[str, str], tuple[float, Doc | None]] = {}  # (wall-clock seconds of the read, doc)


def read(kind: str, key: str, load: Callable[[], Doc | None]) -> Doc | None:
    """The document of `kind` a public `key` names (a copy: the caller may change it), or None;
    `load()` when this container has not read it in the last `PUBLIC_DOC_SECONDS`."""
    seconds = config.active().PUBLIC_DOC_SECONDS
    if seconds <= 0:
        return load()
    now = time.time()  # wall time (clock.fresh): a thawed container finds its copies stale
    hit = _cache.get((kind, key))
    if hit is None or not clock.fresh(hit[0], seconds, now):
        if len(_cache) >= LIMIT:
            _cache.clear()
        hit = (now, load())
        _cache[(kind, key)] = hit
    return copy.deepcopy(hit[1])


def forget(kind: str | None = None) -> None:
    """Drop the kept documents of `kind` (all without one): written here, shown at once; tests."""
    for cached in [k for k in _cache if kind is None or k[0] == kind]:
        _cache.pop(cached, None)
