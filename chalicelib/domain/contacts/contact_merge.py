"""Two contacts that turn out to be one person become one (compat 1.5): an edit, or a form
submission, gives a contact the unique value (email) that another contact holds.

As in Mautic, the older contact survives with its id and takes the other's data: the values of
the contact just edited win where they are not blank, the other fills the blanks; points add up;
the latest `lastActive` and the earliest `dateIdentified` stay; IP addresses, tags, UTM records,
do-not-contact entries, companies, segment and automation memberships are joined (the
survivor's own entry wins where both have one); the owner is the survivor's, else the other's.
The survivor is stored and the other deleted in one transaction, both checked against the
revisions that were read. A `merged` record keeps where the deleted id went (tracking cookies,
sends and links that still name it), and a `merging` item, written in that same transaction,
stands for the work left: moving the deleted contact's timeline to the survivor. A worker does
that move, and re-points the deleted contact's notes; a minute job queues it again if its message was lost.
"""

import copy
from collections.abc import Callable, Hashable, Mapping
from datetime import timedelta
from typing import Any

from chalicelib.domain.contacts import notes
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.kernel import clock, registry, service, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.resources import Merge, Resource
from chalicelib.domain.kernel.types import Doc, Events
from chalicelib.ports import queues
from chalicelib.store import port as store
from chalicelib.store.port import EntityId

MERGED = "merged"
MOVING = "merging"
QUEUE = "segments"
LOST_AFTER = timedelta(minutes=5)
JOINED = {
    "ipAddresses": lambda e: e.get("ipAddress"),
    "tags": lambda t: str(t.get("tag")).lower(),
    "utmtags": lambda u: u.get("id"),
    "doNotContact": lambda d: d.get("channel"),
    "companies": lambda c: c.get("id"),
    "devices": lambda d: d.get("id"),
}
KEPT = ("owner", "stage", "frequencyRules", "preferredProfileImage")


def merge(resource: Resource, merge: Merge) -> Doc:
    """A `Merge`: its `doc` (the edited `existing`) claims a unique value its `other` holds: store the
    two as one and return the survivor (`build` and `items` as for `service.create`, applied to the
    survivor)."""
    doc, existing, other, ctx = merge.doc, merge.existing, merge.other, merge.ctx
    edited_wins = _older(existing, other)
    winner, loser = (existing, other) if edited_wins else (other, existing)
    base, folded = (doc, other) if edited_wins else (copy.deepcopy(other), doc)
    survivor = combine(base, folded, newest=doc)
    label = f"Merged with contact {loser['id']}"
    events = (
        list(merge.events)
        + [timeline.event("lead.merged", label, {"mergedId": loser["id"]})]
        + _points_gained(survivor, folded, label)
    )
    events += merge.build(survivor) if merge.build else []
    record = {"winner": survivor["id"], "dateAdded": ctx.now}
    marks = [(MERGED, loser["id"], record), (MOVING, loser["id"], record)]
    stored = service.save_merge(resource, winner, survivor, loser, ctx, events, marks + list(merge.items))
    _queue_move(loser["id"], survivor["id"])
    return stored


def _points_gained(survivor: Contact, folded: Contact, label: str) -> Events:
    """The `point.gained` event of the points the other contact brings (point triggers read it)."""
    delta = int((folded.get("values") or {}).get("points") or 0)
    new = survivor["values"]["points"]
    return (
        [
            timeline.event(
                "point.gained", label, {"action": "Merge", "delta": delta, "oldPoints": new - delta, "newPoints": new}
            )
        ]
        if delta
        else []
    )


def _older(one: Contact, two: Contact) -> bool:
    """Whether `one` was created before `two` (ids break ties)."""
    return (one.get("dateAdded") or "", one["id"]) <= (two.get("dateAdded") or "", two["id"])


def combine(base: Doc, other: Doc, newest: Doc) -> Doc:
    """The survivor's document: `base` (the survivor) with `other` folded in; `newest` (one of the
    two) is the contact whose non-blank values win."""
    doc = copy.deepcopy(base)
    older = other if newest is base else base
    values = dict(older.get("values") or {})
    values.update({k: v for k, v in (newest.get("values") or {}).items() if v not in (None, "", [])})
    values["points"] = int((base.get("values") or {}).get("points") or 0) + int(
        (other.get("values") or {}).get("points") or 0
    )
    doc["values"] = values
    doc["groupScores"] = _summed(base.get("groupScores") or {}, other.get("groupScores") or {})
    _times(doc, base, other)
    for name, key in JOINED.items():
        doc[name] = _joined(base.get(name) or [], other.get(name) or [], key)
    _one_primary(doc["companies"])
    for name in ("segments", "automations"):
        doc[name] = {**(other.get(name) or {}), **(base.get(name) or {})}
    for name in KEPT:
        doc[name] = base.get(name) or other.get(name)
    return doc


def _summed(first: Mapping[str, int], second: Mapping[str, int]) -> dict[str, int]:
    """Point-group scores of two contacts added up, group by group."""
    return {k: int(first.get(k) or 0) + int(second.get(k) or 0) for k in {**second, **first}}


def _times(doc: Doc, base: Doc, other: Doc) -> None:
    active = [d["lastActive"] for d in (base, other) if d.get("lastActive")]
    identified = [d["dateIdentified"] for d in (base, other) if d.get("dateIdentified")]
    doc["lastActive"] = max(active, key=clock.parse) if active else None
    doc["values"]["last_active"] = (
        clock.parse(doc["lastActive"]).strftime("%Y-%m-%d %H:%M:%S") if doc["lastActive"] else None
    )
    doc["dateIdentified"] = min(identified, key=clock.parse) if identified else None


def _joined(first: list[Any], second: list[Any], key: Callable[[Any], Hashable]) -> list[Any]:
    seen = {key(item) for item in first}
    return [copy.deepcopy(item) for item in first] + [copy.deepcopy(item) for item in second if key(item) not in seen]


def _one_primary(links: list[Any]) -> None:
    primary = [link for link in links if link.get("isPrimary")]
    for link in primary[1:]:
        link["isPrimary"] = False
    if links and not primary:
        links[0]["isPrimary"] = True


def current_id(contact_id: EntityId) -> int | None:
    """The id a contact id now lives under: itself, or the survivor of the merges it went through
    (None when there is no such contact)."""
    for _ in range(10):
        if store.get("contact", contact_id) is not None:
            return int(contact_id)
        record = store.get(MERGED, contact_id)
        if record is None:
            return None
        contact_id = record["winner"]
    return None


def load(resource: Resource, contact_id: EntityId) -> Doc:
    """The stored contact of an id, following merges (NotFound when there is none)."""
    try:
        return service.load(resource, contact_id)
    except NotFound:
        survivor = current_id(contact_id)
        if survivor is None:
            raise
        return service.load(resource, survivor)


def tracked(resource: Resource, contact_id: EntityId | None) -> Doc | None:
    """The contact a tracking cookie names, following merges; None when there is none."""
    try:
        return load(resource, contact_id) if contact_id else None
    except NotFound:
        return None


def _queue_move(loser_id: EntityId, winner_id: EntityId) -> None:
    queues.send(QUEUE, [{"type": "merge", "loser": loser_id, "winner": winner_id}])


def move(loser: EntityId, winner: EntityId) -> None:
    """Move a merged contact's timeline to its survivor (the event ids stay: they are unique across
    contacts, so a repeated move puts the same events again), then drop the pending item."""
    survivor = current_id(winner) or winner
    for event in store.iterate(timeline.kind(loser)):
        store.put(timeline.kind(survivor), timeline.in_feed(dict(event, contactId=survivor)))
        store.remove(timeline.kind(loser), event["id"])
    _move_notes(loser, survivor)
    store.remove(MOVING, loser)


def _move_notes(loser: EntityId, survivor: EntityId) -> None:
    """Notes about the merged contact become notes about the survivor (their index follows)."""
    note_resource = registry.resource("note")
    ctx = Context()
    for row in list(store.iterate(notes.index_kind(loser))):
        note = store.get(note_resource.kind, row["id"])
        if note is not None and note.get("lead") == int(loser):
            service.save_change(note_resource, note, dict(note, lead=survivor), ctx, stamp=False)


def resend_lost() -> None:
    """Queue again the moves still pending well after their merge (a lost message)."""
    limit = clock.now() - LOST_AFTER
    for item in store.iterate(MOVING):
        if clock.parse(item["dateAdded"]) < limit:
            _queue_move(item["id"], item["winner"])
