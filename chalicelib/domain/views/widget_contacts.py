"""The data of Mautic's contact and segment widgets that are no time chart: anonymous vs
identified contacts, created contacts, top segments, top contact creators and owners, the lifecycle
(a column per segment, its stages and devices bars from `widget_lifecycle.py`), segment build
times (the last builds `segments/rebuilds.py` keeps) and the map (`{height, data: {country code:
contacts}}`). Each reads the contacts or segments the caller may view, or the segment membership
events of segments it may view."""

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from chalicelib.domain.kernel import access, registry
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import invalid
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging.stats_tables import db_value
from chalicelib.domain.segments import rebuilds
from chalicelib.domain.views import widget_filters, widget_lifecycle
from chalicelib.domain.views.time_range import Range
from chalicelib.domain.views.widget_base import (
    Build,
    _contact_name,
    _created_contacts,
    _detail,
    _docs,
    _link,
    _of,
    _top,
    _visible_docs,
    events_in,
    guarded,
    pie,
    table,
    visible_ids,
)
from chalicelib.domain.views.widget_filters import Params

COUNTRY_CODES: dict[str, str] = json.loads((Path(__file__).parent / "data" / "country_codes.json").read_text("utf-8"))


def identified_pie(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `anonymous.vs.identified.leads`: the contacts created in the range, identified or not."""
    contacts = list(_created_contacts(span, ctx))
    identified = sum(1 for doc in contacts if doc.get("dateIdentified"))
    return pie([("Identified", identified), ("Anonymous", len(contacts) - identified)], height)


def created_leads(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `created.leads`: the contacts created in the range, newest first."""
    raw = []
    for doc in _created_contacts(span, ctx):
        values = doc.get("values") or {}
        raw.append(
            {"id": doc["id"], "firstname": values.get("firstname"), "lastname": values.get("lastname")}
            | {"email": values.get("email"), "date_added": db_value(doc.get("dateAdded"))}
            | {"date_modified": db_value(doc.get("dateModified")), "name": _contact_name(doc)}
        )
        if len(raw) >= limit:
            break
    return table(["mautic.dashboard.label.title"], raw, lambda r: [_link(r["name"], f"/s/contacts/view/{r['id']}")])


def _top_segment_counts(span: Range, limit: int, ctx: Context) -> tuple[list[tuple[JSON, int]], dict[JSON, Doc]]:
    """([(segment id, contacts added)], {id: segment}) of the segments the caller may view that gained
    the most contacts in the range (Mautic's `getTopLists`)."""
    added = [e for e in _of(events_in(span), "segment_membership") if _detail("action")(e) == "added"]
    found = guarded(added, ctx, "segment", _detail("segmentId"))
    top = _top(Counter(_detail("segmentId")(e) for e in found), limit)
    return top, _docs(ctx, "segment", (i for i, _ in top))


def top_segments(span: Range, limit: int, ctx: Context) -> list[tuple[int, str]]:
    """[(id, name)] of the `limit` segments that gained the most contacts in the range."""
    top, segments = _top_segment_counts(span, limit, ctx)
    return [(int(str(i)), str((segments.get(i) or {}).get("name"))) for i, _ in top]


def top_lists(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `top.lists`: the segments that gained the most contacts in the range."""
    top, segments = _top_segment_counts(span, limit, ctx)
    raw = [
        {
            "leads": n,
            "id": i,
            "name": (segments.get(i) or {}).get("name"),
            "alias": (segments.get(i) or {}).get("alias"),
        }
        for i, n in top
    ]
    return table(
        ["mautic.dashboard.label.title", "mautic.lead.leads"],
        raw,
        lambda r: [_link(r["name"], f"/s/contacts?search=segment:{r['alias']}"), {"value": r["leads"]}],
    )


def top_people(by: str, head: str) -> Build:
    """Contacts created in the range counted by their owner (`owner`) or creator (`createdBy`)."""

    def build(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
        access.require_any(ctx, ("lead:leads:viewother",))  # Mautic: others' contacts are counted
        contacts = list(_created_contacts(span, ctx))
        top = _top(Counter(doc.get(by) for doc in contacts if doc.get(by) is not None), limit)
        users = _docs(ctx, "user", (i for i, _ in top))
        raw = [_person_row(by, users.get(i) or {}, i, n) for i, n in top]
        return table([head, "mautic.lead.leads"], raw, lambda r: [{"value": r["name"]}, {"value": r["leads"]}])

    return build


def _person_row(by: str, user: Doc, user_id: JSON, count: int) -> Doc:
    first, last = user.get("firstName") or "", user.get("lastName") or ""
    if by == "owner":
        return {"leads": count, "owner_id": user_id, "first_name": first, "last_name": last, "name": f"{first} {last}"}
    name = f"{first} {last}".strip() or user.get("username")
    return {"leads": count, "created_by": user_id, "created_by_user": name, "name": name}


def leads_map(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `map.of.leads`: contacts created in the range by country (its 2-letter code)."""
    counts: Counter[str] = Counter()
    for doc in _created_contacts(span, ctx):
        country = str((doc.get("values") or {}).get("country") or "")
        code = COUNTRY_CODES.get(country) or (country.upper() if len(country) == 2 else None)
        if code:
            counts[code] += 1
    return {"height": height, "data": dict(sorted(counts.items()))}


LIFETIME_SEGMENTS = 4  # Mautic's columns without `filter[flag]`


Column = tuple[int, str, str, int]  # (segment id, 0: all contacts; name; link; contacts)


def _segment_columns(contacts: Sequence[Doc], wanted: list[int] | None, ctx: Context) -> list[Column]:
    """The published segments the caller may view holding the most of `contacts` (LIFETIME_SEGMENTS
    of them), or the `wanted` ones (0: all contacts, last)."""
    counts: Counter[int] = Counter(
        int(key) for doc in contacts for key in doc.get("segments") or {} if widget_filters.in_segment(doc, key)
    )
    everyone = [(0, "All Contacts", "/s/contacts", len(contacts))] if wanted is not None and 0 in wanted else []
    if not access.allowed(ctx, registry.resource("segment"), Action.VIEW):
        return everyone
    ids = [i for i in (wanted if wanted is not None else counts) if i]
    seen = visible_ids(ctx, "segment", ids)
    segments = {i: d for i, d in _docs(ctx, "segment", seen).items() if is_published(d, ctx.now)}
    top = sorted(segments, key=lambda i: (-counts[i], i))[: len(ids) if wanted is not None else LIFETIME_SEGMENTS]
    columns = [
        (i, str(segments[i].get("name")), f"/s/contacts?search=segment:{segments[i].get('alias')}", counts[i])
        for i in top
    ]
    return columns + everyone


def lifetime(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `lead.lifetime`: a column per segment (the 4 holding the most contacts created in the
    range, or the ids of `filter[flag]`, 0 for all contacts) with its contacts created in the range;
    one column of all contacts when no segment has any. Under each, the bars of the memberships
    begun in the range by stage and by device (`widget_lifecycle.py`)."""
    wanted = None if params.flag in (None, "") else [_segment_id(i) for i in widget_filters.listed(params.flag)]
    contacts = list(_created_contacts(span, ctx))
    columns = _segment_columns(contacts, wanted, ctx) or [(0, "All contacts", "/s/contacts", len(contacts))]
    rows = widget_lifecycle.memberships(span, ctx)
    of_column = [[row for row in rows if i in (0, row[0])] for i, _, _, _ in columns]
    return {
        "columnName": [name for _, name, _, _ in columns],
        "value": [count for _, _, _, count in columns],
        "width": 100 / len(columns),
        "link": [link for _, _, link, _ in columns],
        "chartType": "pie",
        "chartHeight": height - 180,
        "chartItems": [pie([(name, count)], height)["chartData"] for _, name, _, count in columns],
        "stages": [widget_lifecycle.stages(found, ctx) for found in of_column],
        "devices": [widget_lifecycle.devices(found) for found in of_column],
    }


def _segment_id(value: str, field: str = "filter[flag]") -> int:
    if not a.digits(value):
        raise invalid(field, "A list of segment ids is expected (the lifecycle's 0: all contacts).")
    return int(value)


def build_times(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `segments.build.time` (ListModel::getSegmentsBuildTime): the published segments the
    caller may view (those of `filter[segments]`), by their last build's duration (`filter[order]`,
    desc by default; a segment never built has none, first ascending and last descending, as MySQL
    sorts a null), each with that duration in words (DateHelper::formatRange)."""
    descending = _order(params.order)
    wanted = {_segment_id(i, "filter[segments]") for i in params.segments}
    found = [
        doc
        for doc in _visible_docs(ctx, "segment")
        if doc.get("isPublished", True) and (not wanted or doc["id"] in wanted)
    ]
    built = rebuilds.last_builds([doc["id"] for doc in found])
    raw = [
        {"id": doc["id"], "name": doc.get("name"), "createdByUser": doc.get("createdByUser")}
        | {k: (built.get(doc["id"]) or {}).get(k) for k in ("lastBuiltDate", "lastBuiltTime")}
        for doc in found
    ]
    raw.sort(key=lambda r: r["id"])
    raw.sort(key=lambda r: (r["lastBuiltTime"] is not None, r["lastBuiltTime"] or 0), reverse=descending)
    head = ["mautic.dashboard.label.title", "mautic.core.createdby", "mautic.lead.list.last_built_time"]
    return table(
        head,
        raw[:limit],
        lambda r: [
            _link(r["name"], f"/s/segments/view/{r['id']}"),
            {"value": r["createdByUser"]},
            {"value": duration(r["lastBuiltTime"])},
        ],
    )


def _order(value: JSON) -> bool:
    """True for descending: `filter[order]` asc or desc (desc by default); a 400 naming it otherwise."""
    order = str(value or "desc").lower()
    if order not in ("asc", "desc"):
        raise invalid("filter[order]", "This value should be asc or desc.")
    return order == "desc"


UNITS = (("hour", 3600), ("minute", 60), ("second", 1))


def duration(seconds: float | None) -> str:
    """Mautic's words for a build time: `gmdate('H:i:s')` of its whole seconds (days wrap) read by
    DateHelper::formatRange, `1 hour 2 minutes 5 seconds`, or `Less than 1 second`."""
    left = int(seconds or 0) % 86400
    words = []
    for unit, size in UNITS:
        count, left = divmod(left, size)
        if count:
            words.append(f"{count} {unit}{'' if count == 1 else 's'}")
    return " ".join(words) or "Less than 1 second"
