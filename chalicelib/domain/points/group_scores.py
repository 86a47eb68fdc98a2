"""A contact's point-group scores (Mautic 5 `GroupContactScore`), and the API operations on them.

The scores live on the contact document, `groupScores` = {group id: score} (hidden: Mautic's contact
serializer does not show them), so reading them is the contact's one GetItem and changing one is
the contact's write, with its `point.gained` timeline event (details name the `group`; `oldPoints`
and `newPoints` are then the group's score) in the same transaction. Point actions and triggers
that name a group score and fire on it through the points engine (domain/points/points_engine.py).
"""

import copy
from collections.abc import Iterable

from chalicelib.domain.contacts import contact_actions, contacts
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import cache_keys, cached, service, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.types import JSON, Doc, Event
from chalicelib.store.port import EntityId

OPERATORS = dict(contact_actions.OPERATORS, set=lambda old, value: value)
GROUP_KEYS = ("id", "name", "description")  # a group as a score shows it (Mautic's pointGroupDetails)


def groups(ctx: Context) -> dict[int, Doc]:
    """{id: group} of every point group (a cached kind: no read on most requests)."""
    return ctx.memo(cache_keys.POINT_GROUPS, lambda: {g["id"]: g for g in cached.documents("pointgroup", ctx)})


def group(group_id: JSON, ctx: Context) -> Doc:
    """The group with that id, or NotFound."""
    try:
        found = groups(ctx).get(a.as_int(group_id))
    except a.Invalid:
        found = None
    if found is None:
        raise NotFound("Point group not found.")
    return found


def score(doc: Contact | None, group_id: EntityId | None = None) -> int:
    """The contact document's score in a group (0 without one); its points for `group_id` None."""
    if group_id is None:
        return contacts.points(doc)
    return int(((doc or {}).get("groupScores") or {}).get(str(group_id)) or 0)


def shown(doc: Contact, found: Doc) -> Doc | None:
    """`{"score", "group"}` of a contact's score in a group, or None when it has none."""
    if str(found["id"]) not in (doc.get("groupScores") or {}):
        return None
    return {"score": score(doc, found["id"]), "group": {key: found.get(key) for key in GROUP_KEYS}}


def adjust(
    doc: Contact, found: Doc, operator: str, value: int, label: str | None, details: Doc, ctx: Context
) -> Event | None:
    """Apply `operator` with `value` to the contact document's score in the group `found` (the score
    exists from then on, 0 at first; scores of deleted groups go). The `point.gained` event, or None
    when the score stayed as it was."""
    known = groups(ctx)
    kept = {k: v for k, v in (doc.get("groupScores") or {}).items() if int(k) in known}
    old = int(kept.get(str(found["id"])) or 0)
    new = old if operator == "divide" and value == 0 else OPERATORS[operator](old, value)
    doc["groupScores"] = dict(kept, **{str(found["id"]): new})
    if new == old:
        return None
    return timeline.event(
        "point.gained",
        label,
        dict(
            details,
            group={"id": found["id"], "name": found.get("name")},
            delta=new - old,
            operator=operator,
            oldPoints=old,
            newPoints=new,
        ),
    )


def previous(events: Iterable[Event]) -> dict[int, int]:
    """{group id: score before the change} of the groups whose `point.gained` events are in `events`."""
    before: dict[int, int] = {}
    for event in events:
        group_id = ((event.get("details") or {}).get("group") or {}).get("id")
        if event["event"] == "point.gained" and group_id is not None:
            before.setdefault(group_id, int(event["details"].get("oldPoints") or 0))
    return before


def of_contact(contact_id: EntityId, ctx: Context) -> Doc:
    """`{"total", "groupScores": [{"score", "group"}]}`: the contact's scores, in group id order."""
    doc = service.load(CONTACT, contact_id)
    rows = [row for row in (shown(doc, g) for _, g in sorted(groups(ctx).items())) if row is not None]
    return {"total": len(rows), "groupScores": rows}


def one(contact_id: EntityId, group_id: JSON, ctx: Context) -> Doc:
    """`{"groupScore": {"score", "group"} or None}`."""
    doc = service.load(CONTACT, contact_id)
    return {"groupScore": shown(doc, group(group_id, ctx))}


def change(contact_id: EntityId, group_id: JSON, operator: str, value: JSON, payload: JSON, ctx: Context) -> Doc:
    """plus/minus/times/divide/set the contact's score in a group, as `POST .../{operator}/{value}`
    (404 for an unknown contact or group, then 400 for a bad operator or value); `{"groupScore"}`."""
    existing = service.load(CONTACT, contact_id)
    found = group(group_id, ctx)
    number = contact_actions.operand(operator, value, OPERATORS, "value")
    doc = copy.deepcopy(existing)
    label = _param(payload, "eventName") or "Manual change"
    event = adjust(
        doc, found, operator, number, label, {"action": _param(payload, "actionName") or "API", "type": "API"}, ctx
    )
    if doc.get("groupScores") != existing.get("groupScores"):
        doc = service.save_change(CONTACT, existing, doc, ctx, [event] if event else [])
    return {"groupScore": shown(doc, found)}


def _param(payload: JSON, name: str) -> str | None:
    value = payload.get(name) if isinstance(payload, dict) else None
    return str(value) if value not in (None, "") else None
