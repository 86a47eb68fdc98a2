"""Issue 34: Mautic's five standard reports are created at the first start with ids 1 to 5, once;
an instance that already had reports of its own gets none, and a first start cut short resumes."""

from chalicelib import bootstrap
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.views import default_reports
from chalicelib.domain.views.declarations import REPORT
from chalicelib.store import port as store


def reports():
    return [(r["id"], r["name"], r.get("system")) for r in store.iterate("report")]


def test_the_first_start_creates_mautics_standard_reports_with_ids_1_to_5_once(seeded_store):
    assert reports() == [(n, name, True) for n, name in enumerate(default_reports.NAMES, start=1)]
    assert [r["source"] for r in store.iterate("report")] == [
        "page.hits",
        "asset.downloads",
        "form.submissions",
        "email.stats",
        "lead.pointlog",
    ]
    service.delete(REPORT, 2, Context())
    bootstrap.first_start()
    assert [r[0] for r in reports()] == [1, 3, 4, 5]  # a deleted default stays deleted


def test_an_instance_with_reports_of_its_own_gets_none(memory_store):
    service.create(REPORT, {"name": "Mine", "source": "leads"}, Context())
    bootstrap.seed_reports()
    assert reports() == [(1, "Mine", False)]


def test_a_first_start_cut_short_resumes_where_it_stopped(memory_store):
    bootstrap.seed_fields()
    first = dict(default_reports.DEFAULTS[0], description=None)
    service.create(REPORT, first, Context(), system={"system": True})
    bootstrap.seed_reports()
    assert [r[0] for r in reports()] == [1, 2, 3, 4, 5]
