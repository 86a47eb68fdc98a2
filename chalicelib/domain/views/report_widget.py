"""Mautic's `report` dashboard widget (ReportBundle's DashboardSubscriber): one graph of a saved
report, named by `filter[graph]` = `<report id>:<graph name>`, over the widget's range (to the end of
`dateTo`'s day, as Mautic's report), in the
widget's template data: `chartData` (the graph's data; one without a `data` key gets a copy of itself
under `data`, as Mautic's subscriber does), `chartType`, `chartHeight` (height - 90), `reportId`,
`dateFrom`, `dateTo`.

Mautic answers 404 when the report is missing, not the caller's to view or has no such graph (no
template data); here a report the caller may not view is a 403, as `GET /reports/<id>` answers."""

import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import timezone

from chalicelib.domain.kernel import access, clock, registry, service
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound, invalid
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.views import report_graphs
from chalicelib.domain.views.time_range import Range

FIELD = "filter[graph]"  # Mautic's widget parameter `graph`, sent through WidgetApiController's `filter`
GRAPH = r"^\s*([1-9][0-9]*):([A-Za-z0-9_.]+)\s*$"


def _graph(query: Mapping[JSON, JSON]) -> tuple[int, str]:
    """(report id, graph name) of `filter[graph]`; a 400 naming it when missing or malformed."""
    given = query.get("filter")
    value = given.get("graph") if isinstance(given, dict) else None
    found = re.match(GRAPH, value) if isinstance(value, str) else None
    if found is None:
        raise invalid(FIELD, "The graph is <report id>:<graph name>, e.g. 1:mautic.page.graph.line.hits.")
    return int(found.group(1)), found.group(2)


def through_the_day(span: Range) -> Range:
    """Mautic's report range (ReportModel::getReportData): `dateTo` runs to the end of its day in the
    widget's zone, or to now when that day is today."""
    assert span.end is not None
    end, now = span.end.astimezone(span.zone), clock.now().astimezone(span.zone)
    last = now if end.date() == now.date() else end.replace(hour=23, minute=59, second=59, microsecond=0)
    return replace(span, end=last.astimezone(timezone.utc))


def data(query: Mapping[JSON, JSON], span: Range, height: int, ctx: Context) -> Doc:
    """The widget's template data; NotFound for an unknown report or a graph its source does not
    draw, Forbidden for a report (or rows) the caller may not view."""
    report_id, name = _graph(query)
    resource = registry.resource("report")
    report = service.load(resource, report_id, ctx)
    access.require(ctx, resource, Action.VIEW, report)
    graph = report_graphs.draw(report, name, through_the_day(span), ctx)
    if graph is None:
        raise NotFound(f"Report {report_id} ({report['source']}) has no graph {name}.")
    chart = dict(graph["data"])
    chart.setdefault("data", dict(graph["data"]))
    date_from, date_to = span.echo()
    return {
        "chartData": chart,
        "chartType": graph["type"],
        "chartHeight": height - 90,
        "reportId": report["id"],
        "dateFrom": date_from,
        "dateTo": date_to,
    }
