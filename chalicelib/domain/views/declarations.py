"""The resource of the views: report definitions (Mautic's Report entity)."""
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import Resource, read_only
from chalicelib.domain.views.report_definitions import ReportHooks
from chalicelib.domain.views.report_sources import SOURCES

t, b, arr, o = a.text, a.boolean, a.array, a.obj

REPORT = Resource(
    "report", "reports", "report", "reports", audit="A-", keyed_list=False, permission="report:reports",
    attrs=(t("name", required=True), t("description"), read_only(b("system")), b("isScheduled"),
           a.choice("source", *SOURCES, required=True), arr("columns"), arr("filters"), arr("tableOrder"),
           arr("graphs"), arr("groupBy"), o("settings"), arr("aggregators"),
           a.choice("scheduleUnit", "now", "DAILY", "WEEKLY", "MONTHLY"), t("toAddress"), t("scheduleDay"),
           t("scheduleMonthFrequency")),
    commands=frozenset({"ids", "is:published", "is:unpublished", "is:mine"}),
    minimal_exclude=("source", "columns", "filters", "tableOrder", "graphs", "groupBy", "settings", "aggregators",
                     "scheduleUnit", "toAddress", "scheduleDay", "scheduleMonthFrequency"),
    hooks=ReportHooks())
