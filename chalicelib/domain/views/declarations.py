"""The resource of the views: report definitions (Mautic's Report entity)."""

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import STANDARD_OPERATIONS, Resource, read_only
from chalicelib.domain.views.report_definitions import ReportHooks
from chalicelib.domain.views.report_sources import SOURCES

REPORT = Resource(
    kind="report",
    prefix="reports",
    singular="report",
    plural="reports",
    routes="reports",
    operations=STANDARD_OPERATIONS - {"get"},  # `api/reports.py` answers a report with its run
    batch=False,
    audit="A-",
    keyed_list=False,
    permission="report:reports",
    attrs=(
        a.text("name", required=True),
        a.text("description"),
        read_only(a.boolean("system")),
        a.boolean("isScheduled"),
        a.choice("source", *SOURCES, required=True),
        a.array("columns"),
        a.array("filters"),
        a.array("tableOrder"),
        a.array("graphs"),
        a.array("groupBy"),
        a.obj("settings"),
        a.array("aggregators"),
        a.choice("scheduleUnit", "now", "DAILY", "WEEKLY", "MONTHLY"),
        a.text("toAddress"),
        a.text("scheduleDay"),
        a.text("scheduleMonthFrequency"),
    ),
    commands=frozenset({"ids", "is:published", "is:unpublished", "is:mine"}),
    minimal_exclude=(
        "source",
        "columns",
        "filters",
        "tableOrder",
        "graphs",
        "groupBy",
        "settings",
        "aggregators",
        "scheduleUnit",
        "toAddress",
        "scheduleDay",
        "scheduleMonthFrequency",
    ),
    hooks=ReportHooks(),
)

# The resources this capability declares, registered by `domain/wiring.py`.
RESOURCES = (REPORT,)
