"""The id mapping of a move-in (`python -m chalicelib.cli move-in`, docs/move-in.md): which document of
the source Mautic became which document here, per kind, kept here so a rerun copies only what is
missing or changed. Stored in chunks, one item per write the mover makes (up to `MAX_ENTRIES`
entries), in the partition `movein#<kind>`; a later chunk overrides an earlier one for the same source
id. Read in id order, `PAGE` chunks a call."""

import re
from typing import Any

from chalicelib.domain.kernel.errors import invalid
from chalicelib.store import port as store

MAX_ENTRIES = 500
PAGE = 50
KIND = r"^[a-z][a-z0-9_]{0,39}$"


def _stored_kind(kind: str) -> str:
    """The store kind of a mapping kind; 400 for a name that is not one."""
    if not re.match(KIND, kind):
        raise invalid("kind", "a mapping kind is 1 to 40 lowercase letters, digits or _")
    return f"movein#{kind}"


def _entry(raw: Any, index: int) -> dict[str, Any]:
    """One entry `{from, to, modified}` checked: ids positive integers, `modified` text or null."""
    if not isinstance(raw, dict):
        raise invalid(f"entries[{index}]", "an entry is an object {from, to, modified}")
    ids = [raw.get(name) for name in ("from", "to")]
    if not all(isinstance(value, int) and not isinstance(value, bool) and value > 0 for value in ids):
        raise invalid(f"entries[{index}]", "from and to are positive integer ids")
    modified = raw.get("modified")
    if modified is not None and not isinstance(modified, str):
        raise invalid(f"entries[{index}].modified", "modified is the source's dateModified text or null")
    return {"from": ids[0], "to": ids[1], "modified": modified}


def record(kind: str, entries: Any) -> dict[str, Any]:
    """Store one chunk of entries of `kind`; the chunk as stored. One counter update and one write."""
    stored_kind = _stored_kind(kind)
    if not isinstance(entries, list) or not 0 < len(entries) <= MAX_ENTRIES:
        raise invalid("entries", f"entries is a list of 1 to {MAX_ENTRIES} objects {{from, to, modified}}")
    checked = [_entry(raw, index) for index, raw in enumerate(entries)]
    chunk = {"id": store.allocate_ids(stored_kind)[0], "entries": checked}
    store.put(stored_kind, chunk)
    return chunk


def chunks(kind: str, after: int = 0) -> dict[str, Any]:
    """Up to `PAGE` chunks of `kind` with ids above `after`, and `next` (the `after` of the next page,
    None at the end). One Query."""
    stored_kind = _stored_kind(kind)
    page = list(store.iterate(stored_kind, limit=PAGE + 1, between=(after + 1, 2**62)))
    shown = [{"id": c["id"], "entries": c.get("entries") or []} for c in page[:PAGE]]
    return {"kind": kind, "chunks": shown, "next": shown[-1]["id"] if len(page) > PAGE else None}
