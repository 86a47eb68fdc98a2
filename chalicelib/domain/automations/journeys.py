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

The entry's membership and routing are `journey_routing.py`; the items a write stores beside the
contact (members index, due items) are `journey_items.py`. This module advances the journeys within
a contact write and runs the events that fall due, and is what the subscriber table wires in.
"""

from collections.abc import Sequence
from datetime import timedelta

from chalicelib.domain.automations import automation_graph as graph
from chalicelib.domain.automations import automation_steps as steps
from chalicelib.domain.automations import dwc_requests, journey_entry, send_windows
from chalicelib.domain.automations.journey_entry import JourneyEntry, PendingEvent
from chalicelib.domain.automations.journey_items import changes
from chalicelib.domain.automations.journey_routing import (
    by_id,
    enroll,
    is_active,
    leave,
    now,
    reach,
    reach_children,
    record,
    run_event,
    schedule,
    zone,
)
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import cache_keys, clock
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.subscribers import Change
from chalicelib.domain.kernel.types import Doc, Event, Events
from chalicelib.domain.segments import membership
from chalicelib.store.port import Derived

ROUNDS = 5  # segment and automation changes an action may set off, re-evaluated within one write
INLINE_MAX = 10  # events run in one contact write (a transaction holds 100 items); the rest: the worker
PAUSE = timedelta(hours=1)  # an unpublished automation's due events are looked at again after this


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
                record(entry, decision["id"], "yes", ctx)
                decided.append(run_event(automation, decision, "yes", ctx))
                reach_children(entry, automation, decision["id"], "yes", ctx, zone(doc))
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
    """Run one ready event: a condition takes its path, an external action is left to the worker, an
    inline action acts on `doc` now. Its timeline events."""
    if event["eventType"] == "condition":
        outcome = steps.condition(event, doc, ctx)
        status = "failed" if outcome is None else "yes" if outcome else "no"
        record(entry, event["id"], status, ctx, steps.UNAVAILABLE if outcome is None else None)
        if outcome is not None:
            reach_children(entry, automation, event["id"], status, ctx, zone(doc))
        return [run_event(automation, event, status, ctx, entry["done"][str(event["id"])]["reason"])]
    if event["type"] in steps.EXTERNAL:
        claimed = ctx.cache.get(cache_keys.JOURNEYS_EXTERNAL)
        if claimed is None:  # not in the worker: it runs there, right after this write
            schedule(entry, event["id"], now(ctx), checked=True)
            return []
        record(entry, event["id"], "running", ctx)
        claimed.append((automation["id"], event["id"]))
        return []
    status, reason, effects = steps.act(event, doc, automation, ctx, JOURNEY_ACTIONS)
    return effects + complete(doc, entry, automation, event, (status, reason), ctx)


def complete(
    doc: Contact, entry: JourneyEntry, automation: Doc, event: Doc, outcome: tuple[str, str | None], ctx: Context
) -> Events:
    """Record how an action went (status, reason); on success its children are reached. Its timeline events."""
    status, reason = outcome
    record(entry, event["id"], status, ctx, reason)
    if status == "ok" and is_active(entry):
        reach_children(entry, automation, event["id"], None, ctx, zone(doc))
    return [run_event(automation, event, status, ctx, reason)]


def _defer_ready(doc: Contact, ctx: Context) -> None:
    """Ready events left over (budget spent, automation unpublished) become pending for the worker."""
    for key, entry in journey_entry.entries(doc).items():
        left = entry.pop("ready", None) or []
        if not is_active(entry):
            continue
        paused = not is_published(by_id(ctx).get(int(key)) or {}, ctx.now)
        for event_id in left:
            schedule(entry, event_id, now(ctx) + (PAUSE if paused else timedelta(0)), checked=not paused)


def take_due(doc: Contact, due: int, ctx: Context) -> tuple[str, Events]:
    """Move a pending event whose time has come to ready (a decision's no path: take it unless the
    yes path was taken). Returns (`gone` | `early` | `taken`, timeline events)."""
    for key, entry in journey_entry.entries(doc).items():  # noqa: B007 - the entry found is used after the loop
        pending = entry.get("pending", {}).get(str(due))
        if pending:
            break
    else:
        return "gone", []
    if clock.parse(pending["dueAt"]) > now(ctx):
        return "early", []
    del entry["pending"][str(due)]
    if _window_closed(doc, key, entry, pending, ctx):
        return "taken", []
    events = []
    decision = pending.get("decision")
    if decision is not None:
        if str(decision) in entry["waiting"]:
            del entry["waiting"][str(decision)]
            record(entry, decision, "no", ctx)
            automation = by_id(ctx).get(int(key))
            found = graph.event(automation, decision) if automation else None
            events = [run_event(automation, found, "no", ctx)] if automation and found else []
        elif journey_entry.done_status(entry, decision) != "no":
            return "taken", []
    entry.setdefault("ready", []).append(pending["event"])
    return "taken", events


def _window_closed(doc: Contact, key: str, entry: JourneyEntry, pending: PendingEvent, ctx: Context) -> bool:
    """An event whose send window is closed now (a late worker, a date a client set) moves to the
    window's next moment instead of running, as Mautic's ScheduledExecutioner::validateSchedule does."""
    automation = by_id(ctx).get(int(key))
    event = graph.event(automation, pending["event"]) if automation and not pending.get("checked") else None
    found = send_windows.window(event) if event else None
    if found is None or send_windows.still_open(now(ctx), found, zone(doc)):
        return False
    schedule(entry, pending["event"], send_windows.earliest(now(ctx), found, zone(doc)), pending.get("decision"))
    return True


# --- subscribers -----------------------------------------------------------------------------------


def on_contact_write(change: Change) -> tuple[list[Derived], Events]:
    """Subscriber to contact writes: advance the journeys with the change's events."""
    return [], (advance(change.doc, change.events, change.ctx) if change.doc is not None else [])


def on_membership_change(change: Change) -> tuple[list[Derived], Events]:
    """Subscriber to contact writes (after segment membership): members and due rows of the journeys."""
    return changes(change.doc, change.existing, change.ctx)


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
    """Move the contact to another event of the same automation (`campaign.jump_to_event`)."""
    target = graph.event(automation, a.id_or_none(props.get("jumpToEvent")))
    if target is None:
        raise a.Invalid("The event to jump to is not in this automation.")
    reach(journey_entry.entries(doc)[str(automation["id"])], automation, target, ctx, zone(doc))


JOURNEY_ACTIONS: dict[str | None, steps.Step] = {  # the actions that move the contact between automations and events
    "campaign.addremovelead": lambda p, d, auto, c: change_automations(d, p, c, this=auto["id"]),
    "campaign.jump_to_event": _jump,
    "dwc.push_content": dwc_requests.push_content,
}
