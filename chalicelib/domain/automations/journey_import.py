"""A contact's automation journeys as a move-in brings them (`POST /movein/journeys/<contact>`,
administrator-only, docs/move-in.md): its memberships with what already ran and what is scheduled,
stored in the contact's one write without running, sending or scheduling anything anew, so a moved
contact does not get the welcome email again and a scheduled event fires at its original time.

Decisions the contact waits at are not in Mautic's log (a decision is logged once decided): a
decision whose parent ran on its path (or a root) waits from then, and its no path is scheduled
from then, as `journey_routing.reach` would have done. An entry of an automation published here is
kept as it is (its journeys run here now); one of an unpublished copy is replaced (a delta run).
"""

import copy
from datetime import datetime, tzinfo

from chalicelib.domain.automations import automation_graph as graph
from chalicelib.domain.automations import journey_entry, journey_routing
from chalicelib.domain.automations.declarations import AUTOMATION
from chalicelib.domain.automations.journey_entry import DoneEvent, JourneyEntry
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import clock, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound, invalid
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.store.port import EntityId

STATUSES = frozenset({"ok", "failed", "running", "yes", "no"})
MAX_AUTOMATIONS = 100


def store(contact_id: EntityId, payload: JSON, ctx: Context) -> Doc:
    """Set the contact's journeys in the automations `payload` names (`{"automations": [...]}`, each
    `{automation, dateAdded, manuallyAdded, rotation, done: [{event, at, status, reason}], pending:
    [{event, dueAt, noPath}]}`); `{"contact", "stored": [automation ids], "kept": [...]}`. 400 naming
    the field, nothing written; 404 for an unknown contact."""
    existing = service.load(CONTACT, contact_id)
    items = payload.get("automations") if isinstance(payload, dict) else None
    if not isinstance(items, list) or len(items) > MAX_AUTOMATIONS:
        raise invalid("automations", f"automations is a list of at most {MAX_AUTOMATIONS} journeys")
    doc = copy.deepcopy(existing)
    stored, kept = [], []
    for index, item in enumerate(items):
        automation = _automation(item, index)
        key = str(automation["id"])
        if is_published(automation, ctx.now) and key in journey_entry.entries(doc):
            kept.append(automation["id"])
            continue
        journey_entry.kept_entries(doc)[key] = _entry(item, automation, index, journey_routing.zone(doc), ctx)
        stored.append(automation["id"])
    if stored:
        service.save_change(CONTACT, existing, doc, ctx)
    return {"contact": existing["id"], "stored": stored, "kept": kept}


def _automation(item: JSON, index: int) -> Doc:
    """The automation a journey names; 400 when it names none that exists."""
    field = f"automations[{index}][automation]"
    if not isinstance(item, dict) or not isinstance(item.get("automation"), int):
        raise invalid(field, "each journey names its automation by id")
    try:
        return service.load(AUTOMATION, item["automation"])
    except NotFound:
        raise invalid(field, "no such automation") from None


def _entry(item: Doc, automation: Doc, index: int, zone: tzinfo, ctx: Context) -> JourneyEntry:
    """The journey entry of one membership, its waiting decisions reconstructed."""
    where = f"automations[{index}]"
    rotation = 1 if item.get("rotation") is None else item["rotation"]
    if not isinstance(rotation, int) or isinstance(rotation, bool) or rotation < 1:
        raise invalid(f"{where}[rotation]", "rotation is a positive integer")
    entry: JourneyEntry = {
        "dateAdded": _moment(item.get("dateAdded"), f"{where}[dateAdded]"),
        "manuallyAdded": bool(item.get("manuallyAdded")),
        "manuallyRemoved": False,
        "active": True,
        "source": _source(item, automation),
        "rotation": rotation,
        "dateLastExited": None,
        "done": {},
        "waiting": {},
        "pending": {},
    }
    for at, raw in enumerate(_list(item.get("done"), f"{where}[done]")):
        event = _event(automation, raw, f"{where}[done][{at}]")
        entry["done"][str(event["id"])] = _done(raw, f"{where}[done][{at}]")
    for at, raw in enumerate(_list(item.get("pending"), f"{where}[pending]")):
        event = _event(automation, raw, f"{where}[pending][{at}]")
        due = clock.parse(_moment(raw.get("dueAt"), f"{where}[pending][{at}][dueAt]"))
        decision = event.get("parent") if raw.get("noPath") else None
        journey_routing.schedule(entry, event["id"], due, decision=decision, slot=journey_routing.next_run(due, ctx))
    _wait(entry, automation, zone, ctx)
    return entry


def _source(item: Doc, automation: Doc) -> str:
    """How the contact entered: by hand, else by the automation's segments or forms."""
    if item.get("manuallyAdded") or not (automation.get("lists") or automation.get("forms")):
        return "manual"
    return "list" if automation.get("lists") else "form"


def _wait(entry: JourneyEntry, automation: Doc, zone: tzinfo, ctx: Context) -> None:
    """The decisions the contact reached and has not decided: waiting since their parent ran (or the
    contact entered), their no path scheduled from then unless already done or scheduled."""
    pending = {p["event"] for p in entry["pending"].values()}
    for decision in automation.get("events") or []:
        key = str(decision["id"])
        reached = _reached(entry, automation, decision)
        if decision.get("eventType") != "decision" or key in entry["done"] or reached is None:
            continue
        if _went_no(entry, automation, decision):
            continue
        entry["waiting"][key] = reached
        for child in graph.children(automation, decision["id"], "no"):
            if str(child["id"]) not in entry["done"] and child["id"] not in pending:
                due = graph.due_at(child, clock.parse(reached), zone)
                journey_routing.schedule(
                    entry, child["id"], due, decision=decision["id"], slot=journey_routing.next_run(due, ctx)
                )


def _went_no(entry: JourneyEntry, automation: Doc, decision: Doc) -> bool:
    """Mautic logs no decision whose no path was taken, only its children (`nonActionPathTaken`): a
    no-path child that ran closes the decision the no way, at that time."""
    no_path = graph.children(automation, decision["id"], "no")
    ran = [entry["done"][str(c["id"])]["at"] for c in no_path if str(c["id"]) in entry["done"]]
    if not ran:
        return False
    entry["done"][str(decision["id"])] = {"at": min(ran), "status": "no", "reason": None}
    return True


def _reached(entry: JourneyEntry, automation: Doc, event: Doc) -> str | None:
    """When the contact reached `event`: its entry for a root, its parent's run when that ran on
    the event's path; None when it has not reached it."""
    parent = event.get("parent")
    if parent is None:
        return entry["dateAdded"]
    done = entry["done"].get(str(parent))
    if done is None or done["status"] in ("failed", "running"):
        return None
    path = event.get("decisionPath")
    if done["status"] in ("yes", "no") and (path or "yes") != done["status"]:
        return None
    return done["at"]


def _list(value: JSON, field: str) -> list[Doc]:
    """A list of objects (null: empty); 400 naming `field` otherwise."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise invalid(field, "a list of objects")
    return value


def _event(automation: Doc, raw: Doc, field: str) -> Doc:
    """The automation's event a log row names; 400 when it is not one of its events."""
    found = graph.event(automation, raw.get("event"))
    if found is None:
        raise invalid(f"{field}[event]", "not an event of this automation")
    return found


def _done(raw: Doc, field: str) -> DoneEvent:
    """A run that happened: when, how (ok, failed, running, yes, no) and why."""
    status = raw.get("status") or "ok"
    if status not in STATUSES:
        raise invalid(f"{field}[status]", f"status is one of {', '.join(sorted(STATUSES))}")
    reason = raw.get("reason")
    return {"at": _moment(raw.get("at"), f"{field}[at]"), "status": status, "reason": str(reason) if reason else None}


def _moment(value: JSON, field: str) -> str:
    """A date as this service stores it; 400 naming `field` for anything else."""
    try:
        parsed: datetime = clock.parse(value)
    except (ValueError, TypeError, OverflowError):
        raise invalid(field, "This value is not a valid date.") from None
    return clock.iso(parsed)
