"""The mapping source id -> new id per kind, kept in the destination through its administrator-only
`/movein/mappings/<kind>` (docs/move-in.md), so a rerun copies only what is missing or changed."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from chalicelib.movein.client import Api

CHUNK = 500  # the most entries the endpoint takes in one write


@dataclass
class IdMap:
    """One kind's mapping: source id -> (new id, the source's dateModified when copied)."""

    kind: str
    entries: dict[int, tuple[int, str | None]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def get(self, source_id: Any) -> int | None:
        """The new id of a source id (an int, digits or `{"id": ...}`), None when not copied."""
        key = source_id.get("id") if isinstance(source_id, dict) else source_id
        if isinstance(key, str) and key.isdigit():
            key = int(key)
        entry = self.entries.get(key) if isinstance(key, int) else None
        return entry[0] if entry else None

    def current(self, doc: dict[str, Any]) -> bool:
        """True when `doc` was copied and has not changed since (`dateModified`)."""
        entry = self.entries.get(int(doc["id"]))
        return entry is not None and (entry[1] or "") >= (doc.get("dateModified") or "")

    def add(self, pairs: list[tuple[int, int, str | None]]) -> None:
        """Remember (source id, new id, dateModified) triples."""
        with self.lock:
            for source_id, new_id, modified in pairs:
                self.entries[source_id] = (new_id, modified)


def load(api: Api, kind: str) -> IdMap:
    """The mapping of `kind` stored in the destination, every page of it."""
    mapping, after = IdMap(kind), 0
    while True:
        page = api.call("GET", f"/movein/mappings/{kind}", query={"after": after})
        for chunk in page["chunks"]:
            mapping.add([(e["from"], e["to"], e.get("modified")) for e in chunk["entries"]])
        if page.get("next") is None:
            return mapping
        after = int(page["next"])


def save(api: Api, mapping: IdMap, pairs: list[tuple[int, int, str | None]]) -> None:
    """Store new (source id, new id, dateModified) triples in the destination, then remember them."""
    for at in range(0, len(pairs), CHUNK):
        entries = [{"from": s, "to": t, "modified": m} for s, t, m in pairs[at : at + CHUNK]]
        api.call("POST", f"/movein/mappings/{mapping.kind}", {"entries": entries})
    mapping.add(pairs)
