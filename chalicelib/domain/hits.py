"""Public visits: who the visitor is, counters on the visited document (hits, downloads, sends) and
events stored on the tracked contact."""
import copy
from dataclasses import dataclass, field as dc_field

from chalicelib.domain import service
from chalicelib.domain.errors import NotFound
from chalicelib.store import entities as store


@dataclass
class Visit:
    """Who calls a public endpoint: client IP, HTTP referer, query string, tracked contact (cookie)."""

    ip: str | None = None
    referer: str | None = None
    query: dict = dc_field(default_factory=dict)
    contact_id: int | None = None

    @property
    def visitor(self):
        """Who counts as one unique visitor: the tracked contact, else the IP address."""
        return f"c{self.contact_id}" if self.contact_id else f"ip{self.ip or '-'}"


def count_hit(resource, doc, total, unique=None, visitor=None):
    """Add one to a document's `total` counter, and to `unique` the first time `visitor` comes.
    The document is rewritten without an audit stamp (optimistic revision, reloaded when stale)."""
    marker = f"{resource.kind}-{unique}#{doc['id']}#{visitor}"
    first = bool(unique) and not store.marked(marker)
    for attempt in range(5):
        doc = copy.deepcopy(doc) if attempt == 0 else store.get(resource.kind, doc["id"])
        if doc is None:
            raise NotFound()
        doc[total] = int(doc.get(total) or 0) + 1
        if unique:
            doc[unique] = int(doc.get(unique) or 0) + (1 if first else 0)
        uniques = resource.hooks.uniques(resource, doc)
        try:
            store.replace(resource.kind, doc, uniques, uniques)
            break
        except store.Stale:
            if attempt == 4:
                raise
    if first:
        store.claim(marker)
    return doc


def record_for_contact(visit, build, ctx):
    """Store `build(doc)`'s timeline events (and its changes) on the tracked contact; None when unknown."""
    from chalicelib.domain.registry import CONTACT
    if not visit.contact_id:
        return None

    def write():
        existing = store.get(CONTACT.kind, visit.contact_id)
        if existing is None:
            return None
        doc = copy.deepcopy(existing)
        return service.save_change(CONTACT, existing, doc, ctx, build(doc))
    return service.retrying(write, ctx)
