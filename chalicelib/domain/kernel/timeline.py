"""Contact timeline: events recorded with the change that causes them, read per contact.

Events are documents of kind `timeline#<contact id>` (one partition per contact, newest id
last) written in the same transaction as the contact change, so none is lost. Event ids come
from one counter; the API's `eventId` is the event type followed by that id (compat 9.1).
Every event is also in the feed of all contacts' events (the store's feed index, one bucket
`timeline#<id // 1000>` per 1,000 ids), which `GET /contacts/activity` reads newest first.
A `page.hit` is shown with `details.dateLeft`, derived as it is read (`time_on_page.py`).
"""

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from chalicelib.domain.kernel import batching, clock, redaction, time_on_page
from chalicelib.domain.kernel.errors import invalid
from chalicelib.domain.kernel.types import JSON, Doc, Event
from chalicelib.store import port as store

Order = tuple[str, str]  # (column, ASC or DESC)

TYPES = {
    "asset.download": "Asset downloaded",
    "campaign.event": "Campaign action triggered",
    "campaign.event.scheduled": "Campaign event scheduled",
    "campaign_membership": "Campaign membership change",
    "segment_membership": "Segment membership change",
    "lead.source.created": "Contact created by source",
    "lead.source.identified": "Contact identified by source",
    "lead.identified": "Contact identified",
    "lead.merged": "Contact merged",
    "lead.utmtagsadded": "UTM tags recorded",
    "lead.donotcontact": "Do not contact",
    "lead.imported": "Imported",
    "email.read": "Email read",
    "email.sent": "Email sent",
    "email.failed": "Email failed",
    "email.softbounce": "Email bounced (transient)",
    "email.replied": "Email replied",
    "form.submitted": "Form submitted",
    "form.action.failed": "Form action failed",
    "focus.on_view": "Focus view",
    "focus.on_click": "Focus click",
    "page.hit": "Page hit",
    "page.videohit": "Video view event",
    "point.gained": "Point gained",
    "stage.changed": "Stage changed",
    "message.queue": "Message Queue",
    "sms.sent": "Sent",
    "sms.failed": "Failed",
    "sms_reply": "Text message received",
    "note": "Note",
}
ICONS = {
    "point.gained": "fa-calculator",
    "lead.donotcontact": "fa-ban",
    "lead.utmtagsadded": "fa-tag",
    "lead.identified": "fa-user",
    "note": "fa-file-text",
    "segment_membership": "fa-pie-chart",
    "campaign_membership": "fa-clock-o",
    "email.sent": "fa-envelope",
    "email.read": "fa-envelope-o",
    "form.submitted": "fa-pencil-square-o",
    "page.hit": "fa-link",
    "asset.download": "fa-download",
}
DEFAULT_LIMIT = 25
FEED_BUCKET = 1000
TRACKING_HASH = "trackingHash"  # a detail events of sends stored before issue 39; never shown


def event(event_type: str, label: str | None = None, details: Doc | None = None) -> Event:
    """An event for `Write.events` or `record`: its type id, label and details."""
    return {"event": event_type, "eventLabel": label or TYPES.get(event_type, event_type), "details": details or {}}


def kind(contact_id: JSON) -> str:
    """The storage kind of a contact's events (one partition per contact)."""
    return f"timeline#{int(contact_id)}"


def documents(contact_id: JSON, events: Sequence[Event], now: str) -> list[tuple[str, Doc]]:
    """(kind, document) pairs for events, with ids from the timeline counter. An event belongs to
    `contact_id` (the changed contact) unless it names its own `contactId` (a note's contact)."""
    if not events:
        return []
    ids = batching.allocate_ids("timeline", len(events))
    owned = [
        dict(e, id=i, timestamp=now, contactId=int(e.get("contactId") or contact_id))
        for i, e in zip(ids, events, strict=True)
    ]
    return [(kind(e["contactId"]), in_feed(e)) for e in owned]


def in_feed(doc: Doc) -> Doc:
    """The event document as stored: named in its bucket of the all-contacts feed."""
    return dict(doc, **{store.FEED: _bucket(doc["id"] // FEED_BUCKET)})


def _bucket(number: int) -> str:
    """The feed of the events whose ids fall in bucket `number`."""
    return f"timeline#{number}"


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


def contact_events(contact_id: JSON, descending: bool = True) -> Iterator[Doc]:
    """One contact's events in id (time) order: a Query of its partition."""
    return store.iterate(kind(contact_id), descending=descending)


def all_events(descending: bool = True) -> Iterator[Doc]:
    """Every event in the all-contacts feed, newest (or oldest) first, bucket by bucket."""
    last = store.last_id("timeline") // FEED_BUCKET
    for number in range(last, -1, -1) if descending else range(0, last + 1):
        yield from store.feed(_bucket(number), descending)
