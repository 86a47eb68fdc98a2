"""What Mautic's report graphs share (its sources' `onReportGraphGenerate`): the rows a graph is drawn
from (`Rows`: the report's rows of the range, filtered, only those the caller may see), and the three
shapes a graph's data takes, as ReportGraphEvent::setGraph receives them: a line chart (LineChart's
`{labels, datasets}` and the graph's `name`, the time unit chosen from the range's length), a pie
(`{data: PieChart, name, iconClass}`) and a table (`{data: rows, name, iconClass, link}`, the rows
under the column names of Mautic's query, values as database strings)."""

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging.stats_tables import db_value
from chalicelib.domain.views import charts, widget_base
from chalicelib.domain.views.report_sources import Source
from chalicelib.domain.views.time_range import Range
from chalicelib.records import record

TABLE_LIMIT = 10  # rows of a table graph (Mautic's `$limit = 10`)


@record
class Rows:
    """The rows a graph is drawn from, the range it was asked for, the bound source (for aliases)."""

    rows: list[Doc]
    span: Range
    source: Source
    ctx: Context

    def value(self, row: Doc, column: str) -> JSON:
        """A row's value of a source column (`ph.referer`), by its alias (None for a column the source
        does not have now, such as a deleted contact field)."""
        found = self.source.columns.get(column)
        return row.get(found[0]) if found else None


Draw = Callable[[Rows, str], Doc]  # (rows, graph name) -> the graph's data as setGraph receives it


@record
class Graph:
    """One graph of a source: Mautic's type (`line`, `pie`, `table`), the join prefixes its rows need
    besides the report's, and how it is drawn."""

    type: str
    draw: Draw
    joins: tuple[str, ...] = ()


def unit(span: Range) -> str:
    """Mautic's time unit for a range (DateRangeUnitTrait::getTimeUnitFromDateRange, without minutes):
    hours up to a day, days up to 31, weeks up to 100, months up to 1000, then years."""
    assert span.start is not None and span.end is not None
    days = (span.end - span.start).days
    for limit, name in ((1000, "Y"), (100, "m"), (31, "W"), (1, "d")):
        if days > limit:
            return name
    return "H"


def line(rows: Rows, name: str, series: Sequence[tuple[str, Iterable[tuple[JSON, int]]]]) -> Doc:
    """A line chart over the range: `series` [(label, [(database date, value)])], each value added to
    its date's bucket (dates outside the range are not drawn)."""
    time_unit = unit(rows.span)
    start, end = rows.span.db()
    counted: list[tuple[str, dict[str, int]]] = []
    for label, points in series:
        totals: dict[str, int] = {}
        for stamp, value in points:
            text = db_value(stamp)
            if isinstance(text, str) and start and end and start <= text <= end:
                key = charts.key_of(text, time_unit, rows.span.zone)
                totals[key] = totals.get(key, 0) + value
        counted.append((label, totals))
    drawn: Doc = charts.line(charts.buckets(rows.span, time_unit), counted, 0)["chartData"]
    return dict(drawn, name=name)


def count_by(rows: Rows, column: str, keep: Callable[[Doc], bool] = lambda row: True) -> list[tuple[JSON, int]]:
    """[(date, 1)] of the rows that pass `keep`, dated by `column`: a line counting rows."""
    return [(rows.value(row, column), 1) for row in rows.rows if keep(row)]


def pie(name: str, values: Sequence[tuple[str, int]], icon: str) -> Doc:
    """Mautic's PieChart of (label, value) in order, as a graph."""
    return {"data": widget_base.pie(values, 0)["chartData"], "name": name, "iconClass": icon}


def table(name: str, items: Sequence[Mapping[str, JSON]], icon: str, link: str | None = None) -> Doc:
    """A table graph: its rows (values as database strings), name, icon and the route its ids open."""
    found: Doc = {"data": [{k: db_value(v) for k, v in item.items()} for item in items], "name": name}
    found["iconClass"] = icon
    if link:
        found["link"] = link
    return found


def top(counts: Mapping[JSON, int | float], limit: int = TABLE_LIMIT) -> list[tuple[JSON, int | float]]:
    """The largest values, ties by key, at most `limit` (Mautic's `ORDER BY ... DESC LIMIT 10`)."""
    return sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))[:limit]


def grouped(rows: Rows, column: str, counted: Callable[[Doc], bool] = lambda row: True) -> Counter[JSON]:
    """{value of `column`: rows counted} over every group (SQL's `GROUP BY column`, `COUNT(...)`)."""
    found: Counter[JSON] = Counter()
    for row in rows.rows:
        found[rows.value(row, column)] += 1 if counted(row) else 0
    return found


def not_null(rows: Rows, column: str) -> Callable[[Doc], bool]:
    """A test: the row's `column` has a value (SQL's COUNT(column) counts only those)."""
    return lambda row: rows.value(row, column) not in (None, "")
