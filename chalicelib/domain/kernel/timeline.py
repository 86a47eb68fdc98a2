"""Contact timeline: events recorded with the change that causes them, read per contact.

Events are documents of kind `timeline#<contact id>` (one partition per contact, newest id
last) written in the same transaction as the contact change, so none is lost. Event ids come
from one counter; the API's `eventId` is the event type followed by that id (compat 9.1).
"""
import math

from chalicelib.domain.kernel import batching, clock
from chalicelib.domain.kernel.errors import invalid
from chalicelib.store import entities as store

TYPES = {
    "asset.download": "Asset downloaded", "campaign.event": "Campaign action triggered",
    "campaign.event.scheduled": "Campaign event scheduled", "campaign_membership": "Campaign membership change",
    "segment_membership": "Segment membership change", "lead.source.created": "Contact created by source",
    "lead.source.identified": "Contact identified by source", "lead.identified": "Contact identified",
    "lead.merged": "Contact merged",
    "lead.utmtagsadded": "UTM tags recorded", "lead.donotcontact": "Do not contact", "lead.imported": "Imported",
    "email.read": "Email read", "email.sent": "Email sent", "email.failed": "Email failed",
    "email.replied": "Email replied", "form.submitted": "Form submitted", "form.action.failed": "Form action failed",
    "page.hit": "Page hit",
    "page.videohit": "Video view event", "point.gained": "Point gained", "stage.changed": "Stage changed",
    "sms.sent": "Sent", "sms.failed": "Failed", "sms_reply": "Text message received", "note": "Note",
}
ICONS = {"point.gained": "fa-calculator", "lead.donotcontact": "fa-ban", "lead.utmtagsadded": "fa-tag",
         "lead.identified": "fa-user", "note": "fa-file-text", "segment_membership": "fa-pie-chart",
         "campaign_membership": "fa-clock-o", "email.sent": "fa-envelope", "email.read": "fa-envelope-o",
         "form.submitted": "fa-pencil-square-o", "page.hit": "fa-link", "asset.download": "fa-download"}
DEFAULT_LIMIT = 25


def event(event_type, label=None, details=None):
    """An event for `Write.events` or `record`: its type id, label and details."""
    return {"event": event_type, "eventLabel": label or TYPES.get(event_type, event_type), "details": details or {}}


def kind(contact_id):
    return f"timeline#{int(contact_id)}"


def documents(contact_id, events, now):
    """(kind, document) pairs for events, with ids from the timeline counter. An event belongs to
    `contact_id` (the changed contact) unless it names its own `contactId` (a note's contact)."""
    if not events:
        return []
    ids = batching.allocate_ids("timeline", len(events))
    owned = [dict(e, id=i, timestamp=now, contactId=int(e.get("contactId") or contact_id)) for i, e in zip(ids, events)]
    return [(kind(e["contactId"]), e) for e in owned]


def _present(doc):
    return {"event": doc["event"], "eventId": f"{doc['event']}{doc['id']}", "eventLabel": doc.get("eventLabel"),
            "eventType": TYPES.get(doc["event"], doc["event"]), "eventPriority": 0,
            "icon": ICONS.get(doc["event"], "fa-calendar"), "featured": False, "timestamp": doc["timestamp"],
            "contactId": doc["contactId"], "details": doc.get("details") or {}}


def _in_range(doc, date_from, date_to):
    stamp = doc["timestamp"]
    return (not date_from or stamp >= date_from) and (not date_to or stamp <= date_to)


def _date(value, name):
    if not value:
        return None
    try:
        return clock.iso(clock.parse(value))
    except (ValueError, OverflowError):
        raise invalid(f"filters[{name}]", "This value is not a valid date (Y-m-d H:i:s).") from None


def read(contact_id, filters, order, page, limit):
    """The timeline object of compat 9.1: filtered, ordered, paged events of one contact."""
    search = (filters.get("search") or "").strip().lower()
    include, exclude = set(filters.get("includeEvents") or []), set(filters.get("excludeEvents") or [])
    date_from, date_to = _date(filters.get("dateFrom"), "dateFrom"), _date(filters.get("dateTo"), "dateTo")
    column, direction = order
    events = [d for d in store.iterate(kind(contact_id), descending=True)
              if (not include or d["event"] in include) and d["event"] not in exclude
              and _in_range(d, date_from, date_to)
              and (not search or search in (str(d.get("eventLabel")) + " " + d["event"]).lower())]
    key = (lambda d: str(d.get("eventLabel") or "").lower()) if column == "eventLabel" else (lambda d: (d["timestamp"], d["id"]))
    events.sort(key=key, reverse=direction == "DESC")
    start = (page - 1) * limit
    return {"events": [_present(d) for d in events[start:start + limit]],
            "filters": {"search": filters.get("search") or "", "includeEvents": sorted(include),
                        "excludeEvents": sorted(exclude)},
            "order": [column, direction], "types": TYPES, "total": len(events), "page": page, "limit": limit,
            "maxPages": max(1, math.ceil(len(events) / limit))}
