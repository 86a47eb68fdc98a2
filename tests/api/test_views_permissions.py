"""What a role needs for the views: reports as `report:reports` (own/other), widgets by their
category's view permission (the list shows only those), themes as `core:themes`."""

from tests.api.payloads import assert_error
from tests.api.test_permissions import _as


def test_reports_need_report_permissions_and_others_reports_viewother(api):
    theirs = api.post("/api/reports/new", {"name": "Admin's", "source": "leads"}).json["report"]
    reader = _as(api, "reader", {"report:reports": ["viewown", "create"], "lead:leads": ["viewown"]})
    assert_error(reader.get(f"/api/reports/{theirs['id']}"), 403)
    mine = reader.post("/api/reports/new", {"name": "Mine", "source": "leads", "columns": ["l.id"]})
    assert mine.status_code == 201
    assert reader.get(f"/api/reports/{mine.json['report']['id']}").json["totalResults"] == 0
    assert [r["name"] for r in reader.get("/api/reports").json["reports"]] == ["Mine"]
    nobody = _as(api, "nobody", {"email:emails": ["viewown"]})
    assert_error(nobody.get("/api/reports"), 403)


def test_widgets_by_category_and_themes_by_core_themes(api):
    mailer = _as(api, "mailer", {"email:emails": ["viewown"]})
    assert list(mailer.get("/api/data").json["types"]) == ["Email Widgets"]
    assert mailer.get("/api/data/emails.in.time").status_code == 200
    assert_error(mailer.get("/api/data/created.leads.in.time"), 403)
    assert_error(mailer.get("/api/themes"), 403)
    designer = _as(api, "designer", {"core:themes": ["view"]})
    assert "blank" in designer.get("/api/themes").json["themes"]
    assert_error(designer.delete("/api/themes/blank/delete"), 403)
    assert_error(designer.get("/api/data"), 403)
