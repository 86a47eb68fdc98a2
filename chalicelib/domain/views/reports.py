"""Running a stored report (Mautic's `GET /reports/<id>`): its source's rows in the asked range,
filtered, ordered, grouped and paged, shown under the columns' aliases.

A report ordered by time (no order, or first by its source's id or date column) reads its source
lazily in that order and stops once the page is full plus one row; any other order, and grouping,
read every row of the range (at most `time_range.MAX_ROWS_READ`) and sort or group them. A caller
sees only rows of documents they may view (each source's `guards`), and counts only those."""

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence

from chalicelib import config
from chalicelib.domain.kernel import access, references, registry
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import ValidationError
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import stats_tables
from chalicelib.domain.messaging.stats_tables import Condition
from chalicelib.domain.segments import patterns
from chalicelib.domain.views import report_definitions, time_range
from chalicelib.domain.views.report_sources import SOURCES, Source
from chalicelib.domain.views.time_range import Range
from chalicelib.store import port as store

TESTS = dict(
    stats_tables.TESTS,
    empty=lambda v, w: v in (None, ""),
    notEmpty=lambda v, w: v not in (None, ""),
    startsWith=lambda v, w: v is not None and str(v).lower().startswith(str(w).lower()),
    endsWith=lambda v, w: v is not None and str(v).lower().endswith(str(w).lower()),
    contains=lambda v, w: v is not None and patterns.like(f"%{w}%")(v),
)
AGGREGATE: dict[str, Callable[[list[float]], float]] = {
    "SUM": sum,
    "MIN": min,
    "MAX": max,
    "AVG": lambda n: sum(n) / len(n),
}
COUNTED_KINDS = {"leads": "contact", "emails": "email"}  # sources whose total is a stored count


def _matches(report: Doc, source: Source) -> Callable[[Doc], bool]:
    """Whether a row passes the filters: groups joined by `or`, filters within a group by `and`."""
    groups: list[list[Condition]] = []
    current: list[Condition] = []
    for entry in report.get("filters") or []:
        if entry.get("glue") == "or" and current:
            groups.append(current)
            current = []
        current.append((source.alias(entry["column"]), TESTS[entry["condition"]], entry.get("value")))
    if current:
        groups.append(current)
    return lambda row: not groups or any(all(test(row.get(c), v) for c, test, v in g) for g in groups)


def _time_order(report: Doc, source: Source) -> bool | None:
    """None when the report needs a sort, else True (newest first) or False: its read order."""
    order = report.get("tableOrder") or []
    if not order:
        return False
    first = order[0]
    prefix = source.date_column.split(".")[0]
    if len(order) == 1 and first["column"] in (source.date_column, f"{prefix}.id"):
        return first["direction"] == "DESC"
    return None


def _sort_key(value: JSON) -> tuple[bool, bool, float, str]:
    """Numbers by value before other text, empty values last."""
    number = stats_tables.number(value)
    return (value in (None, ""), number is None, number or 0, str(value))


def _sort(rows: list[Doc], report: Doc, source: Source) -> list[Doc]:
    for entry in reversed(report.get("tableOrder") or []):
        alias = source.alias(entry["column"])
        rows.sort(key=lambda r: _sort_key(r.get(alias)), reverse=entry["direction"] == "DESC")
    return rows


def _aggregate(rows: Iterable[Doc], report: Doc, source: Source) -> list[Doc]:
    """One row per group of the `groupBy` columns, with each aggregator as `FUNCTION prefix.column`."""
    keys = [source.alias(c) for c in report.get("groupBy") or []]
    groups: dict[tuple[JSON, ...], list[Doc]] = {}
    for row in rows:
        groups.setdefault(tuple(row.get(k) for k in keys), []).append(row)
    out = []
    for values, members in groups.items():
        grouped = dict(zip(keys, values, strict=True))
        for entry in report.get("aggregators") or []:
            grouped[f"{entry['function']} {entry['column']}"] = _apply(
                entry["function"], [m.get(source.alias(entry["column"])) for m in members]
            )
        out.append(grouped)
    return out


def _apply(function: str, values: Sequence[JSON]) -> str | None:
    if function == "COUNT":
        return str(sum(v is not None for v in values))
    numbers = [float(v) for v in values if stats_tables.number(v) is not None]
    if not numbers:
        return None
    result = AGGREGATE[function](numbers)
    return str(int(result)) if float(result).is_integer() else str(result)


def _guarded(source: Source, ctx: Context) -> dict[str, Resource]:
    """{alias: resource} of the documents named by a row that the caller may view only some of
    (Forbidden without view on one of them)."""
    guards = {alias: registry.resource(kind) for alias, kind in source.guards.items()}
    return {alias: resource for alias, resource in guards.items() if access.visible_owner(ctx, resource) is not None}


def _visible(rows: Iterable[Doc], guarded: Mapping[str, Resource], ctx: Context) -> Iterator[Doc]:
    """The rows whose guarded documents the caller may view, checked per chunk of rows: the documents
    they name read in one BatchGetItem per 100 (none when nothing is guarded)."""
    if not guarded:
        yield from rows
        return
    for chunk in stats_tables.chunks(rows):
        wanted = {
            resource.kind: [int(row[alias]) for row in chunk if row.get(alias) is not None]
            for alias, resource in guarded.items()
        }
        docs = references.referenced_many(wanted, ctx)
        yield from (
            row
            for row in chunk
            if all(
                row.get(alias) is None or access.viewable(ctx, resource, docs[resource.kind].get(int(row[alias])))
                for alias, resource in guarded.items()
            )
        )


def _prefixes(report: Doc) -> set[str]:
    """The table prefixes of every column the report names (which joins it needs)."""
    named = list(report.get("columns") or []) + list(report.get("groupBy") or [])
    for key in ("filters", "tableOrder", "aggregators"):
        named += [entry.get("column") for entry in report.get(key) or [] if isinstance(entry, dict)]
    return {column.split(".")[0] for column in named if isinstance(column, str)}


def _read(
    report: Doc, source: Source, span: Range, descending: bool, ctx: Context, joins: Collection[str] = ()
) -> Iterator[Doc]:
    """The source's rows in the range that the caller may see, in time order, with the columns of the
    documents they name that the report uses (and those of the `joins` prefixes)."""
    what = f"Report {report['id']}"
    guarded = _guarded(source, ctx)
    rows = source.read(descending, ctx, time_range.TooMuch(what))
    visible = _visible(time_range.within(rows, source.alias(source.date_column), span, descending, what), guarded, ctx)
    return source.join(visible, _prefixes(report) | set(joins), ctx)


def _rows(report: Doc, source: Source, span: Range, start: int, limit: int, ctx: Context) -> tuple[list[Doc], int]:
    """(rows of the page, total): read lazily in time order, or all of the range then sorted/grouped."""
    keep = _matches(report, source)
    descending = _time_order(report, source)
    grouped = bool(report.get("groupBy") or report.get("aggregators"))
    if descending is None or grouped:
        rows = [r for r in _read(report, source, span, False, ctx) if keep(r)]
        rows = _aggregate(rows, report, source) if grouped else _sort(rows, report, source)
        return rows[start : start + limit], len(rows)
    found = []
    for row in _read(report, source, span, descending, ctx):
        if keep(row):
            found.append(row)
            if len(found) > start + limit:
                break
    return found[start : start + limit], _total(report, span, len(found), ctx)


def _total(report: Doc, span: Range, counted: int, ctx: Context) -> int:
    """The rows read, or the stored count of a counted source asked without filters or range by a
    caller who sees every document of it."""
    kind = COUNTED_KINDS.get(report["source"])
    if (
        kind
        and not report.get("filters")
        and span.start is None
        and span.end is None
        and access.visible_owner(ctx, registry.resource(kind)) is None
    ):
        return store.count(kind)
    return counted


def _shown(row: Doc, report: Doc, source: Source) -> Doc:
    if report.get("groupBy") or report.get("aggregators"):
        return row
    return {source.alias(column): row.get(source.alias(column)) for column in report.get("columns") or []}


def _bound(report: Doc, ctx: Context) -> Source:
    """The report's source as this request sees it; a 400 for a definition that no longer runs, a 403
    without the view the list API of its rows needs."""
    problems = report_definitions.problems(report, ctx)
    if problems:
        raise ValidationError(problems)
    source = SOURCES[report["source"]].bind(ctx)
    for kind in {*source.guards.values(), *filter(None, [COUNTED_KINDS.get(report["source"])])}:
        access.visible_owner(ctx, registry.resource(kind))  # Forbidden without the view its list API needs
    return source


def graph_rows(report: Doc, span: Range, joins: Collection[str], ctx: Context) -> tuple[Source, list[Doc]]:
    """(bound source, rows) a report's graphs are drawn from: every row of the range that passes the
    report's filters and that the caller may see (as `run` shows them), oldest first, with the columns
    of the report's joins and of the `joins` prefixes the graph reads. Its order, grouping, columns and
    page do not apply (Mautic draws graphs from the report's query before its order and page)."""
    source = _bound(report, ctx)
    keep = _matches(report, source)
    return source, [row for row in _read(report, source, span, False, ctx, joins) if keep(row)]


def run(report: Doc, span: Range, page: int, limit: int | None, ctx: Context) -> Doc:
    """Mautic's report answer (without the `report` key): `totalResults`, `data`, `dataColumns`,
    `limit` (as asked, 0 when not: Mautic's unpaginated answer), `page`, `dateFrom`, `dateTo`, `debug`,
    `aggregatorColumns`; the rows the caller may see, at most MAX_PAGE_LIMIT a page. A report without
    columns or aggregators has no rows (Mautic does not query its table)."""
    source = _bound(report, ctx)
    size = min(limit or config.active().MAX_PAGE_LIMIT, config.active().MAX_PAGE_LIMIT)
    rows: list[Doc] = []
    total = 0
    if report.get("columns") or report.get("aggregators"):
        rows, total = _rows(report, source, span, (page - 1) * size, size, ctx)
    aggregators = {f"{e['function']} {e['column']}": e["column"] for e in report.get("aggregators") or []}
    data_columns = dict(aggregators, **{source.alias(column): column for column in source.columns})
    date_from, date_to = span.echo()
    return {
        "totalResults": total,
        "data": [_shown(row, report, source) for row in rows],
        "dataColumns": data_columns,
        "limit": min(limit, config.active().MAX_PAGE_LIMIT) if limit else 0,
        "page": page,
        "dateFrom": date_from,
        "dateTo": date_to,
        "debug": [],
        "aggregatorColumns": aggregators,
    }
