"""An automation's event graph (plain Python): validation on save and navigation while running.

Events point to their parent (`parent` holds the parent's id); a decision or a condition sends
its children down a `yes` or `no` path (`decisionPath`); an action's children follow it. Roots
(no parent) start when a contact enters the automation.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, tzinfo

from dateutil.relativedelta import relativedelta

from chalicelib.domain.automations import send_windows
from chalicelib.domain.automations.catalog import AUTOMATION_EVENT_TYPES
from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.types import JSON, Doc

UNITS = {"i": "minutes", "h": "hours", "d": "days", "m": "months", "y": "years"}
BRANCHING = ("decision", "condition")


def problems(events: Sequence[Doc], name_of: Callable[[Doc], str]) -> dict[str, list[str]]:
    """{`<name_of(event)>[key]`: [message]}: unknown types, branches without a yes/no path, timing,
    cycles. Parents may still be temporary ids (`new1`)."""
    errors = {}
    by_id = {_key(e.get("id")): e for e in events if e.get("id") is not None}
    for event in events:
        key = name_of(event)
        allowed = AUTOMATION_EVENT_TYPES.get(event.get("eventType"), frozenset())
        if event.get("eventType") and event.get("type") and event["type"] not in allowed:
            errors[f"{key}[type]"] = [
                f"Unknown {event['eventType']} type '{event['type']}' in event "
                f"'{event.get('name') or event.get('id')}'."
            ]
        parent = by_id.get(_key(event.get("parent")))
        if parent and parent.get("eventType") in BRANCHING and event.get("decisionPath") not in ("yes", "no"):
            errors[f"{key}[decisionPath]"] = [
                f"Event '{event.get('name') or event.get('id')}' follows the "
                f"{parent['eventType']} '{parent.get('name')}': its decisionPath "
                "should be yes or no."
            ]
        errors.update(_timing_problems(event, key))
        if _in_cycle(event, by_id):
            errors[f"{key}[parent]"] = [f"Event '{event.get('name') or event.get('id')}' is its own ancestor."]
    return errors


def _timing_problems(event: Doc, key: str) -> dict[str, list[str]]:
    mode = event.get("triggerMode") or "immediate"
    if event.get("eventType") == "decision" or mode == "immediate":
        return {}
    if mode == "date" and not event.get("triggerDate"):
        return {f"{key}[triggerDate]": ["A date is required when triggerMode is date."]}
    if mode == "interval" and (event.get("triggerInterval") is None or event["triggerInterval"] < 0):
        return {f"{key}[triggerInterval]": ["A positive interval is required when triggerMode is interval."]}
    return {}


def _in_cycle(event: Doc, by_id: Mapping[str | None, Doc]) -> bool:
    seen, current = set(), by_id.get(_key(event.get("parent")))
    while current is not None and id(current) not in seen:
        if current is event:
            return True
        seen.add(id(current))
        current = by_id.get(_key(current.get("parent")))
    return False


def _key(ref: JSON) -> str | None:
    return None if ref is None else str(ref)


def roots(automation: Doc) -> list[Doc]:
    """The events that start when a contact enters, in order."""
    return _ordered(e for e in automation.get("events") or [] if e.get("parent") is None)


def children(automation: Doc, event_id: JSON, path: str | None = None) -> list[Doc]:
    """The events following `event_id`; with `path` (`yes`/`no`) only those on that path."""
    return _ordered(
        e
        for e in automation.get("events") or []
        if e.get("parent") == event_id and (path is None or (e.get("decisionPath") or "yes") == path)
    )


def event(automation: Doc, event_id: JSON) -> Doc | None:
    """The event with that id, or None."""
    return next((e for e in automation.get("events") or [] if e["id"] == event_id), None)


def _ordered(events: Iterable[Doc]) -> list[Doc]:
    return sorted(events, key=lambda e: (e.get("order") or 0, e["id"]))


def due_at(event: Doc, reached: datetime, zone: tzinfo) -> datetime:
    """When an action or condition reached at `reached` (a datetime) runs: at once, after its
    interval (then at the first moment its send window allows, on the clock of `zone`, the contact's),
    or at its date (at once when that date has passed)."""
    mode = event.get("triggerMode") or "immediate"
    if mode == "interval":
        unit = UNITS.get(event.get("triggerIntervalUnit") or "d", "days")
        at = reached + relativedelta(**{unit: int(event.get("triggerInterval") or 0)})
        found = send_windows.window(event)
        return send_windows.earliest(at, found, zone) if found else at
    if mode == "date" and event.get("triggerDate"):
        return max(reached, clock.parse(event["triggerDate"]))
    return reached
