"""The bars under each column of Mautic's `lead.lifetime` (ListModel::getStagesBarChartData and
getDeviceGranularityData): the memberships begun in the range (Mautic's `lead_lists_leads` rows by
`date_added`) of the column's segment, or of every segment for the "All contacts" column, counted
by their contact's stage (published) and by their contact's devices.

The memberships come from the range's `segment_membership` additions (the feed, as `top.lists`),
checked against the contact documents (one BatchGetItem per 100): a membership still held whose
`dateAdded` is in the range. Only contacts, segments and stages the caller may view count. Mautic
counts a contact's page hits per device; hits record no device here, so each device kept on the
contact counts once."""

from collections import Counter
from collections.abc import Sequence

from chalicelib.domain.kernel import access, registry
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging.stats_tables import db_value
from chalicelib.domain.views import charts, widget_filters
from chalicelib.domain.views.time_range import Range
from chalicelib.domain.views.widget_base import _detail, _docs, _of, contact_of, events_in, visible_ids

Membership = tuple[int, Doc]  # (segment id, contact)
LABEL_LENGTH = 12  # Mautic cuts the bars' labels
NO_INFO = "n/a"  # mautic.core.no.info: a device of unknown type


def memberships(span: Range, ctx: Context) -> list[Membership]:
    """The memberships begun in the range and still held, of contacts and segments the caller may view."""
    if not access.allowed(ctx, registry.resource("segment"), Action.VIEW):
        return []
    added = [e for e in _of(events_in(span), "segment_membership") if _detail("action")(e) == "added"]
    resource = registry.resource("contact")
    contacts = [
        doc
        for doc in _docs(ctx, "contact", {contact_of(e) for e in added}).values()
        if access.viewable(ctx, resource, doc)
    ]
    start, end = span.db()
    rows = sorted(
        (int(key), doc["id"])
        for doc in contacts
        for key, entry in (doc.get("segments") or {}).items()
        if widget_filters.in_segment(doc, key)
        and (start or "") <= (db_value(entry.get("dateAdded")) or "") <= (end or "9999")
    )
    seen = visible_ids(ctx, "segment", {segment for segment, _ in rows})
    by_id = {doc["id"]: doc for doc in contacts}
    return [(segment, by_id[contact]) for segment, contact in rows if segment in seen]


def stages(rows: Sequence[Membership], ctx: Context) -> Doc:
    """Mautic's stages bars: the memberships by their contact's stage (published, viewable), most first."""
    staged = [doc.get("stage") for _, doc in rows if doc.get("stage") is not None]
    known: dict[object, Doc] = {}
    if staged and access.allowed(ctx, registry.resource("stage"), Action.VIEW):
        seen = visible_ids(ctx, "stage", staged)
        known = {i: d for i, d in _docs(ctx, "stage", seen).items() if is_published(d, ctx.now)}
    counts = Counter(str(known[i].get("name")) for i in staged if i in known)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return _bars("Contacts", ranked, 3)


def devices(rows: Sequence[Membership]) -> Doc:
    """Mautic's devices bars: the memberships by each device type of their contact, types descending
    and the unknown type (`n/a`) last, as MySQL sorts a null."""
    counts = Counter(device.get("device") or None for _, doc in rows for device in doc.get("devices") or [])
    kinds = sorted((str(kind) for kind in counts if kind), reverse=True)
    ranked = [(kind, counts[kind]) for kind in kinds] + ([(NO_INFO, counts[None])] if None in counts else [])
    return _bars("Device", ranked, 2)


def _bars(label: str, counts: Sequence[tuple[str, int]], colour: int) -> Doc:
    """Mautic's BarChart of one dataset in its `colour`th colour, with the lifecycle's axes options."""
    r, g, b = charts.COLORS[colour]
    dataset = {"label": label, "data": [n for _, n in counts], "fill": True}
    dataset |= {"backgroundColor": f"rgba({r},{g},{b},0.7)", "borderColor": f"rgba({r},{g},{b},0.8)"}
    dataset |= {"pointHoverBackgroundColor": f"rgba({r},{g},{b},0.9)", "pointHoverBorderColor": f"rgba({r},{g},{b},1)"}
    return {
        "labels": [name[:LABEL_LENGTH] for name, _ in counts],
        "datasets": [dataset],
        "options": {"xAxes": [{"display": True}], "yAxes": [{"display": True}]},
    }
