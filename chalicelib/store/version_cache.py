"""The cached kinds' write versions, read at most once per `config.active().VERSIONS_TTL` seconds per process.

Every request (and the authorizer, in the same module) asks for the versions of the cached kinds
(`domain/kernel/cached.py`); reading them from the store each time made one item the most read of
the service. This process keeps the last answer for VERSIONS_TTL seconds (default 1): a write in
another container is seen within that time, a write of this process at once, since the writer bumps
its own copy (`wrote`). VERSIONS_TTL = 0 reads on every call (the tests' setting, so their call
counts stay per request). Shared by every store implementation (`store/port.py` calls it);
thread-safe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from chalicelib import config

Read = Callable[[Sequence[str]], dict[str, int]]  # the store's own versions(kinds): one read

# Wall-clock seconds, not monotonic: a Lambda container frozen between invocations must find its copy
# stale when it thaws (the monotonic clock may not advance while frozen); a clock set back reads again.
clock: Callable[[], float] = time.time  # replaced by tests that drive time
_lock = threading.Lock()
_state: dict[str, object] = {}  # "versions": {kind: int}, "at": clock seconds of the read
_generation = [0]  # moves on when this process writes a version or forgets: a read begun before is not kept


def read(kinds: Sequence[str], fetch: Read) -> dict[str, int]:
    """The versions of `kinds`: this process's copy while fresh and complete, else `fetch`ed."""
    with _lock:
        held = _state.get("versions")
        at = _state.get("at")
        generation = _generation[0]
    fresh = isinstance(at, (int, float)) and 0 <= clock() - at < config.active().VERSIONS_TTL
    if isinstance(held, dict) and fresh and all(kind in held for kind in kinds):
        return {kind: int(held[kind]) for kind in kinds}
    started = clock()
    found = dict(fetch(kinds))
    with _lock:
        if _generation[0] == generation:
            _state.update(versions=dict(found), at=started)
    return found


def wrote(kind: str) -> None:
    """A write of `kind` stored by this process (its version moved on): its copy shows it at once."""
    with _lock:
        _generation[0] += 1
        held = _state.get("versions")
        if isinstance(held, dict) and kind in held:
            held[kind] = int(held[kind]) + 1


def forget() -> None:
    """Drop the copy (tests restore older table states)."""
    with _lock:
        _generation[0] += 1
        _state.clear()
