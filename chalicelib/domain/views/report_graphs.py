"""A report's graphs (Mautic's ReportModel::getReportData with `graphName`, `ignoreTableData`): the
graphs each source offers (`GRAPHS`, the names its Mautic ReportSubscriber registers with
`addGraph`), each drawn from the report's rows of the range: its filters apply, its order, columns
and page do not, and only rows the caller may see count (`reports.graph_rows`).

A graph is `{"type", "data"}` as ReportGraphEvent holds it. Mautic's `emails` source graphs (they
count the do-not-contact entries and clicks of every contact per email) and its other sources'
(companies, attribution) are not offered; `campaign_lead.event_log` has none in Mautic either."""

from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.views import reports
from chalicelib.domain.views.report_graph_base import Graph, Rows
from chalicelib.domain.views.report_graphs_contacts import EMAIL_STATS_GRAPHS, LEAD_GRAPHS, POINT_GRAPHS
from chalicelib.domain.views.report_graphs_visits import ASSET_GRAPHS, FORM_GRAPHS, PAGE_GRAPHS
from chalicelib.domain.views.time_range import Range

GRAPHS: dict[str, dict[str, Graph]] = {
    "leads": LEAD_GRAPHS,
    "email.stats": EMAIL_STATS_GRAPHS,
    "form.submissions": FORM_GRAPHS,
    "page.hits": PAGE_GRAPHS,
    "asset.downloads": ASSET_GRAPHS,
    "lead.pointlog": POINT_GRAPHS,
}


def draw(report: Doc, name: str, span: Range, ctx: Context) -> Doc | None:
    """The report's graph `name` over the range (both ends set) as `{"type", "data"}`, None when its
    source has no such graph; Forbidden without the view its rows need (as running the report)."""
    graph = GRAPHS.get(str(report.get("source")), {}).get(name)
    if graph is None:
        return None
    source, rows = reports.graph_rows(report, span, graph.joins, ctx)
    return {"type": graph.type, "data": graph.draw(Rows(rows, span, source, ctx), name)}
