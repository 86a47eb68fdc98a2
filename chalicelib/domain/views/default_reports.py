"""Mautic's standard reports, which its installer creates (InstallBundle's `LoadReportData` fixture
over `fakereportdata.csv`), so that `GET /reports/1` answers on a new instance as on a new Mautic:
the same names, sources, columns, filters, orders and graphs, in the same order, hence ids 1 to 5.

They are created at the first start (`bootstrap.first_start`), once: a marker records it, so a
default report deleted later stays deleted. An instance that already had reports of its own when
this arrived gets none (ids 1 to 5 may be taken): the defaults are created only while every report
stored is one of them and their ids run from 1 (a first start cut short resumes where it stopped).
"""

from collections.abc import Callable

from chalicelib.domain.kernel.types import Doc
from chalicelib.store import port as store

MARKER = "default-reports"


def _published(column: str) -> Doc:
    return {"column": column, "condition": "eq", "value": "1"}


def _ascending(column: str) -> list[Doc]:
    return [{"column": column, "direction": "ASC"}]


DEFAULTS: tuple[Doc, ...] = (
    {
        "name": "Visits published Pages",
        "source": "page.hits",
        "columns": ["ph.date_hit", "ph.url", "ph.url_title", "ph.referer", "i.ip_address", "ph.city", "ph.country"],
        "filters": [{"column": "ph.code", "condition": "eq", "value": "200"}, _published("p.is_published")],
        "tableOrder": _ascending("ph.date_hit"),
        "graphs": [
            "mautic.page.graph.line.time.on.site",
            "mautic.page.graph.line.hits",
            "mautic.page.graph.pie.new.vs.returning",
            "mautic.page.graph.pie.languages",
            "mautic.page.graph.pie.time.on.site",
            "mautic.page.table.referrers",
            "mautic.page.table.most.visited",
            "mautic.page.table.most.visited.unique",
        ],
    },
    {
        "name": "Downloads of all Assets",
        "source": "asset.downloads",
        "columns": ["ad.date_download", "a.title", "i.ip_address", "l.firstname", "l.lastname", "l.email", "a.id"],
        "filters": [_published("a.is_published")],
        "tableOrder": _ascending("ad.date_download"),
        "graphs": [
            "mautic.asset.graph.line.downloads",
            "mautic.asset.graph.pie.statuses",
            "mautic.asset.table.most.downloaded",
            "mautic.asset.table.top.referrers",
        ],
    },
    {
        "name": "Submissions of published Forms",
        "source": "form.submissions",
        "columns": [],
        "filters": [_published("f.is_published")],
        "tableOrder": [],
        "graphs": [
            "mautic.form.graph.line.submissions",
            "mautic.form.table.most.submitted",
            "mautic.form.table.top.referrers",
        ],
    },
    {
        "name": "All Emails",
        "source": "email.stats",
        "columns": ["es.date_sent", "es.date_read", "e.subject", "es.email_address", "e.id"],
        "filters": [_published("e.is_published")],
        "tableOrder": _ascending("es.date_sent"),
        "graphs": [
            "mautic.email.graph.line.stats",
            "mautic.email.graph.pie.ignored.read.failed",
            "mautic.email.table.most.emails.read",
            "mautic.email.table.most.emails.sent",
            "mautic.email.table.most.emails.read.percent",
            "mautic.email.table.most.emails.failed",
        ],
    },
    {
        "name": "Leads and Points",
        "source": "lead.pointlog",
        "columns": ["lp.date_added", "lp.type", "lp.event_name", "l.firstname", "l.lastname", "l.email", "lp.delta"],
        "filters": [],
        "tableOrder": _ascending("lp.date_added"),
        "graphs": [
            "mautic.lead.graph.line.points",
            "mautic.lead.table.most.points",
            "mautic.lead.table.top.actions",
            "mautic.lead.table.top.cities",
            "mautic.lead.table.top.countries",
            "mautic.lead.table.top.events",
        ],
    },
)
NAMES = [report["name"] for report in DEFAULTS]


def seed_defaults(create: Callable[[Doc], object]) -> None:
    """Create the default reports missing, in order, while only defaults were ever stored;
    `create(payload)` stores one as a system report. Once done, one GetItem (the marker)."""
    if store.marked(MARKER):
        return
    existing = [report.get("name") for report in store.iterate("report")]
    if existing == NAMES[: len(existing)] and store.last_id("report") == len(existing):
        for payload in DEFAULTS[len(existing) :]:
            create(dict(payload, description=None, isPublished=True))
    store.claim(MARKER)
