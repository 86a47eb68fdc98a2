"""Point triggers for the contacts already at their threshold (`triggerExistingLeads`), in the background.

Saving a published trigger with `triggerExistingLeads` queues a `trigger-plan` message on the
`segments` queue (the queue of passes over the contacts) when the save can make contacts due:
a new trigger, one just published or given the flag, a lower threshold, new events. The plan
splits the contact ids into ranges of BATCH and queues one `trigger-batch` message per range;
a batch gives each contact whose points (or score in the trigger's point group) reach the
trigger's current threshold the events it has
not had yet, in one revision-checked write per contact (re-read and redone when the contact
changed meanwhile). The contact's `point.gained` events record the events it had, so a
redelivered batch, or a second pass, changes nothing.
"""

import copy

from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import cached, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.points import group_scores, points_engine
from chalicelib.ports import queues
from chalicelib.store import port as store

QUEUE = "segments"
BATCH = 100  # contacts per batch message: one BatchGetItem; each due contact a timeline Query and a write


def _applies(doc: Doc, now: str) -> bool:
    return bool(doc.get("triggerExistingLeads")) and is_published(doc, now)


def needed(doc: Doc, existing: Doc | None, now: str) -> bool:
    """Whether a trigger save can make existing contacts due for its events."""
    if not _applies(doc, now):
        return False
    if existing is None or not _applies(existing, now):
        return True
    new_events = {e["id"] for e in doc.get("events") or []} - {e["id"] for e in existing.get("events") or []}
    return int(doc.get("points") or 0) < int(existing.get("points") or 0) or bool(new_events)


def enqueue(trigger_id: int) -> None:
    """Queue the plan of a trigger's pass over the existing contacts."""
    queues.send(QUEUE, [{"type": "trigger-plan", "trigger": trigger_id}])


def _current(trigger_id: int, ctx: Context) -> Doc | None:
    """The trigger as it is now, if it still applies to existing contacts."""
    found = next((t for t in cached.documents("trigger", ctx) if t["id"] == trigger_id), None)
    return found if found is not None and _applies(found, ctx.now) else None


def plan(trigger: int) -> None:
    """Split the contact ids into ranges and queue one batch message per range."""
    if _current(trigger, Context()) is None:
        return
    last = store.last_id("contact")
    queues.send(
        QUEUE,
        [
            {"type": "trigger-batch", "trigger": trigger, "first": first, "last": min(first + BATCH - 1, last)}
            for first in range(1, last + 1, BATCH)
        ],
    )


def batch(trigger: int, first: int, last: int) -> None:
    """Give the contacts with ids first..last at or above the threshold the events they have not had.

    The range is one BatchGetItem per 100 ids (a range Query would be one per contact shard), and
    the timelines of the contacts at the threshold are read together, one round trip per batch."""
    ctx = Context()
    current = _current(trigger, ctx)
    if current is None:
        return
    found = store.batch_get("contact", range(first, last + 1))
    contacts = [found[i] for i in sorted(found)]
    points_engine.read_histories([c for c in contacts if _due(c, current)], ctx)
    for contact in contacts:
        _give(contact, trigger, ctx)


def _due(contact: Doc, trigger: Doc) -> bool:
    """Whether the contact's points (or score in the trigger's group) reach the trigger's threshold."""
    return group_scores.score(contact, trigger.get("group")) >= int(trigger.get("points") or 0)


def _give(contact: Doc, trigger_id: int, ctx: Context) -> None:
    """One contact's write, when it is at or above the threshold and has events due."""
    docs = [contact]

    def attempt() -> None:
        existing = docs.pop() if docs else service.load(CONTACT, contact["id"])
        current = _current(trigger_id, ctx)
        if current is None or not _due(existing, current):
            return
        doc = copy.deepcopy(existing)
        events = points_engine.existing_contact(doc, current, ctx)
        if events:
            service.save_change(CONTACT, existing, doc, ctx, events, stamp=False)

    try:
        service.retrying(attempt, ctx)
    except NotFound:
        pass  # deleted meanwhile
