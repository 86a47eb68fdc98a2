"""Mautic's dashboard widgets (`GET /data`, `GET /data/<type>`): the types this service can answer,
and their data over a date range. Time charts count rows per time bucket: timeline events read from
the all-contacts feed newest first, or contacts read newest first (only the caller's own without
`lead:leads:viewother`), in both cases only back to the range's start (`time_range.within`); the
datasets drawn follow Mautic's `filter[flag]` and `dataset`, buckets are cut in the `timezone`
(`widget_filters.py`)."""

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import field
from datetime import tzinfo

from chalicelib.domain.kernel import access, registry, timeline
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound, invalid
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging.stats_tables import db_value
from chalicelib.domain.views import (
    charts,
    report_widget,
    time_range,
    widget_base,
    widget_contacts,
    widget_filters,
    widget_lists,
)
from chalicelib.domain.views.time_range import Range
from chalicelib.domain.views.widget_base import ASSET, EMAIL, FORM, PAGE, contact_of
from chalicelib.domain.views.widget_filters import Params
from chalicelib.records import record

CATEGORIES = {
    "core": "Core Widgets",
    "lead": "Contact Widgets",
    "email": "Email Widgets",
    "page": "Page Widgets",
    "form": "Form Widgets",
    "point": "Point Widgets",
    "campaign": "Campaign Widgets",
    "asset": "Asset Widgets",
    "stage": "Stage Widgets",
    "report": "Report Widgets",
}
# What a role needs to see a category's widgets (Mautic's dashboard subscribers; all contacts'
# activity needs the right to see others' contacts).
PERMISSIONS = {
    "core": ("lead:leads:viewother",),
    "lead": ("lead:leads:viewown", "lead:leads:viewother"),
    "email": ("email:emails:viewown", "email:emails:viewother"),
    "page": ("page:pages:viewown", "page:pages:viewother"),
    "form": ("form:forms:viewown", "form:forms:viewother"),
    "point": ("point:points:view",),
    "campaign": ("campaign:campaigns:viewown", "campaign:campaigns:viewother"),
    "asset": ("asset:assets:viewown", "asset:assets:viewother"),
    "stage": ("stage:stages:view",),
    "report": ("report:reports:viewown", "report:reports:viewother"),
}
ANY_PERMISSION = tuple(dict.fromkeys(name for names in PERMISSIONS.values() for name in names))
DEFAULT_DAYS = 30
RECENT_LIMIT = 10


@record
class Series:
    """One dataset: the timeline events it counts (None: created contacts), the value each adds,
    and `distinct`, when it counts distinct values (contacts) per bucket instead."""

    label: str
    events: tuple[str, ...] | None
    value: Callable[[Doc], int] = field(default=lambda event: 1)
    distinct: Callable[[Doc], JSON] | None = None


def _delta(event: Doc) -> int:
    details = event.get("details") or {}
    return (details.get("newPoints") or 0) - (details.get("oldPoints") or 0)


def _contact(event: Doc) -> JSON:
    return event.get("contactId")


def _added(event: Doc) -> int:
    return 1 if (event.get("details") or {}).get("action") == "added" else 0


def _automation(event: Doc) -> JSON:
    return (event.get("details") or {}).get("automationId")


def _email_click(event: Doc) -> int:
    return 1 if (event.get("details") or {}).get("source") == "email" else 0


def _email_dnc(reason: int) -> Callable[[Doc], int]:
    """1 for a do-not-contact on email with `reason` that an email caused (Mautic joins its send)."""

    def value(event: Doc) -> int:
        d = event.get("details") or {}
        return 1 if d.get("channel") == "email" and d.get("reason") == reason and d.get("emailId") else 0

    return value


def _identified(event: Doc) -> int:
    return 1 if (event.get("doc") or {}).get("dateIdentified") else 0


def _anonymous(event: Doc) -> int:
    return 1 - _identified(event)


# emails.in.time: (dataset name, series), Mautic's order (EmailModel::getEmailsLineChartData)
EMAIL_SERIES = (
    ("sent", Series("Sent emails", ("email.sent",))),
    ("opened", Series("Read emails", ("email.read",))),
    ("failed", Series("Failed emails", ("email.failed",))),
    ("clicked", Series("Clicked", ("page.hit",), _email_click)),
    ("unsubscribed", Series("Unsubscribed", ("lead.donotcontact",), _email_dnc(1))),
    ("bounced", Series("Bounced", ("lead.donotcontact",), _email_dnc(2))),
)
# flag: the datasets it shows (no flag: sent)
EMAIL_FLAGS = {
    "all": tuple(name for name, _ in EMAIL_SERIES),
    "sent_and_opened_and_failed": ("sent", "opened", "failed"),
    "sent_and_opened": ("sent", "opened"),
    "opened": ("opened",),
    "failed": ("failed",),
    "clicked": ("clicked",),
    "unsubscribed": ("unsubscribed",),
    "bounced": ("bounced",),
}
HIT_FLAGS = {"unique": ("Unique visits",), "total_and_unique": ("Total visits", "Unique visits")}  # none: total
CONTACT_FLAGS = ("identified", "anonymous", "identifiedVsAnonymous", "top", "topIdentifiedVsAnonymous")


# type: (category, name, series)
TIME_CHARTS: dict[str, tuple[str, str, tuple[Series, ...]]] = {
    "created.leads.in.time": ("lead", "Created contacts in time", (Series("All contacts", None),)),
    "emails.in.time": ("email", "Emails in time", tuple(series for _, series in EMAIL_SERIES)),
    "page.hits.in.time": (
        "page",
        "Page visits in time",
        (Series("Total visits", ("page.hit",)), Series("Unique visits", ("page.hit",), distinct=_contact)),
    ),
    "submissions.in.time": ("form", "Submissions in time", (Series("Submission count", ("form.submitted",)),)),
    "points.in.time": ("point", "Points in time", (Series("Points", ("point.gained",), value=_delta),)),
    "events.in.time": ("campaign", "Events triggered in time", (Series("Events triggered", ("campaign.event",)),)),
    "asset.downloads.in.time": ("asset", "Downloads in time", (Series("Download count", ("asset.download",)),)),
    "leads.added.in.time": (
        "campaign",
        "Leads added in time",
        (Series("Leads added", ("campaign_membership",), _added),),
    ),
    "stages.in.time": ("stage", "Stages in time", (Series("Stage changes", ("stage.changed",)),)),
}
# type: (kind, the id of the document an event names): an event counts when the caller may view it
GUARDS: dict[str, tuple[str, Callable[[Doc], JSON]]] = {
    "emails.in.time": ("email", EMAIL),
    "page.hits.in.time": ("page", PAGE),
    "submissions.in.time": ("form", FORM),
    "events.in.time": ("automation", _automation),
    "leads.added.in.time": ("automation", _automation),
    "asset.downloads.in.time": ("asset", ASSET),
    "points.in.time": ("contact", contact_of),  # Mautic: only the caller's contacts without viewother
    "stages.in.time": ("contact", contact_of),
}
OTHERS = {"recent.activity": ("core", "Recent activity"), "report": ("report", "Report Graph")}
FILTERED = ("emails.in.time",)  # time charts whose events `filter[companyId|campaignId|segmentId]` narrow
# Mautic's widget catalogue, by type: (category, name)
WIDGETS = {
    **{t: (category, name) for t, (category, name, _) in TIME_CHARTS.items()},
    **{t: (category, name) for t, (category, name, _) in widget_lists.WIDGETS.items()},
    **OTHERS,
}


def _permitted(ctx: Context, category: str) -> bool:
    return any(access.has(ctx, name) for name in PERMISSIONS[category])


def types(ctx: Context) -> dict[str, dict[str, str]]:
    """`{category label: {type: name}}`: Mautic's widget type list, the categories the caller may see."""
    listed: dict[str, dict[str, str]] = {}
    for widget_type, (category, name) in WIDGETS.items():
        if _permitted(ctx, category):
            listed.setdefault(CATEGORIES[category], {})[widget_type] = name
    return listed


def _events(span: Range, widget_type: str, ctx: Context, chosen: Sequence[Series] = ()) -> Iterable[Doc]:
    """The events of the range, newest first; only those naming a document the caller may view
    when the widget counts documents (GUARDS), of the `chosen` series' types."""
    events = widget_base.events_in(span)
    if widget_type not in GUARDS:
        return events
    kind, key = GUARDS[widget_type]
    if not access.allowed(ctx, registry.resource(kind), Action.VIEW):
        return []  # a points or stages viewer who may view no contact: none of their points count
    types = {name for s in chosen or TIME_CHARTS[widget_type][2] for name in s.events or ()}
    return widget_base.guarded([e for e in events if e["event"] in types], ctx, kind, key)


def _contacts(span: Range, ctx: Context) -> Iterator[Doc]:
    """The contacts created in the range that the caller may view, newest first (as events: the
    contact document under `doc`)."""
    rows = (
        {"at": db_value(d.get("dateAdded")), "event": {"contactId": d["id"], "timestamp": d.get("dateAdded"), "doc": d}}
        for d in access.visible_documents(ctx, registry.resource("contact"), descending=True)
    )
    return (row["event"] for row in time_range.within(rows, "at", span, True, "This widget"))


def _count(
    rows: Iterable[Doc], series: Sequence[Series], time_unit: str, zone: tzinfo
) -> list[tuple[str, dict[str, int]]]:
    """[(label, {bucket key: value})] of each series over the rows, cut in `zone`."""
    totals: list[dict[str, int]] = [{} for _ in series]
    seen: list[set[tuple[str, JSON]]] = [set() for _ in series]
    for event in rows:
        key = charts.key_of(db_value(event["timestamp"]) or "", time_unit, zone)
        for s, bucket, distinct in zip(series, totals, seen, strict=True):
            if s.events is not None and event.get("event") not in s.events:
                continue
            if s.distinct is not None:
                marker = (key, s.distinct(event))
                if marker in distinct:
                    continue
                distinct.add(marker)
            bucket[key] = bucket.get(key, 0) + s.value(event)
    return [(s.label, bucket) for s, bucket in zip(series, totals, strict=True)]


def _email_series(params: Params) -> tuple[Series, ...]:
    """The datasets of `emails.in.time`: those of `filter[flag]` (sent without one) and `dataset`."""
    flagged = EMAIL_FLAGS[flag] if (flag := widget_filters.flag(params, tuple(EMAIL_FLAGS))) else ("sent",)
    unknown = sorted(set(params.dataset) - {name for name, _ in EMAIL_SERIES})
    if unknown:
        names = ", ".join(name for name, _ in EMAIL_SERIES)
        raise invalid("dataset", f"Unknown dataset {', '.join(unknown)}; use {names}.")
    return tuple(s for name, s in EMAIL_SERIES if name in flagged or name in params.dataset)


def _member(segment_id: int, of: Callable[[Doc], int] = lambda event: 1) -> Callable[[Doc], int]:
    return lambda event: of(event) if widget_filters.in_segment(event.get("doc"), segment_id) else 0


def _contact_series(params: Params, span: Range, ctx: Context) -> tuple[Series, ...]:
    """The datasets of `created.leads.in.time` by `filter[flag]` (LeadModel::getLeadsLineChartData)."""
    flag = widget_filters.flag(params, CONTACT_FLAGS)
    identified, anonymous = Series("Identified", None, _identified), Series("Anonymous", None, _anonymous)
    if flag in ("identified", "anonymous"):
        return (identified,) if flag == "identified" else (anonymous,)
    if flag == "identifiedVsAnonymous":
        return identified, anonymous
    if flag == "top":
        top = widget_contacts.top_segments(span, 6, ctx)
        return tuple(Series(f"{name}: All contacts", None, _member(i)) for i, name in top)
    if flag == "topIdentifiedVsAnonymous":
        return tuple(
            Series(f"{name}: {s.label}", None, _member(i, s.value))
            for i, name in widget_contacts.top_segments(span, 3, ctx)
            for s in (identified, anonymous)
        )
    return TIME_CHARTS["created.leads.in.time"][2]


def _series(widget_type: str, params: Params, span: Range, ctx: Context) -> tuple[Series, ...]:
    """The datasets a time chart draws for its filters (Mautic's `flag` and `dataset`)."""
    if widget_type == "emails.in.time":
        return _email_series(params)
    if widget_type == "page.hits.in.time":
        labels = HIT_FLAGS.get(widget_filters.flag(params, tuple(HIT_FLAGS)) or "", ("Total visits",))
        return tuple(s for s in TIME_CHARTS[widget_type][2] if s.label in labels)
    if widget_type == "created.leads.in.time":
        return _contact_series(params, span, ctx)
    return TIME_CHARTS[widget_type][2]


def _time_chart(widget_type: str, span: Range, time_unit: str, height: int, ctx: Context, params: Params) -> Doc:
    series = _series(widget_type, params, span, ctx)
    all_buckets = charts.buckets(span, time_unit)
    if TIME_CHARTS[widget_type][2][0].events is None:
        rows: Iterable[Doc] = _contacts(span, ctx)
    else:
        rows = _events(span, widget_type, ctx, series)
    if widget_type in FILTERED:
        rows = widget_filters.matching(rows, params, ctx)
    return charts.line(all_buckets, _count(rows, series, time_unit, span.zone), height)


def _recent(span: Range, limit: int, height: int, ctx: Context) -> Doc:
    logs = []
    for event in _events(span, "recent.activity", ctx):
        logs.append(
            {
                "id": event["id"],
                "event": event["event"],
                "eventLabel": event.get("eventLabel"),
                "contactId": event.get("contactId"),
                "timestamp": event["timestamp"],
            }
        )
        if len(logs) >= limit:
            break
    return {"height": height, "logs": logs, "icons": dict(timeline.ICONS)}


def formatted(answer: Doc, raw: bool) -> JSON:
    """Mautic's answer format: `raw` gives a chart as {dataset label: {bucket label: value}} (a pie's
    one dataset has no label: ""), else the widget's `raw` rows; the template data never shows `raw`."""
    chart = answer.get("chartData")
    if raw and isinstance(chart, dict) and "labels" in chart and "datasets" in chart:
        return {d.get("label") or "": dict(zip(chart["labels"], d["data"], strict=True)) for d in chart["datasets"]}
    if raw and "raw" in answer:
        return answer["raw"]
    if raw and "logs" in answer:
        return answer["logs"]
    return {k: v for k, v in answer.items() if k != "raw"}


def data(
    widget_type: str,
    query: Mapping[str, JSON],
    ctx: Context,
    raw: bool = False,
    height: int = 300,
    limit: int = 0,
) -> JSON:
    """The widget's data (Mautic's template data; `raw`: {dataset: {bucket: value}} or the rows),
    NotFound, or Forbidden without the permissions of the widget's category. `limit` 0: Mautic's,
    from the height (`round((height - 80) / 35 - 1)` rows), RECENT_LIMIT for the recent activity."""
    if widget_type not in WIDGETS:
        raise NotFound()
    access.require_any(ctx, PERMISSIONS[WIDGETS[widget_type][0]])
    time_unit = charts.unit(query.get("timeUnit"))
    params = widget_filters.parse(query)
    widget_filters.check(params, ctx)
    span = time_range.parse(query, default_days=DEFAULT_DAYS, zone=widget_filters.zone(query))
    if widget_type == "report":
        return formatted(report_widget.data(query, span, height, ctx), raw)
    if widget_type == "recent.activity":
        return formatted(_recent(span, limit or RECENT_LIMIT, height, ctx), raw)
    if widget_type in widget_lists.WIDGETS:
        rows = limit or max(round((height - 80) / 35 - 1), 1)
        return formatted(widget_lists.WIDGETS[widget_type][2](span, rows, height, ctx, params), raw)
    return formatted(_time_chart(widget_type, span, time_unit, height, ctx, params), raw)
