"""The graphs of the visit sources, as Mautic's PageBundle, AssetBundle and FormBundle
ReportSubscribers draw them (`onReportGraphGenerate`) from the report's rows: page hits, asset
downloads and form submissions.

A hit's time on the page is its `ph.date_left` (the contact's next hit within the session, derived
as read) less its `ph.date_hit`; hits without one are left out of the time-on-site graphs, as
Mautic's `date_left IS NOT NULL`. The device of a hit is its contact's first device (hits keep none)."""

from collections import Counter
from collections.abc import Callable

from chalicelib.domain.kernel import references
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.views.charts import local
from chalicelib.domain.views.report_graph_base import Graph, Rows, count_by, grouped, line, not_null, pie, table, top

# Mautic's HitRepository::getDwellTimeLabels: (label, from second, until second)
DWELL_TIMES = (("< 1m", 0, 60), ("1 - 5m", 60, 300), ("5 - 10m", 300, 600), ("> 10m", 600, 999999))
NO_INFO = "n/a"  # mautic.core.no.info


def _seconds(rows: Rows, row: Doc) -> int | None:
    """A hit's seconds on the page, None when unknown (no `date_left`)."""
    hit, left = rows.value(row, "ph.date_hit"), rows.value(row, "ph.date_left")
    if not isinstance(hit, str) or not isinstance(left, str):
        return None
    return int((local(left) - local(hit)).total_seconds())


def _hits_line(rows: Rows, name: str) -> Doc:
    return line(rows, name, [("Page Hits", count_by(rows, "ph.date_hit"))])


def _time_on_site_line(rows: Rows, name: str) -> Doc:
    """The seconds of the hits that record when they were left, summed per bucket (Mautic's
    ChartQuery adds its `data` values; its label says average)."""
    points = [(rows.value(r, "ph.date_hit"), s) for r in rows.rows if (s := _seconds(rows, r)) is not None]
    return line(rows, name, [("Average time on site in seconds", points)])


def _time_on_site_pie(rows: Rows, name: str) -> Doc:
    times = [s for r in rows.rows if (s := _seconds(rows, r)) is not None]
    values = [(label, sum(start <= s < end for s in times)) for label, start, end in DWELL_TIMES]
    return pie(name, values, "ri-time-line")


def _new_vs_returning(rows: Rows, name: str) -> Doc:
    """Mautic's count: `Unique` the hits alone in their (date_hit, page_id) group (ChartQuery's
    `getUnique` over date_hit with page_id), `Returning` the others."""
    groups = Counter((rows.value(r, "ph.date_hit"), rows.value(r, "ph.page_id")) for r in rows.rows)
    unique = sum(1 for n in groups.values() if n == 1)
    return pie(name, [("Unique", unique), ("Returning", len(rows.rows) - unique)], "ri-information-2-line")


def _languages(rows: Rows, name: str) -> Doc:
    counts = grouped(rows, "ph.page_language")
    values = [(str(lang), n) for lang, n in counts.items() if lang not in (None, "")]
    return pie(name, values, "ri-earth-line")


def _devices(rows: Rows, name: str) -> Doc:
    """The hits by their contact's first device type (1 BatchGetItem per 100 contacts)."""
    ids = {rows.value(r, "ph.lead_id") for r in rows.rows} - {None}
    contacts = references.referenced("contact", [int(str(i)) for i in ids], rows.ctx)
    counts: Counter[str] = Counter()
    for row in rows.rows:
        lead = rows.value(row, "ph.lead_id")
        devices = (contacts.get(int(str(lead))) or {}).get("devices") if lead is not None else None
        device = (devices or [{}])[0].get("device")
        counts[str(device or NO_INFO)[:12]] += 1
    return pie(name, list(counts.items()), "ri-earth-line")


def _referrers(column: str, count: str, link: str | None = None) -> Graph:
    """A table of the most frequent referers: [{referer, <count>}] (COUNT(referer) per referer)."""

    def draw(rows: Rows, name: str) -> Doc:
        counts = grouped(rows, column, not_null(rows, column))
        items = [{"referer": referer, count: n} for referer, n in top(counts)]
        return table(name, items, "ri-login-box-line" if count == "sessions" else "ri-download-line", link)

    return Graph("table", draw)


def _most_visited(column: str, shown: str) -> Graph:
    """The pages the hits name, by their stored `p.hits` or `p.unique_hits` counter (Mautic's
    HitRepository::getMostVisited): [{title, id, <shown>}]."""

    def draw(rows: Rows, name: str) -> Doc:
        pages = {rows.value(r, "p.id"): r for r in rows.rows if rows.value(r, "p.id") is not None}
        counts = {i: int(str(rows.value(r, column) or 0)) for i, r in pages.items()}
        items = [{"title": rows.value(pages[i], "p.title"), "id": i, shown: n} for i, n in top(counts)]
        return table(name, items, "ri-eye-line", "mautic_page_action")

    return Graph("table", draw, ("p",))


def _downloads_line(rows: Rows, name: str) -> Doc:
    return line(rows, name, [("Downloads", count_by(rows, "ad.date_download"))])


def _most(id_column: str, title_column: str, shown: str, icon: str, action: str) -> Callable[[Rows, str], Doc]:
    """[{title, id, <shown>}] per document a row names (a deleted one's rows under a null id), most first
    (AssetBundle's DownloadRepository::getMostDownloaded, FormBundle's SubmissionRepository::getMostSubmitted)."""

    def draw(rows: Rows, name: str) -> Doc:
        counts = grouped(rows, id_column)
        titles = {rows.value(r, id_column): rows.value(r, title_column) for r in rows.rows}
        items = [{"title": titles.get(i), "id": i, shown: n} for i, n in top(counts)]
        return table(name, items, icon, action)

    return draw


_most_downloaded = _most("a.id", "a.title", "downloads", "ri-download-line", "mautic_asset_action")


def _statuses(rows: Rows, name: str) -> Doc:
    counts = grouped(rows, "ad.code", not_null(rows, "ad.code"))
    return pie(name, [(str(code), int(n)) for code, n in top(counts, len(counts))], "ri-earth-line")


def _submissions_line(rows: Rows, name: str) -> Doc:
    return line(rows, name, [("Submissions", count_by(rows, "fs.date_submitted"))])


_most_submitted = _most("f.id", "f.name", "submissions", "ri-check-line", "mautic_form_action")


PAGE_GRAPHS = {
    "mautic.page.graph.line.hits": Graph("line", _hits_line),
    "mautic.page.graph.line.time.on.site": Graph("line", _time_on_site_line),
    "mautic.page.graph.pie.time.on.site": Graph("pie", _time_on_site_pie),
    "mautic.page.graph.pie.new.vs.returning": Graph("pie", _new_vs_returning),
    "mautic.page.graph.pie.devices": Graph("pie", _devices),
    "mautic.page.graph.pie.languages": Graph("pie", _languages),
    "mautic.page.table.referrers": _referrers("ph.referer", "sessions"),
    "mautic.page.table.most.visited": _most_visited("p.hits", "hits"),
    "mautic.page.table.most.visited.unique": _most_visited("p.unique_hits", "sessions"),
}
ASSET_GRAPHS = {
    "mautic.asset.graph.line.downloads": Graph("line", _downloads_line),
    "mautic.asset.table.most.downloaded": Graph("table", _most_downloaded, ("a",)),
    "mautic.asset.table.top.referrers": _referrers("ad.referer", "downloads", "mautic_asset_action"),
    "mautic.asset.graph.pie.statuses": Graph("pie", _statuses),
}
FORM_GRAPHS = {
    "mautic.form.graph.line.submissions": Graph("line", _submissions_line),
    "mautic.form.table.top.referrers": _referrers("fs.referer", "sessions", "mautic_form_action"),
    "mautic.form.table.most.submitted": Graph("table", _most_submitted, ("f",)),
}
