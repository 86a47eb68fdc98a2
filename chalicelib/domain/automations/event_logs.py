"""Automation events on their own and a contact's event log (Mautic's EventApiController and
EventLogApiController, campaigns renamed automations).

Events live in their automation's document; a contact's log in the automation is its journey
entry (`journey_routing.py`): events done (`dateTriggered`), and events pending (`isScheduled`,
`triggerDate`). Editing a contact's event reschedules or triggers its pending run, or records it
as triggered, in the contact's write (its due items follow, `journey_items.changes`).

An event is its automation's: listing shows the events of the automations the caller may view, one
event needs its automation's view, a contact's event edit its automation's edit (the route checks
the contact's).
"""

import copy

from chalicelib.domain.automations import journey_entry, journey_routing
from chalicelib.domain.automations.declarations import AUTOMATION
from chalicelib.domain.automations.journey_entry import JourneyEntry
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import access, clock, service
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import DomainError, NotFound, invalid
from chalicelib.domain.kernel.listing import ListQuery
from chalicelib.domain.kernel.present import present_one
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.store.port import EntityId

ORDER_KEYS = ("id", "name", "type", "eventType", "order")
# Mautic's messages (CampaignBundle flashes.ini, `EventLogModel::updateContactEvent`)
NOT_MEMBER = "The contact {contact} is not in the campaign {automation}."
EXECUTED = "The event {event} in the campaign {automation} has already been executed at {at} for the contact {contact}."
UNSCHEDULED = (
    "The event {event} in the campaign {automation} must be scheduled or marked as complete as the contact "
    "{contact} does not have a log entry yet."
)
DECISION = "A decision type event cannot be scheduled. Event: {event}, campaign: {automation}, contact: {contact}."


class Refused(DomainError):
    """Mautic's 409 answers of the event log: not a member, already executed, nothing to schedule."""

    status = 409


def automation_ref(automation: Doc) -> Doc:
    """What an event or a log row shows of its automation: id, name, description, isPublished."""
    return {k: automation.get(k) for k in ("id", "name", "description", "isPublished")}


def events_of(automation: Doc, ctx: Context) -> list[Doc]:
    """The automation's events as its answer presents them, each with its automation."""
    ref = automation_ref(automation)
    return [dict(e, automation=ref) for e in present_one(AUTOMATION, automation, ctx).get("events") or []]


def listing(query: ListQuery, ctx: Context) -> Doc:
    """`{"total", "events": [...]}` of every automation's events: `search` (name or type), `start`,
    `limit`, `orderBy` (id, name, type, eventType, order), `orderByDir`."""
    order_by = query.order_by or "id"
    if order_by not in ORDER_KEYS:
        raise invalid("orderBy", f"Order by one of {', '.join(ORDER_KEYS)}.")
    text = (query.search or "").strip().lower()
    found = [
        e
        for automation in sorted(viewable(ctx), key=lambda d: d["id"])
        for e in events_of(automation, ctx)
        if not text or text in f"{e.get('name') or ''} {e.get('type') or ''}".lower()
    ]
    found.sort(
        key=lambda e: (
            e.get(order_by) is None,
            e.get(order_by) if order_by in ("id", "order") else str(e.get(order_by) or "").lower(),
        ),
        reverse=query.order_dir == "DESC",
    )
    end = query.start + query.limit if query.limit is not None else None
    return {"total": len(found), "events": found[query.start : end]}


def viewable(ctx: Context) -> list[Doc]:
    """The automations whose events the caller may see."""
    return [doc for doc in journey_routing.by_id(ctx).values() if access.allowed(ctx, AUTOMATION, Action.VIEW, doc)]


def find(event_id: JSON, ctx: Context) -> tuple[Doc, Doc]:
    """(automation, presented event) of an event id, or NotFound; the caller checks access."""
    try:
        wanted = a.as_int(event_id)
    except a.Invalid:
        raise NotFound() from None
    for automation in journey_routing.by_id(ctx).values():
        for event in events_of(automation, ctx):
            if event["id"] == wanted:
                return automation, event
    raise NotFound()


def one(event_id: JSON, ctx: Context) -> Doc:
    """`{"event"}`: one event with its automation; 404 unknown, 403 without the automation's view."""
    automation, event = find(event_id, ctx)
    access.require(ctx, AUTOMATION, Action.VIEW, automation)
    return {"event": event}


def log_rows(entry: JourneyEntry, event_id: int) -> list[Doc]:
    """The contact's log rows of one event: done, then pending runs."""
    rows = []
    done = (entry.get("done") or {}).get(str(event_id))
    if done:
        rows.append(
            {
                "dateTriggered": done["at"],
                "isScheduled": False,
                "triggerDate": None,
                "nonActionPathTaken": done.get("status") == "no",
                "metadata": {"status": done.get("status"), "reason": done.get("reason")},
                "rotation": entry.get("rotation") or 1,
            }
        )
    for _due, pending in sorted((entry.get("pending") or {}).items()):
        if pending["event"] == event_id:
            rows.append(
                {
                    "dateTriggered": None,
                    "isScheduled": True,
                    "triggerDate": pending["dueAt"],
                    "nonActionPathTaken": pending.get("decision") is not None,
                    "metadata": {},
                    "rotation": entry.get("rotation") or 1,
                }
            )
    return rows


def _membership(automation: Doc, contact: Contact, entry: JourneyEntry) -> Doc:
    return {
        "automation": automation["id"],
        "contact": contact["id"],
        "dateAdded": entry.get("dateAdded"),
        "manuallyRemoved": bool(entry.get("manuallyRemoved")),
        "manuallyAdded": bool(entry.get("manuallyAdded")),
        "rotation": entry.get("rotation") or 1,
        "dateLastExited": entry.get("dateLastExited"),
    }


def _member_entry(automation: Doc, contact: Contact) -> JourneyEntry:
    entry = journey_entry.entries(contact).get(str(automation["id"]))
    if entry is None or not journey_routing.is_active(entry):
        raise Refused(NOT_MEMBER.format(contact=contact["id"], automation=automation["id"]))
    return entry


def contact_log(automation_id: EntityId, contact_id: EntityId, ctx: Context) -> Doc:
    """`{"total", "events": [event with its contactLog], "automation", "membership"}` of one contact in
    one automation; 404 for an unknown one, 409 when the contact is not a member."""
    automation = service.load(AUTOMATION, automation_id)
    contact = service.load(CONTACT, contact_id)
    entry = _member_entry(automation, contact)
    events = [dict(e, contactLog=log_rows(entry, e["id"])) for e in events_of(automation, ctx)]
    return {
        "total": len(events),
        "events": events,
        "automation": automation_ref(automation),
        "membership": [_membership(automation, contact, entry)],
    }


def _moment(payload: Doc, name: str) -> str:
    try:
        return clock.iso(clock.parse(payload[name]))
    except (ValueError, TypeError, OverflowError):
        raise invalid(name, "This value is not a valid date.") from None


def edit_contact_event(event_id: JSON, contact_id: EntityId, payload: JSON, ctx: Context) -> tuple[Doc, bool]:
    """Reschedule (`triggerDate`; none: now), trigger now or record as triggered (`dateTriggered`) the
    contact's run of an event (EventLogModel::updateContactEvent). Returns (answer, created): created
    when the event had no run for the contact and one is scheduled."""
    automation, event = find(event_id, ctx)
    access.require(ctx, AUTOMATION, Action.EDIT, automation)
    existing = service.load(CONTACT, contact_id)
    logs, created = edit_run(automation, event, existing, payload, ctx)
    return {"event": dict(event, contactLog=logs)}, created


def edit_run(automation: Doc, event: Doc, existing: Doc, payload: JSON, ctx: Context) -> tuple[list[Doc], bool]:
    """The edit of one contact's run of one event, stored in the contact's one write: (the event's log
    rows for the contact after it, created). Refused (409) as Mautic refuses it, nothing written."""
    payload = payload if isinstance(payload, dict) else {}
    doc = copy.deepcopy(existing)
    entry = _member_entry(automation, doc)
    conflict = _refusal(entry, event, payload, automation, doc)
    if conflict:
        raise Refused(conflict)
    pending = [due for due, p in entry["pending"].items() if p["event"] == event["id"]]
    for due in pending:
        del entry["pending"][due]
    if payload.get("dateTriggered") not in (None, ""):
        entry["done"][str(event["id"])] = {
            "at": _moment(payload, "dateTriggered"),
            "status": "ok",
            "reason": "Marked as triggered through the API.",
        }
    else:
        at = _moment(payload, "triggerDate") if payload.get("triggerDate") not in (None, "") else ctx.now
        moment = clock.parse(at)
        journey_routing.schedule(entry, event["id"], moment, slot=journey_routing.next_run(moment, ctx))
    stored = service.save_change(CONTACT, existing, doc, ctx)
    return log_rows(stored["automations"][str(automation["id"])], event["id"]), not pending


def _refusal(entry: JourneyEntry, event: Doc, payload: Doc, automation: Doc, contact: Contact) -> str | None:
    """Mautic's 409 reasons, or None."""
    ids = {"automation": automation["id"], "event": event["id"], "contact": contact["id"]}
    done = (entry.get("done") or {}).get(str(event["id"]))
    if done is not None:
        return EXECUTED.format(at=clock.iso(clock.parse(done["at"])) if done.get("at") else "", **ids)
    scheduled = any(p["event"] == event["id"] for p in entry["pending"].values())
    if not scheduled and payload.get("triggerDate") in (None, "") and payload.get("dateTriggered") in (None, ""):
        return UNSCHEDULED.format(**ids)
    if payload.get("triggerDate") not in (None, "") and event.get("eventType") == "decision":
        return DECISION.format(**ids)
    return None
