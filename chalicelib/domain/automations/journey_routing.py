"""Journey routing: a contact's membership of an automation (enter, leave) and its arrival at the
events of the graph (decisions wait, actions are ready or scheduled), all within the journey entry
kept in the contact document (`journey_entry.py`). Also the keys of the members index and of the due
items (`kernel/due_items.py`), shared by the write side (`journey_items.py`) and the worker
(`automation_runs.py`).
"""

from collections.abc import Mapping
from datetime import datetime, timedelta, tzinfo
from typing import Any

from chalicelib.domain.automations import automation_graph as graph
from chalicelib.domain.automations import journey_entry, send_windows
from chalicelib.domain.automations.journey_entry import JourneyEntry, PendingEvent
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.kernel import cache_keys, cached, clock, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.due_items import ID_SCALE as ID_SCALE
from chalicelib.domain.kernel.due_items import due_id as due_id
from chalicelib.domain.kernel.due_items import due_id_floor as due_id_floor
from chalicelib.domain.kernel.due_items import due_kind as due_kind
from chalicelib.domain.kernel.types import Doc, Event
from chalicelib.store.port import EntityId

KIND = "automation"
LOOKAHEAD = timedelta(minutes=2)  # how far ahead the minute job queues due items (automation_runs.dispatch)
HOLD = timedelta(seconds=30)  # a client's past date waits this long past the look-ahead: the next minute job


def by_id(ctx: Context) -> dict[int, Doc]:
    """Every automation by id (a versioned cached kind)."""
    return cached.derived(KIND, "by-id", lambda docs: {d["id"]: d for d in docs}, ctx)


def enrolled_kind(automation_id: EntityId) -> str:
    """The members index of an automation: `enrolled#<automation id>` / contact id."""
    return f"enrolled#{int(automation_id)}"


def zone(doc: Contact) -> tzinfo:
    """The clock of the contact's send windows: its `timezone`, else the instance default."""
    return send_windows.zone_of((doc.get("values") or {}).get("timezone"))


def now(ctx: Context) -> datetime:
    """ctx.now as a datetime, parsed once per context (routing and the due checks compare against it)."""
    return ctx.memo(cache_keys.NOW_DATETIME, lambda: clock.parse(ctx.now))


# --- membership ------------------------------------------------------------------------------------


def enroll(doc: Contact, automation: Doc, source: str, ctx: Context) -> bool:
    """Make the contact an active member (roots reached now). Coming back after leaving starts a new
    rotation from the roots when the automation allows restarts, else resumes: what ran stays done."""
    entries = journey_entry.kept_entries(doc)
    key = str(automation["id"])
    old = entries.get(key)
    if old and old["active"]:
        return False
    restart = bool(old) and bool(automation.get("allowRestart"))
    entry: JourneyEntry = {
        "dateAdded": ctx.now,
        "manuallyAdded": source == "manual",
        "manuallyRemoved": False,
        "active": True,
        "source": source,
        "rotation": (old["rotation"] + (1 if restart else 0)) if old else 1,
        "dateLastExited": old.get("dateLastExited") if old else None,
        "done": {} if restart or not old else old["done"],
        "waiting": {},
        "pending": {},
    }
    entries[key] = entry
    for root in graph.roots(automation):
        reach(entry, automation, root, ctx, zone(doc))
    return True


def leave(doc: Contact, automation_id: EntityId | None, manual: bool, ctx: Context) -> bool:
    """End the contact's membership; its scheduled and waiting events are cancelled. A removal by
    hand sticks: the sources do not add the contact back."""
    entry = journey_entry.entries(doc).get(str(automation_id))
    if not entry or (not entry["active"] and not manual):
        return False
    entry.update(
        {
            "active": False,
            "dateLastExited": ctx.now,
            "pending": {},
            "waiting": {},
            "ready": [],
            "manuallyRemoved": bool(manual) or entry.get("manuallyRemoved", False),
        }
    )
    if manual:
        entry["manuallyAdded"] = False
    return True


def is_active(entry: Mapping[str, Any] | None) -> bool:
    """Whether a journey entry is a current membership (active and not removed by hand)."""
    return bool(entry and entry.get("active") and not entry.get("manuallyRemoved"))


# --- routing ---------------------------------------------------------------------------------------


def reach(entry: JourneyEntry, automation: Doc, event: Doc, ctx: Context, clock_zone: tzinfo) -> None:
    """The contact arrives at an event: a decision starts waiting (its no path scheduled), an action
    or condition is ready now or scheduled for its time (send windows on `clock_zone`, the contact's).
    Events already done are not reached again."""
    key = str(event["id"])
    if (
        key in entry["done"]
        or key in entry["waiting"]
        or any(p["event"] == event["id"] and not p.get("decision") for p in entry["pending"].values())
    ):
        return
    moment = now(ctx)
    if event.get("eventType") == "decision":
        entry["waiting"][key] = ctx.now
        for child in graph.children(automation, event["id"], "no"):
            schedule(entry, child["id"], graph.due_at(child, moment, clock_zone), decision=event["id"])
        return
    at = graph.due_at(event, moment, clock_zone)
    if at <= moment:
        entry.setdefault("ready", []).append(event["id"])
    else:
        schedule(entry, event["id"], at)


def schedule(
    entry: JourneyEntry,
    event_id: int,
    at: datetime,
    decision: int | None = None,
    checked: bool = False,
    slot: datetime | None = None,
) -> None:
    """Add a pending event due at `at` (its due item is written with the contact, in the index at `slot`,
    else at `at`); `checked`: a ready event left to the worker, whose send window is not looked at again
    when it fires."""
    pending: PendingEvent = {"event": event_id, "dueAt": clock.iso(at), "decision": decision}
    if checked:
        pending["checked"] = True
    entry["pending"][str(due_id(slot or at))] = pending


def next_run(at: datetime, ctx: Context) -> datetime:
    """Where a date a client set goes in the due index: its own place, or, when it has passed or is
    about to, the minute job's next run (past the look-ahead, so this write queues nothing at once).
    Mautic leaves an edited log scheduled until the next `campaign:trigger`: the client may still
    change it, and an edit stored before the worker's claim wins (the claim is conditional on the
    contact's revision)."""
    return max(at, now(ctx) + LOOKAHEAD + HOLD)


def reach_children(
    entry: JourneyEntry, automation: Doc, event_id: int, path: str | None, ctx: Context, clock_zone: tzinfo
) -> None:
    """The contact reaches the children of an event (those on `path`, yes or no, when given)."""
    for child in graph.children(automation, event_id, path):
        reach(entry, automation, child, ctx, clock_zone)


def record(entry: JourneyEntry, event_id: int, status: str, ctx: Context, reason: str | None = None) -> None:
    """Mark an event done with how it went, so the contact never runs it again in this rotation."""
    entry["done"][str(event_id)] = {"at": ctx.now, "status": status, "reason": reason}


def run_event(automation: Doc, event: Doc, status: str, ctx: Context, reason: str | None = None) -> Event:
    """The `campaign.event` timeline event of an event that ran (or was decided) for the contact."""
    label = f"{automation.get('name')}: {event.get('name') or event.get('type')}"
    return timeline.event(
        "campaign.event",
        label,
        {
            "automationId": automation["id"],
            "automationName": automation.get("name"),
            "eventId": event["id"],
            "eventName": event.get("name"),
            "type": event.get("type"),
            "eventType": event.get("eventType"),
            "status": status,
            "reason": reason,
        },
    )
