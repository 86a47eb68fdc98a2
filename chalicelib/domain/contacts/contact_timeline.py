"""A contact's timeline as the API reads it (compat 9.1): one contact's events or every contact's,
filtered, ordered and paged, each shown with its type, icon and details; a `page.hit` with
`details.dateLeft`, derived as it is read (`time_on_page.py`). The events are written by every
capability through `kernel/timeline.py`."""

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from chalicelib.domain.contacts import time_on_page
from chalicelib.domain.kernel import clock, redaction
from chalicelib.domain.kernel.errors import invalid
from chalicelib.domain.kernel.timeline import ICONS, TRACKING_HASH, TYPES, all_events, kind
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.store import port as store

Order = tuple[str, str]  # (column, ASC or DESC)


def _present(doc: Doc) -> Doc:
    """An event as the timeline API shows it."""
    return {
        "event": doc["event"],
        "eventId": f"{doc['event']}{doc['id']}",
        "eventLabel": doc.get("eventLabel"),
        "eventType": TYPES.get(doc["event"], doc["event"]),
        "eventPriority": 0,
        "icon": ICONS.get(doc["event"], "fa-calendar"),
        "featured": False,
        "timestamp": doc["timestamp"],
        "contactId": doc["contactId"],
        "details": _details(doc),
    }


def _details(doc: Doc) -> Doc:
    """An event's details without a send's tracking hash (events stored before it left them), nor
    any value holding it (kernel/redaction.py)."""
    details = doc.get("details") or {}
    secret = details.get(TRACKING_HASH)
    shown = {key: value for key, value in details.items() if key != TRACKING_HASH}
    kept = redaction.without(shown, secret if isinstance(secret, str) else None)
    return kept if isinstance(kept, dict) else {}


def _in_range(doc: Doc, date_from: str | None, date_to: str | None) -> bool:
    """True when the event happened between the two dates (either may be open)."""
    stamp = doc["timestamp"]
    return (not date_from or stamp >= date_from) and (not date_to or stamp <= date_to)


def _date(value: JSON, name: str) -> str | None:
    """The `filters[name]` date as ISO 8601, None when absent, or a 400 naming it."""
    if not value:
        return None
    try:
        return clock.iso(clock.parse(value))
    except (ValueError, OverflowError):
        raise invalid(f"filters[{name}]", "This value is not a valid date (Y-m-d H:i:s).") from None


class Filters:
    """The timeline filters of compat 9.1: search, includeEvents, excludeEvents, dateFrom, dateTo."""

    def __init__(self, filters: Doc) -> None:
        self.raw = filters
        self.search = (filters.get("search") or "").strip().lower()
        self.include, self.exclude = set(filters.get("includeEvents") or []), set(filters.get("excludeEvents") or [])
        self.date_from = _date(filters.get("dateFrom"), "dateFrom")
        self.date_to = _date(filters.get("dateTo"), "dateTo")

    def match(self, doc: Doc) -> bool:
        """True when the event passes every filter."""
        return (
            (not self.include or doc["event"] in self.include)
            and doc["event"] not in self.exclude
            and _in_range(doc, self.date_from, self.date_to)
            and (not self.search or self.search in (str(doc.get("eventLabel")) + " " + doc["event"]).lower())
        )

    def echo(self) -> Doc:
        """The filters as the answer repeats them."""
        return {
            "search": self.raw.get("search") or "",
            "includeEvents": sorted(self.include),
            "excludeEvents": sorted(self.exclude),
        }


def _answer(events: Sequence[Doc], filters: Filters, order: Order, page: int, limit: int, total: int) -> Doc:
    """The timeline object of compat 9.1 for a page of events."""
    return {
        "events": [_present(d) for d in events],
        "filters": filters.echo(),
        "order": list(order),
        "types": TYPES,
        "total": total,
        "page": page,
        "limit": limit,
        "maxPages": max(1, math.ceil(total / limit)),
    }


def events_of(contact_id: JSON) -> list[Doc]:
    """Every event of one contact as the timeline API shows it, oldest first (its partition, a page per
    1 MB read)."""
    return [_present(doc) for doc in store.iterate(kind(contact_id))]


def read(contact_id: JSON, filters: Doc, order: Order, page: int, limit: int) -> Doc:
    """The timeline object of compat 9.1: filtered, ordered, paged events of one contact."""
    wanted = Filters(filters)
    column, direction = order
    events = [d for d in with_date_left(store.iterate(kind(contact_id), descending=True), True) if wanted.match(d)]
    key: Callable[[Doc], Any] = (
        (lambda d: str(d.get("eventLabel") or "").lower())
        if column == "eventLabel"
        else (lambda d: (d["timestamp"], d["id"]))
    )
    events.sort(key=key, reverse=direction == "DESC")
    start = (page - 1) * limit
    return _answer(events[start : start + limit], wanted, order, page, limit, len(events))


def read_all(filters: Doc, order: Order, page: int, limit: int) -> Doc:
    """The timeline object of all contacts' events, by time (`order` on `timestamp` only). The feed is
    read from the newest (or oldest) event until the page is full and one more event matches, so
    the cost grows with the page, not with the number of events; `total` is exact when the feed
    ended within that read, else it counts up to that one more event (maxPages: one more page)."""
    wanted = Filters(filters)
    column, direction = order
    if column != "timestamp":
        raise invalid("order", "All contacts' activity is ordered by timestamp.")
    start = (page - 1) * limit
    found = []
    for doc in with_date_left(all_events(direction == "DESC"), direction == "DESC"):
        if wanted.match(doc):
            found.append(doc)
            if len(found) > start + limit:
                break
    return _answer(found[start : start + limit], wanted, order, page, limit, len(found))


def _hit_key(doc: Doc) -> tuple[Hashable | None, datetime]:
    return (doc["contactId"] if doc["event"] == "page.hit" else None), time_on_page.moment(doc["timestamp"])


def with_date_left(events: Iterable[Doc], descending: bool) -> Iterator[Doc]:
    """The events (in id order, newest first when `descending`) with each `page.hit`'s
    `details.dateLeft`: when its contact's next hit came within the session, else None
    (`time_on_page.py`; read oldest first, a hit waits for the events of a session after it)."""
    derive = time_on_page.newest_first if descending else time_on_page.oldest_first
    for doc, left in derive(events, _hit_key):
        if doc["event"] == "page.hit":
            doc = dict(doc, details=dict(doc.get("details") or {}, dateLeft=clock.iso(left) if left else None))
        yield doc
