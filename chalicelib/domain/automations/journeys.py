"""Automation journeys: each contact's membership of an automation and its path through the events,
kept in the contact document and advanced in the very transaction that writes the contact.

`doc["automations"][<automation id>]` is the contact's entry:
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
from datetime import timedelta

from chalicelib import config
from chalicelib.domain.automations import automation_graph as graph
from chalicelib.domain.automations import automation_steps as steps
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import cache_keys, cached, clock, timeline
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.segments import membership

KIND = "automation"
ROUNDS = 5  # segment and automation changes an action may set off, re-evaluated within one write
INLINE_MAX = 10  # events run in one contact write (a transaction holds 100 items); the rest: the worker
PAUSE = timedelta(hours=1)  # an unpublished automation's due events are looked at again after this
ID_SCALE = 10**6


def by_id(ctx):
    """Every automation by id (a versioned cached kind)."""
    return cached.derived(KIND, "by-id", lambda docs: {d["id"]: d for d in docs}, ctx)


def enrolled_kind(automation_id):
    return f"enrolled#{int(automation_id)}"


def due_kind(contact_id):
    return f"due#{int(contact_id) % config.AUTOMATION_DUE_SHARDS}"


def due_id(moment):
    """A new due id: milliseconds of the due time, then six random digits."""
    return int(moment.timestamp() * 1000) * ID_SCALE + secrets.randbelow(ID_SCALE)


def due_id_floor(moment):
    """The smallest due id of that due time (for range queries)."""
    return int(moment.timestamp() * 1000) * ID_SCALE


def _now(ctx):
    return ctx.memo(cache_keys.NOW_DATETIME, lambda: clock.parse(ctx.now))


# --- membership ------------------------------------------------------------------------------------


def enroll(doc, automation, source, ctx):
    """Make the contact an active member (roots reached now). Coming back after leaving starts a new
    rotation from the roots when the automation allows restarts, else resumes: what ran stays done."""
    entries = doc.setdefault("automations", {})
    key = str(automation["id"])
    old = entries.get(key)
    if old and old["active"]:
        return False
    restart = bool(old) and bool(automation.get("allowRestart"))
    entry = {
        "dateAdded": ctx.now,
        "manuallyAdded": source == "manual",
        "manuallyRemoved": False,
        "active": True,
        "source": source,
        "rotation": (old["rotation"] + (1 if restart else 0)) if old else 1,
        "dateLastExited": (old or {}).get("dateLastExited"),
        "done": {} if restart or not old else old["done"],
        "waiting": {},
        "pending": {},
    }
    entries[key] = entry
    for root in graph.roots(automation):
        reach(entry, automation, root, ctx)
    return True


def leave(doc, automation_id, manual, ctx):
    """End the contact's membership; its scheduled and waiting events are cancelled. A removal by
    hand sticks: the sources do not add the contact back."""
    entry = (doc.get("automations") or {}).get(str(automation_id))
    if not entry or (not entry["active"] and not manual):
        return False
    entry.update(
        active=False,
        dateLastExited=ctx.now,
        pending={},
        waiting={},
        ready=[],
        manuallyRemoved=bool(manual) or entry.get("manuallyRemoved", False),
    )
    if manual:
        entry["manuallyAdded"] = False
    return True


def is_active(entry):
    return bool(entry) and entry.get("active") and not entry.get("manuallyRemoved")


# --- routing ---------------------------------------------------------------------------------------


def reach(entry, automation, event, ctx):
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


def schedule(entry, event_id, at, decision=None):
    """Add a pending event due at `at` (its due item is written with the contact)."""
    entry["pending"][str(due_id(at))] = {"event": event_id, "dueAt": clock.iso(at), "decision": decision}


def reach_children(entry, automation, event_id, path, ctx):
    for child in graph.children(automation, event_id, path):
        reach(entry, automation, child, ctx)


def _record(entry, event_id, status, ctx, reason=None):
    entry["done"][str(event_id)] = {"at": ctx.now, "status": status, "reason": reason}


def run_event(automation, event, status, ctx, reason=None):
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


def advance(doc, events, ctx):
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


def _sync_sources(doc, events, ctx):
    """Enter the automations whose source segments hold the contact or whose source forms it just
    submitted; leave those whose source segments no longer hold it (unless added another way).
    Entries of deleted automations are dropped. True when a membership changed."""
    automations = by_id(ctx)
    entries = doc.setdefault("automations", {})
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
        if is_active(entry):
            if entry["source"] == "list" and not in_list and automation.get("removeOnSegmentExit", True):
                moved |= leave(doc, automation["id"], False, ctx)
        elif not (entry and entry.get("manuallyRemoved")):
            source = "list" if in_list else "form" if forms & set(automation.get("forms") or []) else None
            moved |= bool(source) and enroll(doc, automation, source, ctx)
    return moved


def _decide(doc, events, ctx):
    """Take the yes path of waiting decisions that one of `events` satisfies; their timeline events."""
    decided = []
    automations = by_id(ctx)
    for key, entry in (doc.get("automations") or {}).items():
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


def _run_ready(doc, ctx, budget):
    """Run the ready events of every membership (at most `budget[0]` in all); their timeline events."""
    produced = []
    automations = by_id(ctx)
    for key, entry in list((doc.get("automations") or {}).items()):
        automation = automations.get(int(key))
        while is_active(entry) and entry.get("ready") and budget[0] > 0 and is_published(automation, ctx.now):
            event = graph.event(automation, entry["ready"].pop(0))
            if event is not None and str(event["id"]) not in entry["done"]:
                budget[0] -= 1
                produced += _run(doc, entry, automation, event, ctx)
    return produced


def _run(doc, entry, automation, event, ctx):
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


def complete(entry, automation, event, status, reason, ctx):
    """Record how an action went; on success its children are reached. Its timeline events."""
    _record(entry, event["id"], status, ctx, reason)
    if status == "ok" and is_active(entry):
        reach_children(entry, automation, event["id"], None, ctx)
    return [run_event(automation, event, status, ctx, reason)]


def _defer_ready(doc, ctx):
    """Ready events left over (budget spent, automation unpublished) become pending for the worker."""
    for key, entry in (doc.get("automations") or {}).items():
        left = entry.pop("ready", None) or []
        if not is_active(entry):
            continue
        paused = not is_published(by_id(ctx).get(int(key)) or {}, ctx.now)
        for event_id in left:
            schedule(entry, event_id, _now(ctx) + (PAUSE if paused else timedelta(0)))


def take_due(doc, due, ctx):
    """Move a pending event whose time has come to ready (a decision's no path: take it unless the
    yes path was taken). Returns (`gone` | `early` | `taken`, timeline events)."""
    for key, entry in (doc.get("automations") or {}).items():
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
            events = [run_event(automation, found, "no", ctx)] if found else []
        elif entry["done"].get(str(decision), {}).get("status") != "no":
            return "taken", []
    entry.setdefault("ready", []).append(pending["event"])
    return "taken", events


# --- what a contact write stores with the contact --------------------------------------------------


def _row(entry):
    if not is_active(entry):
        return None
    return {k: entry.get(k) for k in ("dateAdded", "manuallyAdded", "manuallyRemoved", "rotation", "source")}


def on_contact_write(change):
    """Subscriber to contact writes: advance the journeys with the change's events."""
    return [], (advance(change.doc, change.events, change.ctx) if change.doc is not None else [])


def on_membership_change(change):
    """Subscriber to contact writes (after segment membership): members and due rows of the journeys."""
    return changes(change.doc, change.existing, change.ctx)


def changes(doc, existing, ctx):
    """(derived items, timeline events) between the stored journeys and the new ones: members index
    rows, due items put or deleted, membership and scheduling events; `doc` None deletes them all."""
    old = (existing or {}).get("automations") or {}
    new = (doc or {}).get("automations") or {}
    contact_id = (doc or existing)["id"]
    automations = by_id(ctx)
    derived, events = [], []
    for key in sorted(set(old) | set(new), key=int):
        before, after = old.get(key) or {}, new.get(key) or {}
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


def _due_item(contact_id, key, entry, pending):
    return {
        "contact": contact_id,
        "automation": int(key),
        "event": pending["event"],
        "dueAt": pending["dueAt"],
        "rotation": entry["rotation"],
    }


def _membership_event(automation, entry):
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


def _scheduled_event(automation, pending, ctx):
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


def queue_targets(doc, existing, horizon):
    """[(contact id, due id, due at)] of the pending events this write added that fall due before
    `horizon` (the worker is told at once; later ones wait for the dispatch job)."""
    old = (existing or {}).get("automations") or {}
    found = []
    for key, entry in ((doc or {}).get("automations") or {}).items():
        before = (old.get(key) or {}).get("pending") or {}
        found += [
            (doc["id"], int(due), clock.parse(p["dueAt"]))
            for due, p in (entry.get("pending") or {}).items()
            if due not in before and clock.parse(p["dueAt"]) <= horizon
        ]
    return found


# --- read side -------------------------------------------------------------------------------------


def contact_automations(doc, ctx):
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


def on_trigger(doc, item, ctx):
    """A point trigger's `campaign.changecampaign` event (a subscriber action)."""
    change_automations(doc, item.get("properties") or {}, ctx)
    return True


def change_automations(doc, props, ctx, this=None):
    """Take the contact out of the automations of `removeFrom` and into those of `addTo` (ids;
    `this` is the automation running the action)."""
    known = by_id(ctx)
    for target in a.ids_in(props.get("removeFrom"), keep=("this",)):
        leave(doc, this if target == "this" else target, False, ctx)
    for target in a.ids_in(props.get("addTo"), keep=("this",)):
        found = known.get(this if target == "this" else target)
        if found is not None:
            enroll(doc, found, "automation", ctx)


def _jump(props, doc, automation, ctx):
    target = graph.event(automation, a.id_or_none(props.get("jumpToEvent")))
    if target is None:
        raise a.Invalid("The event to jump to is not in this automation.")
    reach(doc["automations"][str(automation["id"])], automation, target, ctx)


JOURNEY_ACTIONS = {  # the actions that move the contact between automations and events
    "campaign.addremovelead": lambda p, d, auto, c: change_automations(d, p, c, this=auto["id"]),
    "campaign.jump_to_event": _jump,
}
