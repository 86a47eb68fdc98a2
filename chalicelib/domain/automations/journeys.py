"""Automation journeys: each contact's membership of an automation and its path through the events,
kept in the contact document and advanced in the very transaction that writes the contact.

`doc["automations"][<automation id>]` is the contact's entry, a `JourneyEntry` (journey_entry.py):
    dateAdded, manuallyAdded, manuallyRemoved, active, source (list | form | manual | automation),
    rotation (how many times it entered), dateLastExited,
    done     {event id: {at, status, reason}}  events that ran: ok | failed | running, yes | no for branches
    waiting  {decision id: reached at}         decisions waiting for the contact's activity
    pending  {due id: {event, dueAt, decision}} events scheduled for later (a decision's no path names it)
Each pending entry is mirrored by a due item (`due#<shard>` / due id, the id sorting by due time)
and each active membership by `enrolled#<automation>` / contact id, both put or deleted with the
contact, so nothing scheduled is lost and a schedule never outlives its membership.
"""

import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from chalicelib import config
from chalicelib.domain.automations import automation_graph as graph
from chalicelib.domain.automations import automation_steps as steps
from chalicelib.domain.automations import journey_entry
from chalicelib.domain.automations.journey_entry import JourneyEntry
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import cache_keys, cached, clock, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.subscribers import Change
from chalicelib.domain.kernel.types import Doc, Event, Events
from chalicelib.domain.segments import membership
from chalicelib.store.port import Derived, EntityId

KIND = "automation"
ROUNDS = 5  # segment and automation changes an action may set off, re-evaluated within one write
INLINE_MAX = 10  # events run in one contact write (a transaction holds 100 items); the rest: the worker
PAUSE = timedelta(hours=1)  # an unpublished automation's due events are looked at again after this
ID_SCALE = 10**6


def by_id(ctx: Context) -> dict[int, Doc]:
    """Every automation by id (a versioned cached kind)."""
    return cached.derived(KIND, "by-id", lambda docs: {d["id"]: d for d in docs}, ctx)


def enrolled_kind(automation_id: EntityId) -> str:
    """The members index of an automation: `enrolled#<automation id>` / contact id."""
    return f"enrolled#{int(automation_id)}"


def due_kind(contact_id: EntityId) -> str:
    """The due items' shard of a contact: `due#<contact id % AUTOMATION_DUE_SHARDS>`."""
    return f"due#{int(contact_id) % config.AUTOMATION_DUE_SHARDS}"


def due_id(moment: datetime) -> int:
    """A new due id: milliseconds of the due time, then six random digits."""
    return int(moment.timestamp() * 1000) * ID_SCALE + secrets.randbelow(ID_SCALE)


def due_id_floor(moment: datetime) -> int:
    """The smallest due id of that due time (for range queries)."""
    return int(moment.timestamp() * 1000) * ID_SCALE


def _now(ctx: Context) -> datetime:
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
        reach(entry, automation, root, ctx)
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


def reach(entry: JourneyEntry, automation: Doc, event: Doc, ctx: Context) -> None:
    """The contact arrives at an event: a decision starts waiting (its no path scheduled), an action
    or condition is ready now or scheduled for its time. Events already done are not reached again."""
    key = str(event["id"])
    if (
        key in entry["done"]
        or key in entry["waiting"]
        or any(p["event"] == event["id"] and not p.get("decision") for p in entry["pending"].values())
    ):
        return
    now = _now(ctx)
    if event.get("eventType") == "decision":
        entry["waiting"][key] = ctx.now
        for child in graph.children(automation, event["id"], "no"):
            schedule(entry, child["id"], graph.due_at(child, now), decision=event["id"])
        return
    at = graph.due_at(event, now)
    if at <= now:
        entry.setdefault("ready", []).append(event["id"])
    else:
        schedule(entry, event["id"], at)


def schedule(entry: JourneyEntry, event_id: int, at: datetime, decision: int | None = None) -> None:
    """Add a pending event due at `at` (its due item is written with the contact)."""
    entry["pending"][str(due_id(at))] = {"event": event_id, "dueAt": clock.iso(at), "decision": decision}


def reach_children(entry: JourneyEntry, automation: Doc, event_id: int, path: str | None, ctx: Context) -> None:
    """The contact reaches the children of an event (those on `path`, yes or no, when given)."""
    for child in graph.children(automation, event_id, path):
        reach(entry, automation, child, ctx)


def _record(entry: JourneyEntry, event_id: int, status: str, ctx: Context, reason: str | None = None) -> None:
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


# --- advancing within a contact write --------------------------------------------------------------


def advance(doc: Contact, events: Sequence[Event], ctx: Context) -> Events:
    """Bring the contact's segments and journeys up to date with a change and its timeline `events`:
    enter or leave automations by their sources, take the yes path of decisions the events satisfy,
    run what is ready (inline actions change `doc`). Returns the timeline events this produced."""
    produced, fresh, budget = [], list(events), [INLINE_MAX]
    for _ in range(ROUNDS):
        membership.evaluate(doc, ctx)
        moved = _sync_sources(doc, fresh, ctx)
        fresh = _decide(doc, fresh, ctx)
        fresh += _run_ready(doc, ctx, budget)
        produced += fresh
        if not moved and not fresh:
            break
    _defer_ready(doc, ctx)
    return produced


def _sync_sources(doc: Contact, events: Sequence[Event], ctx: Context) -> bool:
    """Enter the automations whose source segments hold the contact or whose source forms it just
    submitted; leave those whose source segments no longer hold it (unless added another way).
    Entries of deleted automations are dropped. True when a membership changed."""
    automations = by_id(ctx)
    entries = journey_entry.kept_entries(doc)
    for key in [k for k in entries if int(k) not in automations]:
        del entries[key]
    segments = {int(k) for k, e in (doc.get("segments") or {}).items() if membership.is_member(e)}
    forms = {a.id_or_none(e["details"].get("form")) for e in events if e.get("event") == "form.submitted"}
    moved = False
    for automation in automations.values():
        if not is_published(automation, ctx.now):
            continue
        entry = entries.get(str(automation["id"]))
        in_list = bool(segments & set(automation.get("lists") or []))
        if entry is not None and is_active(entry):
            if entry["source"] == "list" and not in_list and automation.get("removeOnSegmentExit", True):
                moved |= leave(doc, automation["id"], False, ctx)
        elif not (entry and entry.get("manuallyRemoved")):
            source = "list" if in_list else "form" if forms & set(automation.get("forms") or []) else None
            if source:
                moved |= enroll(doc, automation, source, ctx)
    return moved


def _decide(doc: Contact, events: Sequence[Event], ctx: Context) -> Events:
    """Take the yes path of waiting decisions that one of `events` satisfies; their timeline events."""
    decided = []
    automations = by_id(ctx)
    for key, entry in journey_entry.entries(doc).items():
        if not is_active(entry) or not entry["waiting"]:
            continue
        automation = automations[int(key)]
        for waiting in list(entry["waiting"]):
            decision = graph.event(automation, int(waiting))
            if decision and any(steps.decided(decision, automation, e) for e in events):
                del entry["waiting"][waiting]
                _record(entry, decision["id"], "yes", ctx)
                decided.append(run_event(automation, decision, "yes", ctx))
                reach_children(entry, automation, decision["id"], "yes", ctx)
    return decided


def _run_ready(doc: Contact, ctx: Context, budget: list[int]) -> Events:
    """Run the ready events of every membership (at most `budget[0]` in all); their timeline events."""
    produced = []
    automations = by_id(ctx)
    for key, entry in list(journey_entry.entries(doc).items()):
        automation = automations.get(int(key))
        if automation is None:
            continue  # deleted: `_sync_sources` dropped its entry
        while is_active(entry) and entry.get("ready") and budget[0] > 0 and is_published(automation, ctx.now):
            event = graph.event(automation, entry["ready"].pop(0))
            if event is not None and str(event["id"]) not in entry["done"]:
                budget[0] -= 1
                produced += _run(doc, entry, automation, event, ctx)
    return produced


def _run(doc: Contact, entry: JourneyEntry, automation: Doc, event: Doc, ctx: Context) -> Events:
    if event["eventType"] == "condition":
        outcome = steps.condition(event, doc, ctx)
        status = "failed" if outcome is None else "yes" if outcome else "no"
        _record(entry, event["id"], status, ctx, steps.UNAVAILABLE if outcome is None else None)
        if outcome is not None:
            reach_children(entry, automation, event["id"], status, ctx)
        return [run_event(automation, event, status, ctx, entry["done"][str(event["id"])]["reason"])]
    if event["type"] in steps.EXTERNAL:
        claimed = ctx.cache.get(cache_keys.JOURNEYS_EXTERNAL)
        if claimed is None:  # not in the worker: it runs there, right after this write
            schedule(entry, event["id"], _now(ctx))
            return []
        _record(entry, event["id"], "running", ctx)
        claimed.append((automation["id"], event["id"]))
        return []
    status, reason, effects = steps.act(event, doc, automation, ctx, JOURNEY_ACTIONS)
    return effects + complete(entry, automation, event, status, reason, ctx)


def complete(entry: JourneyEntry, automation: Doc, event: Doc, status: str, reason: str | None, ctx: Context) -> Events:
    """Record how an action went; on success its children are reached. Its timeline events."""
    _record(entry, event["id"], status, ctx, reason)
    if status == "ok" and is_active(entry):
        reach_children(entry, automation, event["id"], None, ctx)
    return [run_event(automation, event, status, ctx, reason)]


def _defer_ready(doc: Contact, ctx: Context) -> None:
    """Ready events left over (budget spent, automation unpublished) become pending for the worker."""
    for key, entry in journey_entry.entries(doc).items():
        left = entry.pop("ready", None) or []
        if not is_active(entry):
            continue
        paused = not is_published(by_id(ctx).get(int(key)) or {}, ctx.now)
        for event_id in left:
            schedule(entry, event_id, _now(ctx) + (PAUSE if paused else timedelta(0)))


def take_due(doc: Contact, due: int, ctx: Context) -> tuple[str, Events]:
    """Move a pending event whose time has come to ready (a decision's no path: take it unless the
    yes path was taken). Returns (`gone` | `early` | `taken`, timeline events)."""
    for key, entry in journey_entry.entries(doc).items():  # noqa: B007 - the entry found is used after the loop
        pending = entry.get("pending", {}).get(str(due))
        if pending:
            break
    else:
        return "gone", []
    if clock.parse(pending["dueAt"]) > _now(ctx):
        return "early", []
    del entry["pending"][str(due)]
    events = []
    decision = pending.get("decision")
    if decision is not None:
        if str(decision) in entry["waiting"]:
            del entry["waiting"][str(decision)]
            _record(entry, decision, "no", ctx)
            automation = by_id(ctx).get(int(key))
            found = graph.event(automation, decision) if automation else None
            events = [run_event(automation, found, "no", ctx)] if automation and found else []
        elif journey_entry.done_status(entry, decision) != "no":
            return "taken", []
    entry.setdefault("ready", []).append(pending["event"])
    return "taken", events


# --- what a contact write stores with the contact --------------------------------------------------


def _row(entry: Mapping[str, Any]) -> Doc | None:
    if not is_active(entry):
        return None
    return {k: entry.get(k) for k in ("dateAdded", "manuallyAdded", "manuallyRemoved", "rotation", "source")}


def on_contact_write(change: Change) -> tuple[list[Derived], Events]:
    """Subscriber to contact writes: advance the journeys with the change's events."""
    return [], (advance(change.doc, change.events, change.ctx) if change.doc is not None else [])


def on_membership_change(change: Change) -> tuple[list[Derived], Events]:
    """Subscriber to contact writes (after segment membership): members and due rows of the journeys."""
    return changes(change.doc, change.existing, change.ctx)


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
    """[(contact id, due id, due at)] of the pending events this write added that fall due before
    `horizon` (the worker is told at once; later ones wait for the dispatch job)."""
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
            if due not in before and clock.parse(p["dueAt"]) <= horizon
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


def on_trigger(doc: Contact, item: Doc, ctx: Context) -> bool:
    """A point trigger's `campaign.changecampaign` event (a subscriber action)."""
    change_automations(doc, item.get("properties") or {}, ctx)
    return True


def change_automations(doc: Contact, props: Doc, ctx: Context, this: int | None = None) -> None:
    """Take the contact out of the automations of `removeFrom` and into those of `addTo` (ids;
    `this` is the automation running the action)."""
    known = by_id(ctx)
    for target in a.ids_in(props.get("removeFrom"), keep=("this",)):
        leave(doc, this if target == "this" else target, False, ctx)
    for target in a.ids_in(props.get("addTo"), keep=("this",)):
        wanted = this if target == "this" else target
        found = known.get(wanted) if isinstance(wanted, int) else None
        if found is not None:
            enroll(doc, found, "automation", ctx)


def _jump(props: Doc, doc: Contact, automation: Doc, ctx: Context) -> None:
    target = graph.event(automation, a.id_or_none(props.get("jumpToEvent")))
    if target is None:
        raise a.Invalid("The event to jump to is not in this automation.")
    reach(journey_entry.entries(doc)[str(automation["id"])], automation, target, ctx)


JOURNEY_ACTIONS: dict[str | None, steps.Step] = {  # the actions that move the contact between automations and events
    "campaign.addremovelead": lambda p, d, auto, c: change_automations(d, p, c, this=auto["id"]),
    "campaign.jump_to_event": _jump,
}
