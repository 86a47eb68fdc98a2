"""Segment membership, kept current on every contact write.

A contact document holds its memberships: `segments` maps a segment id to `{dateAdded,
manuallyAdded, manuallyRemoved}`. A contact belongs to a segment when the segment's filters
match it or it was added by hand, unless it was removed by hand (that row stays, so the
filters cannot add it back). Each row is mirrored by an index item `members#<segment>` /
<contact id>, put or deleted in the transaction that writes the contact, so a segment's
members are one Query away and never disagree with the contact. A contact joining a segment also
writes a join row `joins#<segment>` / <join id> (`join_id`: the second of the change, then the
contact id), so what joined since a moment is one range Query (broadcasts read it for later
joiners, domain/messaging/broadcasts.py); the hourly `prune_joins` deletes rows older than JOIN_DAYS.
"""

from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from chalicelib.domain.contacts import erasure
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.kernel import cache_keys, cached, clock, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.references import referenced
from chalicelib.domain.kernel.subscribers import Change, Command
from chalicelib.domain.kernel.types import Doc, Event, Events
from chalicelib.domain.segments import filters
from chalicelib.store import port as store
from chalicelib.store.port import Derived, EntityId

KIND = "segment"
GROUP_KIND = "pointgroup"  # Mautic 5's point groups (domain/points), whose scores filters read
DNC_FLAGS: dict[tuple[Any, Any], str] = {  # (channel, reason) -> the special field
    ("email", 1): "dnc_unsubscribed",
    ("email", 2): "dnc_bounced",
    ("email", 3): "dnc_manual",
    ("sms", 1): "dnc_unsubscribed_sms",
    ("sms", 2): "dnc_bounced_sms",
}
JOIN_DAYS = 30  # how long a join row lives: longer than any pause of the broadcast job
JOIN_SHIFT = 32  # a join id: the epoch second, then 32 bits of contact id
UTM_KEYS = {
    "utm_campaign": "utmCampaign",
    "utm_content": "utmContent",
    "utm_medium": "utmMedium",
    "utm_source": "utmSource",
    "utm_term": "utmTerm",
}


def members_kind(segment_id: EntityId) -> str:
    """The members index of a segment: `members#<segment id>` / contact id."""
    return f"members#{int(segment_id)}"


def joins_kind(segment_id: EntityId) -> str:
    """The join rows of a segment: `joins#<segment id>` / join id (time ordered)."""
    return f"joins#{int(segment_id)}"


def join_id(moment: str, contact_id: int = 0) -> int:
    """The id of a join row: the change's epoch second, then the contact id (ids sort by time)."""
    return (int(clock.parse(moment).timestamp()) << JOIN_SHIFT) | (int(contact_id) & ((1 << JOIN_SHIFT) - 1))


def _join_row(segment_key: str, contact_id: int, now: str) -> Derived:
    row_id = join_id(now, contact_id)
    return (joins_kind(segment_key), row_id, {"id": row_id, "contact": contact_id, "joinedAt": now})


def forget_joins(job: Doc) -> None:
    """Erasure step (domain/contacts/erasure.py): the contact's join rows, found through its
    `segment_membership` events (each names the segment and the moment of the join): a DeleteItem each."""
    for event in erasure.events(job, "segment_membership"):
        details = event.get("details") or {}
        if details.get("action") == "added" and details.get("segmentId") and details.get("dateAdded"):
            store.remove(joins_kind(details["segmentId"]), join_id(details["dateAdded"], job["id"]))


def prune_joins() -> None:
    """Delete the join rows older than JOIN_DAYS (hourly): a range Query per segment from its oldest
    row, and a DeleteItem per expired row, so the cost follows the joins, not the members."""
    end = join_id(clock.iso(clock.now() - timedelta(days=JOIN_DAYS))) - 1
    for segment in store.iterate(KIND):
        for row in list(store.iterate(joins_kind(segment["id"]), between=(0, end))):
            store.remove(joins_kind(segment["id"]), row["id"])


def is_member(entry: Mapping[str, Any] | None) -> bool:
    """Whether a membership row counts (present, and not removed by hand)."""
    return bool(entry and not entry.get("manuallyRemoved"))


def mark(doc: Contact, segment_id: EntityId, added: bool, now: str) -> None:
    """Record on a contact document that it was added to (or removed from) a segment by hand."""
    entries = doc.setdefault("segments", {})
    old = entries.get(str(segment_id))
    kept = is_member(old) and added
    entries[str(segment_id)] = {
        "dateAdded": old["dateAdded"] if kept and old else now,
        "manuallyAdded": bool(added),
        "manuallyRemoved": not added,
    }


def _evaluation_order(docs: Iterable[Doc]) -> list[tuple[Doc, filters.Matcher]]:
    """Published segments with their matchers, each after the segments its filters refer to."""
    compiled = {
        d["id"]: (d, filters.compile_filters(d.get("filters") or [])) for d in docs if d.get("isPublished", True)
    }
    ordered, seen = [], set()

    def visit(segment_id: int, path: frozenset[int]) -> None:
        if segment_id in seen or segment_id in path or segment_id not in compiled:
            return
        for needed in sorted(compiled[segment_id][1].segments):
            visit(needed, path | {segment_id})
        seen.add(segment_id)
        ordered.append(compiled[segment_id])

    for segment_id in compiled:
        visit(segment_id, frozenset())
    return ordered


def published(ctx: Context) -> list[tuple[Doc, filters.Matcher]]:
    """[(segment, matcher)] of the published segments, in evaluation order (cached per version)."""
    return cached.derived(KIND, "evaluation", _evaluation_order, ctx)


def segments_by_id(ctx: Context) -> dict[int, Doc]:
    """Every segment (published or not) by id."""
    return cached.derived(KIND, "by-id", lambda docs: {d["id"]: d for d in docs}, ctx)


def segment_id(alias: str, ctx: Context) -> int | None:
    """The id of the segment with this alias (case-insensitive), or None."""
    by_alias = cached.derived(
        KIND, "by-alias", lambda docs: {(d.get("alias") or "").lower(): d["id"] for d in docs}, ctx
    )
    return by_alias.get(alias.strip().lower())


def common_segment_ids(value: str, ctx: Context) -> list[int] | None:
    """The segments a `common:<aliasA>+<aliasB>` search names, by id; None when it names none or an
    unknown alias (nobody is in all of them)."""
    ids = [segment_id(alias, ctx) for alias in value.split("+") if alias.strip()]
    return None if not ids or None in ids else [i for i in ids if i is not None]


def in_all(doc: Contact, segment_ids: Iterable[EntityId] | None) -> bool:
    """Whether the contact document is a member of every segment listed (None: of none)."""
    entries = doc.get("segments") or {}
    return segment_ids is not None and all(is_member(entries.get(str(i))) for i in segment_ids)


def members_of_all(segment_ids: Sequence[EntityId] | None) -> list[int]:
    """Ids of the contacts in every segment listed: their members indexes, intersected."""
    if not segment_ids:
        return []
    found = [{row["id"] for row in store.iterate(members_kind(i)) if is_member(row)} for i in segment_ids]
    return sorted(set.intersection(*found))


def _segment_match(doc: Contact, value: str, ctx: Context) -> bool:
    return is_member((doc.get("segments") or {}).get(str(segment_id(value, ctx))))


def _segment_members(value: str, ctx: Context) -> list[int]:
    found = segment_id(value, ctx)
    return [] if found is None else [row["id"] for row in store.iterate(members_kind(found)) if is_member(row)]


# Contact search commands (the subscriber table adds them to contacts): `segment:<alias>` from the
# segment's members index, `common:<a>+<b>` from its segments' members indexes, intersected.
SEGMENT_COMMAND = Command(_segment_match, _segment_members)
COMMON_COMMAND = Command(
    lambda doc, value, ctx: in_all(doc, common_segment_ids(value, ctx)),
    lambda value, ctx: members_of_all(common_segment_ids(value, ctx)),
)


def subject(doc: Contact, ctx: Context, with_companies: bool) -> Doc:
    """The contact as the filter engine sees it: field values and the special fields."""
    values = doc.get("values") or {}
    lead = dict(
        values,
        id=doc.get("id"),
        points=values.get("points") or 0,
        owner_id=doc.get("owner"),
        stage=doc.get("stage"),
        date_added=doc.get("dateAdded"),
        date_modified=doc.get("dateModified"),
        date_identified=doc.get("dateIdentified"),
        last_active=doc.get("lastActive"),
        tags=doc.get("tags") or [],
        leadlist=[int(k) for k, entry in (doc.get("segments") or {}).items() if is_member(entry)],
    )
    lead.update({flag: False for flag in DNC_FLAGS.values()})
    for entry in doc.get("doNotContact") or []:
        flag = DNC_FLAGS.get((entry.get("channel"), entry.get("reason")))
        if flag:
            lead[flag] = True
    for key, name in UTM_KEYS.items():
        lead[key] = [tag.get(name) for tag in doc.get("utmtags") or [] if tag.get(name)]
    lead.update(_group_scores(doc, ctx))
    companies = []
    if with_companies and doc.get("companies"):
        found = referenced("company", [link["id"] for link in doc["companies"]], ctx)
        companies = [company.get("values") or {} for company in found.values()]
    return {"lead": lead, "companies": companies}


def group_field(group_id: EntityId) -> str:
    """The segment filter field of a point group's score (Mautic's `group_points_<id>`)."""
    return f"group_points_{int(group_id)}"


def _group_scores(doc: Contact, ctx: Context) -> dict[str, int]:
    """{`group_points_<id>`: score} of the contact's scores in the groups that exist: a contact without
    a score in a group has no value there, as Mautic's `point_group_contact_score` has no row."""
    scores = doc.get("groupScores") or {}
    if not scores:
        return {}
    known = {g["id"] for g in cached.documents(GROUP_KIND, ctx)}
    return {group_field(k): int(v or 0) for k, v in scores.items() if int(k) in known}


def evaluate(doc: Contact, ctx: Context) -> None:
    """Bring the contact document's filter-based memberships up to date (manual rows stay as they are)."""
    known = segments_by_id(ctx)
    entries = {k: v for k, v in (doc.get("segments") or {}).items() if int(k) in known}
    doc["segments"] = entries
    order = published(ctx)
    if not order:
        return
    view = subject(doc, ctx, any("company" in matcher.objects for _, matcher in order))
    now = ctx.memo(cache_keys.NOW_DATETIME, lambda: clock.parse(ctx.now))
    for segment, matcher in order:
        key = str(segment["id"])
        entry = entries.get(key)
        if entry and (entry.get("manuallyAdded") or entry.get("manuallyRemoved")):
            continue
        if matcher.matches(view, now):
            entries.setdefault(key, {"dateAdded": ctx.now, "manuallyAdded": False, "manuallyRemoved": False})
        elif entry:
            del entries[key]
        view["lead"]["leadlist"] = [int(k) for k, e in entries.items() if is_member(e)]


def on_contact_write(change: Change) -> tuple[list[Derived], Events]:
    """Subscriber to contact writes: the membership index rows and events of the change."""
    return changes(change.doc, change.existing, change.ctx)


def changes(doc: Contact | None, existing: Contact | None, ctx: Context) -> tuple[list[Derived], Events]:
    """(derived index items, timeline events) between the stored memberships and the new ones;
    `doc` None means the contact is deleted (its index items go)."""
    old: Mapping[str, Any] = (existing or {}).get("segments") or {}
    new: Mapping[str, Any] = (doc or {}).get("segments") or {}
    contact = doc or existing
    assert contact is not None  # a write has a document, a delete the one it removes
    contact_id = contact["id"]
    names = segments_by_id(ctx)
    derived: list[Derived] = []
    events: Events = []
    for key in sorted(set(old) | set(new), key=int):
        if old.get(key) == new.get(key):
            continue
        derived.append((members_kind(key), contact_id, new.get(key)))
        joined = is_member(new.get(key)) and not is_member(old.get(key))
        if doc is not None and joined:
            derived.append(_join_row(key, contact_id, ctx.now))
        if doc is not None and is_member(old.get(key)) != is_member(new.get(key)) and int(key) in names:
            events.append(_event(names[int(key)], new.get(key), old.get(key)))
    return derived, events


def _event(segment: Doc, entry: Mapping[str, Any] | None, old: Mapping[str, Any] | None) -> Event:
    added = is_member(entry)
    manual = bool((entry or {}).get("manuallyAdded") if added else (entry or {}).get("manuallyRemoved"))
    verb = "Added to" if added else "Removed from"
    return timeline.event(
        "segment_membership",
        f"{verb} segment {segment.get('name')}",
        {
            "segmentId": segment["id"],
            "segmentName": segment.get("name"),
            "segmentAlias": segment.get("alias"),
            "action": "added" if added else "removed",
            "manual": manual,
            "dateAdded": (entry or old or {}).get("dateAdded"),
        },
    )


def contact_segments(doc: Contact, ctx: Context) -> Doc:
    """`{"total", "lists": {id: {...}}}` of compat 1.8: the contact's segments, hand-removed ones excluded."""
    known = segments_by_id(ctx)
    lists = {}
    for key, entry in sorted((doc.get("segments") or {}).items(), key=lambda item: int(item[0])):
        segment = known.get(int(key))
        if segment and is_member(entry):
            lists[key] = {
                "id": segment["id"],
                "name": segment.get("name"),
                "alias": segment.get("alias"),
                "dateAdded": entry["dateAdded"],
                "manuallyAdded": bool(entry.get("manuallyAdded")),
                "manuallyRemoved": False,
            }
    return {"total": len(lists), "lists": lists}
