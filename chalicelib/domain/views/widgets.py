"""Mautic's dashboard widgets (`GET /data`, `GET /data/<type>`): the types this service can answer,
and their data over a date range. Time charts count rows per time bucket: timeline events read from
the all-contacts feed newest first, or contacts read newest first (only the caller's own without
`lead:leads:viewother`), in both cases only back to the range's start (`time_range.within`)."""

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from chalicelib.domain.kernel import access, registry, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging.stats_tables import db_value
from chalicelib.domain.views import charts, time_range, widget_lists
from chalicelib.domain.views.time_range import Range
from chalicelib.domain.views.widget_lists import ASSET, EMAIL, FORM, PAGE

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
}
ANY_PERMISSION = tuple(dict.fromkeys(name for names in PERMISSIONS.values() for name in names))
DEFAULT_DAYS = 30
RECENT_LIMIT = 10


@dataclass(frozen=True)
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


# type: (category, name, series)
TIME_CHARTS: dict[str, tuple[str, str, tuple[Series, ...]]] = {
    "created.leads.in.time": ("lead", "Created contacts in time", (Series("Created contacts", None),)),
    "emails.in.time": (
        "email",
        "Emails in time",
        (
            Series("Sent emails", ("email.sent",)),
            Series("Read emails", ("email.read",)),
            Series("Failed emails", ("email.failed",)),
        ),
    ),
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
}
OTHERS = {"recent.activity": ("core", "Recent activity")}
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


def _events(span: Range, widget_type: str, ctx: Context) -> Iterable[Doc]:
    """The events of the range, newest first; only those naming a document the caller may view
    when the widget counts documents (GUARDS)."""
    events = widget_lists.events_in(span)
    if widget_type not in GUARDS:
        return events
    kind, key = GUARDS[widget_type]
    wanted = TIME_CHARTS[widget_type][2]
    types = {name for s in wanted for name in s.events or ()}
    return widget_lists.guarded([e for e in events if e["event"] in types], ctx, kind, key)


def _contacts(span: Range, ctx: Context) -> Iterator[Doc]:
    """The contacts created in the range that the caller may view, newest first."""
    rows = (
        {"at": db_value(d.get("dateAdded")), "event": {"contactId": d["id"], "timestamp": d.get("dateAdded")}}
        for d in access.visible_documents(ctx, registry.resource("contact"), descending=True)
    )
    return (row["event"] for row in time_range.within(rows, "at", span, True, "This widget"))


def _count(rows: Iterable[Doc], series: Sequence[Series], time_unit: str) -> list[tuple[str, dict[str, int]]]:
    """[(label, {bucket key: value})] of each series over the rows."""
    totals: list[dict[str, int]] = [{} for _ in series]
    seen: list[set[tuple[str, JSON]]] = [set() for _ in series]
    for event in rows:
        key = charts.key_of(db_value(event["timestamp"]) or "", time_unit)
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


def _time_chart(widget_type: str, span: Range, time_unit: str, height: int, ctx: Context) -> Doc:
    _, _, series = TIME_CHARTS[widget_type]
    all_buckets = charts.buckets(span, time_unit)
    rows = _contacts(span, ctx) if series[0].events is None else _events(span, widget_type, ctx)
    return charts.line(all_buckets, _count(rows, series, time_unit), height)


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
    span = time_range.parse(query, default_days=DEFAULT_DAYS)
    if widget_type == "recent.activity":
        return formatted(_recent(span, limit or RECENT_LIMIT, height, ctx), raw)
    if widget_type in widget_lists.WIDGETS:
        rows = limit or max(round((height - 80) / 35 - 1), 1)
        return formatted(widget_lists.WIDGETS[widget_type][2](span, rows, height, ctx), raw)
    return formatted(_time_chart(widget_type, span, time_unit, height, ctx), raw)
