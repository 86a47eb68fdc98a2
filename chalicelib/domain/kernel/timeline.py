"""Contact timeline: events recorded with the change that causes them, read per contact.

Events are documents of kind `timeline#<contact id>` (one partition per contact, newest id
last) written in the same transaction as the contact change, so none is lost. Event ids come
from one counter; the API's `eventId` is the event type followed by that id (compat 9.1).
Every event is also in the feed of all contacts' events (the store's feed index, one bucket
`timeline#<id // 1000>` per 1,000 ids), which `GET /contacts/activity` reads newest first. The
reads the API answers, with a page hit's time on page, are `contacts/contact_timeline.py`.
"""

from collections.abc import Iterator, Sequence

from chalicelib.domain.kernel import batching
from chalicelib.domain.kernel.types import JSON, Doc, Event
from chalicelib.store import port as store

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


def contact_events(contact_id: JSON, descending: bool = True) -> Iterator[Doc]:
    """One contact's events in id (time) order: a Query of its partition."""
    return store.iterate(kind(contact_id), descending=descending)


def all_events(descending: bool = True) -> Iterator[Doc]:
    """Every event in the all-contacts feed, newest (or oldest) first, bucket by bucket."""
    last = store.last_id("timeline") // FEED_BUCKET
    for number in range(last, -1, -1) if descending else range(0, last + 1):
        yield from store.feed(_bucket(number), descending)
