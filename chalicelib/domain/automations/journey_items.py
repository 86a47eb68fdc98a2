"""Journey items: what a contact write stores beside the contact for its journeys (the members
index rows `enrolled#<automation>`, the due items `due#<shard>`, membership and scheduling timeline
events), which due items the worker is told of at once, and the read side of the memberships.
Computed from the stored and the new journey entries, so they are put or deleted with the contact.
"""

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from chalicelib.domain.automations import automation_graph as graph
from chalicelib.domain.automations import journey_entry
from chalicelib.domain.automations.journey_routing import by_id, due_kind, enrolled_kind, is_active
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.kernel import clock, due_items, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc, Event, Events
from chalicelib.domain.segments import membership
from chalicelib.store.port import Derived


def _row(entry: Mapping[str, Any]) -> Doc | None:
    """The members index row of an entry, None when it is no current membership (the row goes)."""
    if not is_active(entry):
        return None
    return {k: entry.get(k) for k in ("dateAdded", "manuallyAdded", "manuallyRemoved", "rotation", "source")}


def changes(doc: Contact | None, existing: Contact | None, ctx: Context) -> tuple[list[Derived], Events]:
    """(derived items, timeline events) between the stored journeys and the new ones: members index
    rows, due items put or deleted, membership and scheduling events; `doc` None deletes them all."""
    old, new = journey_entry.entries(existing), journey_entry.entries(doc)
    contact = doc or existing
    assert contact is not None  # a write has a document, a delete the one it removes
    contact_id = contact["id"]
    automations = by_id(ctx)
    derived: list[Derived] = []
    events: Events = []
    for key in sorted(set(old) | set(new), key=int):
        before: Mapping[str, Any] = old.get(key) or {}
        after: Mapping[str, Any] = new.get(key) or {}
        if _row(before) != _row(after):
            derived.append((enrolled_kind(key), contact_id, _row(after)))
            if doc is not None and bool(_row(before)) != bool(_row(after)) and int(key) in automations:
                events.append(_membership_event(automations[int(key)], after))
        gone = set(before.get("pending") or {}) - set(after.get("pending") or {})
        derived += [(due_kind(contact_id), int(due), None) for due in sorted(gone)]
        for due, pending in sorted((after.get("pending") or {}).items()):
            if due not in (before.get("pending") or {}):
                derived.append((due_kind(contact_id), int(due), _due_item(contact_id, key, after, pending)))
                events += _scheduled_event(automations.get(int(key)), pending, ctx)
    return derived, events


def _due_item(contact_id: int, key: str, entry: Mapping[str, Any], pending: Mapping[str, Any]) -> Doc:
    return {
        "contact": contact_id,
        "automation": int(key),
        "event": pending["event"],
        "dueAt": pending["dueAt"],
        "rotation": entry["rotation"],
    }


def _membership_event(automation: Doc, entry: Mapping[str, Any]) -> Event:
    added = is_active(entry)
    manual = entry.get("manuallyAdded") if added else entry.get("manuallyRemoved")
    verb = "Added to" if added else "Removed from"
    return timeline.event(
        "campaign_membership",
        f"{verb} automation {automation.get('name')}",
        {
            "automationId": automation["id"],
            "automationName": automation.get("name"),
            "action": "added" if added else "removed",
            "manual": bool(manual),
            "source": entry.get("source"),
            "rotation": entry.get("rotation"),
        },
    )


def _scheduled_event(automation: Doc | None, pending: Mapping[str, Any], ctx: Context) -> Events:
    if automation is None or pending.get("decision") is not None or pending["dueAt"] <= ctx.now:
        return []
    event = graph.event(automation, pending["event"])
    return (
        [
            timeline.event(
                "campaign.event.scheduled",
                f"{automation.get('name')}: {event.get('name')}",
                {
                    "automationId": automation["id"],
                    "eventId": event["id"],
                    "eventName": event.get("name"),
                    "type": event.get("type"),
                    "triggerDate": pending["dueAt"],
                },
            )
        ]
        if event
        else []
    )


def queue_targets(doc: Contact | None, existing: Contact | None, horizon: datetime) -> list[tuple[int, int, datetime]]:
    """[(contact id, due id, due at)] of the pending events this write added whose place in the due
    index falls before `horizon` (the worker is told at once; later ones wait for the dispatch job)."""
    if doc is None:
        return []
    old = journey_entry.entries(existing)
    found = []
    for key, entry in journey_entry.entries(doc).items():
        was = old.get(key)
        before = (was["pending"] if was else None) or {}
        found += [
            (doc["id"], int(due), clock.parse(p["dueAt"]))
            for due, p in (entry.get("pending") or {}).items()
            if due not in before and due_items.due_at(int(due)) <= horizon.timestamp()
        ]
    return found


# --- read side -------------------------------------------------------------------------------------


def contact_automations(doc: Contact, ctx: Context) -> Doc:
    """`{"total", "automations": {id: {...}}}` (compat 1.8): the contact's current memberships."""
    automations = by_id(ctx)
    found = {}
    for key, entry in sorted((doc.get("automations") or {}).items(), key=lambda item: int(item[0])):
        automation = automations.get(int(key))
        if automation and is_active(entry):
            lists = set(automation.get("lists") or [])
            found[key] = {
                "id": automation["id"],
                "name": automation.get("name"),
                "dateAdded": entry["dateAdded"],
                "manuallyRemoved": False,
                "manuallyAdded": bool(entry.get("manuallyAdded")),
                "listMembership": sorted(
                    int(k)
                    for k, e in (doc.get("segments") or {}).items()
                    if membership.is_member(e) and int(k) in lists
                ),
            }
    return {"total": len(found), "automations": found}
