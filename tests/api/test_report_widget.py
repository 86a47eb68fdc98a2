"""Issue 34, Mautic's `report` dashboard widget (ReportBundle's DashboardSubscriber): `GET /data` lists
the "Report Widgets" group (Mautic's official client expects 10 groups or more), and `GET
/data/report?filter[graph]=<report id>:<graph name>` answers one graph of a saved report, drawn from
the report's rows of the range (its filters apply, only rows the caller may see count), in Mautic's
widget shape. Every graph of Mautic's five standard reports answers with the numbers of created data."""

import re
from datetime import datetime, timedelta, timezone
from html import unescape
from urllib.parse import urlencode

import pytest

from tests.api.payloads import assert_error
from tests.api.test_email_send import make_email
from tests.api.test_email_tracking import _public, _send
from tests.api.test_files_assets import make_local_asset
from tests.api.test_forms_submit import make_form, post
from tests.api.test_pages_public import make_page
from tests.api.test_permissions import _as
from tests.api.test_visitors import browse

LIMITED = {
    "lead:leads": ["viewown", "editown", "create"],
    "report:reports": ["viewown", "create", "editown"],
    "email:emails": ["full"],
}


def graph(client, report_id, name, query="", status=200):
    response = client.get(f"/api/data/report?{urlencode({'filter[graph]': f'{report_id}:{name}'})}{query}")
    assert response.status_code == status, response.json
    return response.json


def chart(client, report_id, name, query=""):
    answer = graph(client, report_id, name, query)
    assert answer["success"] == 1 and answer["cached"] is False
    return answer["data"]


def line_totals(data):
    """{dataset label: sum of its points} of a line graph."""
    return {d["label"]: sum(d["data"]) for d in data["chartData"]["datasets"]}


def pie_values(data):
    labels = data["chartData"]["data"]["labels"]
    return dict(zip(labels, data["chartData"]["data"]["datasets"][0]["data"], strict=True))


def rows(data):
    return data["chartData"]["data"]


@pytest.fixture
def visits(api):
    """Three hits on a published page (two by Pia, one by Ole, one with a referer), an asset download,
    a form submission, an email sent to Pia and read, and points for both."""
    page = make_page(api)
    pia = api.post("/api/contacts/new", {"email": "pia@example.com", "city": "Oslo", "country": "Norway"}).json
    ole = api.post("/api/contacts/new", {"email": "ole@example.com", "city": "Oslo", "country": "Norway"}).json
    pia, ole = pia["contact"], ole["contact"]
    browse(api, "/spring-offer", cookie=pia["id"], Referer="https://search.example/q")
    browse(api, "/spring-offer", cookie=pia["id"])
    browse(api, "/spring-offer", cookie=ole["id"])
    asset, _ = make_local_asset(api)
    browse(api, f"/asset/{asset['id']}:notes", Referer="https://blog.example/")
    form = make_form(api)
    post(api, form["id"], {"email": "walkin@example.com"})
    mail = make_email(api, subject="Hi")
    tracking, html = _send(api, pia, mail)
    _public(api, f"/email/{tracking}.gif")
    api.post(f"/api/contacts/{pia['id']}/points/plus/3")
    api.post(f"/api/contacts/{ole['id']}/points/plus/1")
    return {"page": page, "pia": pia, "ole": ole, "asset": asset, "form": form, "mail": mail}


def test_the_type_list_has_mautics_report_group(api):
    types = api.get("/api/data").json["types"]
    assert types["Report Widgets"] == {"report": "Report Graph"}
    assert len(types) >= 10  # Mautic's DataTest::testGetListData


def test_a_line_graph_in_mautics_widget_shape(api, visits):
    data = chart(api, 1, "mautic.page.graph.line.hits", "&height=300")
    assert set(data) == {"chartData", "chartType", "chartHeight", "reportId", "dateFrom", "dateTo"}
    assert (data["chartType"], data["chartHeight"], data["reportId"]) == ("line", 210, 1)
    chart_data = data["chartData"]
    assert chart_data["name"] == "mautic.page.graph.line.hits" and len(chart_data["labels"]) == 31  # 30 days: by day
    assert chart_data["data"] == {k: v for k, v in chart_data.items() if k != "data"}  # Mautic's copy under `data`
    assert line_totals(data) == {"Page Hits": 3}
    raw = graph(api, 1, "mautic.page.graph.line.hits", "&dataFormat=raw")["data"]
    assert sum(raw["Page Hits"].values()) == 3


def test_every_graph_of_the_visits_report(api, visits):
    page = visits["page"]
    assert api.get("/api/reports/1").json["report"]["graphs"] == [
        "mautic.page.graph.line.time.on.site",
        "mautic.page.graph.line.hits",
        "mautic.page.graph.pie.new.vs.returning",
        "mautic.page.graph.pie.languages",
        "mautic.page.graph.pie.time.on.site",
        "mautic.page.table.referrers",
        "mautic.page.table.most.visited",
        "mautic.page.table.most.visited.unique",
    ]
    time_on_site = chart(api, 1, "mautic.page.graph.line.time.on.site")
    assert line_totals(time_on_site)["Average time on site in seconds"] < 60  # Pia's first hit, left by her second
    assert {k.split(";")[0]: v for k, v in pie_values(chart(api, 1, "mautic.page.graph.pie.time.on.site")).items()} == {
        "< 1m": 1,
        "1 - 5m": 0,
        "5 - 10m": 0,
        "> 10m": 0,
    }
    returning = chart(api, 1, "mautic.page.graph.pie.new.vs.returning")
    assert returning["chartType"] == "pie" and sum(pie_values(returning).values()) == 3
    assert pie_values(chart(api, 1, "mautic.page.graph.pie.languages")) == {}  # page hits carry no language
    assert sum(pie_values(chart(api, 1, "mautic.page.graph.pie.devices")).values()) == 3
    referrers = chart(api, 1, "mautic.page.table.referrers")
    assert referrers["chartType"] == "table"
    assert rows(referrers)[0] == {"referer": "https://search.example/q", "sessions": "1"}
    hits = {"title": "Spring offer", "id": str(page["id"]), "hits": "3"}
    assert rows(chart(api, 1, "mautic.page.table.most.visited")) == [hits]
    unique = rows(chart(api, 1, "mautic.page.table.most.visited.unique"))
    assert unique == [{"title": "Spring offer", "id": str(page["id"]), "sessions": "2"}]


def test_languages_of_tracked_hits(api):
    for language in ("en", "en", "cs"):
        browse(api, "/mtracking.gif?" + urlencode({"page_url": "https://site.example/p", "page_language": language}))
    made = api.post("/api/reports/new", {"name": "Hits", "source": "page.hits"}).json["report"]
    assert pie_values(chart(api, made["id"], "mautic.page.graph.pie.languages")) == {
        "en; 2x, 66.67%": 2,
        "cs; 1x, 33.33%": 1,
    }


def test_every_graph_of_the_downloads_report(api, visits):
    asset = visits["asset"]
    assert line_totals(chart(api, 2, "mautic.asset.graph.line.downloads")) == {"Downloads": 1}
    assert pie_values(chart(api, 2, "mautic.asset.graph.pie.statuses")) == {"200; 1x, 100%": 1}
    most = rows(chart(api, 2, "mautic.asset.table.most.downloaded"))
    assert most == [{"title": "Notes", "id": str(asset["id"]), "downloads": "1"}]
    assert rows(chart(api, 2, "mautic.asset.table.top.referrers")) == [
        {"referer": "https://blog.example/", "downloads": "1"}
    ]


def test_every_graph_of_the_submissions_report(api, visits):
    form = visits["form"]
    assert line_totals(chart(api, 3, "mautic.form.graph.line.submissions")) == {"Submissions": 1}
    most = rows(chart(api, 3, "mautic.form.table.most.submitted"))
    assert most == [{"title": form["name"], "id": str(form["id"]), "submissions": "1"}]
    assert rows(chart(api, 3, "mautic.form.table.top.referrers"))[0]["sessions"] in ("0", "1")


def test_every_graph_of_the_emails_report(api, visits):
    mail = visits["mail"]
    assert line_totals(chart(api, 4, "mautic.email.graph.line.stats")) == {
        "Sent emails": 1,
        "Read emails": 1,
        "Failed emails": 0,
    }
    assert pie_values(chart(api, 4, "mautic.email.graph.pie.ignored.read.failed")) == {
        "Read emails; 1x, 100%": 1,
        "Failed emails; 0x, 0%": 0,
        "Ignored emails; 0x, 0%": 0,
    }
    mine = {"id": str(mail["id"]), "title": "Hi"}
    assert rows(chart(api, 4, "mautic.email.table.most.emails.sent")) == [dict(mine, sent="1")]
    assert rows(chart(api, 4, "mautic.email.table.most.emails.read")) == [dict(mine, opens="1")]
    assert rows(chart(api, 4, "mautic.email.table.most.emails.read.percent")) == [dict(mine, ratio="100")]
    assert rows(chart(api, 4, "mautic.email.table.most.emails.failed")) == []
    assert rows(chart(api, 4, "mautic.email.table.most.emails.unsubscribed")) == []
    assert rows(chart(api, 4, "mautic.email.table.most.emails.bounced")) == []
    assert rows(chart(api, 4, "mautic.email.table.most.emails.clicks")) == []


def test_clicks_of_the_reports_sends(api, visits):
    pia, ole, mail = visits["pia"], visits["ole"], visits["mail"]
    tracking, html = _send(api, ole, mail)
    link = unescape(re.search(r'href="https?://[^/]+(/r/[^"]+)"', html).group(1))
    for _ in range(2):
        assert _public(api, link).status_code == 302
    assert rows(chart(api, 4, "mautic.email.table.most.emails.clicks")) == [
        {"id": str(mail["id"]), "title": "Hi", "clicks": "2", "unique clicks": "1", "URL": "https://shop.example/offer"}
    ]
    pias = api.post(
        "/api/reports/new",
        {
            "name": "Pia's sends",
            "source": "email.stats",
            "filters": [{"column": "es.lead_id", "condition": "eq", "value": str(pia["id"])}],
        },
    ).json["report"]
    assert rows(chart(api, pias["id"], "mautic.email.table.most.emails.clicks")) == []  # Ole's clicks: no send of it


def test_unsubscribes_are_counted_per_email(api, visits):
    pia, mail = visits["pia"], visits["mail"]
    added = api.post(f"/api/contacts/{pia['id']}/dnc/email/add", {"reason": 1, "channelId": mail["id"]})
    assert added.status_code == 200, added.json
    assert rows(chart(api, 4, "mautic.email.table.most.emails.unsubscribed")) == [
        {"id": str(mail["id"]), "title": "Hi", "unsubscribed": "1"}
    ]


def test_every_graph_of_the_points_report(api, visits):
    pia = visits["pia"]
    points = chart(api, 5, "mautic.lead.graph.line.points")
    changes = line_totals(points)["Points"]
    assert changes >= 2  # Pia's +3 and Ole's +1, and any the visits scored
    most = rows(chart(api, 5, "mautic.lead.table.most.points"))
    assert most[0] == {"id": str(pia["id"]), "title": "pia@example.com", "points": "3"}
    assert rows(chart(api, 5, "mautic.lead.table.top.cities"))[0] == {"title": "Oslo", "quantity": str(changes)}
    assert rows(chart(api, 5, "mautic.lead.table.top.countries"))[0] == {"title": "Norway", "quantity": str(changes)}
    events = rows(chart(api, 5, "mautic.lead.table.top.events"))
    assert sum(int(r["events"]) for r in events) == changes
    actions = rows(chart(api, 5, "mautic.lead.table.top.actions"))
    assert all(set(r) == {"title", "actions"} for r in actions)
    assert line_totals(chart(api, 5, "mautic.lead.graph.line.leads")) == {
        "All contacts": changes,
        "Identified": changes,
    }  # with an email: identified


def test_a_contacts_report_draws_new_contacts(api, visits):
    made = api.post("/api/reports/new", {"name": "People", "source": "leads"}).json["report"]
    totals = line_totals(chart(api, made["id"], "mautic.lead.graph.line.leads"))
    assert totals["All contacts"] == len(api.get("/api/contacts?limit=100").json["contacts"])


def test_the_range_bounds_the_rows_and_picks_the_unit(api, visits):
    today = datetime.now(timezone.utc).date()
    past = f"&dateFrom={today - timedelta(days=400)}&dateTo={today - timedelta(days=200)}"
    old = chart(api, 1, "mautic.page.graph.line.hits", past)
    assert line_totals(old) == {"Page Hits": 0}
    assert re.fullmatch(r"[A-Z][a-z]{2} \d{4}", old["chartData"]["labels"][0])  # 200 days: by month
    assert old["dateFrom"].startswith(str(today - timedelta(days=400)))
    assert rows(chart(api, 1, "mautic.page.table.most.visited", past)) == []
    day = f"&dateFrom={today}&dateTo={today}"  # to the end of the day (now), as Mautic's report
    hourly = chart(api, 1, "mautic.page.graph.line.hits", day)
    assert line_totals(hourly) == {"Page Hits": 3} and re.fullmatch(
        r"[A-Z][a-z]{2} \d\d, \d\d:00", hourly["chartData"]["labels"][0]
    )
    assert hourly["dateTo"].startswith(f"{today}T00:00:00")  # echoed as asked


@pytest.mark.parametrize("value", ["", "1", "x:mautic.page.graph.line.hits", "1:", "0:a", "1:a b"])
def test_a_malformed_graph_is_a_400_naming_it(api, value):
    response = api.get(f"/api/data/report?{urlencode({'filter[graph]': value})}")
    assert_error(response, 400)
    assert "filter[graph]" in response.json["errors"][0]["details"]
    assert_error(api.get("/api/data/report"), 400)


def test_unknown_reports_and_graphs_are_404(api):
    assert graph(api, 99, "mautic.page.graph.line.hits", status=404)["errors"][0]["code"] == 404
    assert "no graph" in graph(api, 1, "mautic.email.graph.line.stats", status=404)["errors"][0]["message"]
    assert "no graph" in graph(api, 1, "mautic.page.graph.nothing", status=404)["errors"][0]["message"]


def test_a_limited_user_sees_only_her_reports_and_her_rows(api):
    her = _as(api, "mallory", LIMITED)
    mine = her.post("/api/contacts/new", {"email": "mine@example.com"}).json["contact"]
    theirs = api.post("/api/contacts/new", {"email": "theirs@example.com"}).json["contact"]
    mail = make_email(api, subject="Hi")
    for contact in (mine, theirs):
        assert api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send").json == {"success": True}
    assert "Report Widgets" in her.get("/api/data").json["types"]
    assert_error(her.get(f"/api/data/report?{urlencode({'filter[graph]': '4:mautic.email.graph.line.stats'})}"), 403)
    admins = api.post("/api/reports/new", {"name": "Admin's", "source": "email.stats"}).json["report"]
    graph(her, admins["id"], "mautic.email.graph.line.stats", status=403)
    own = her.post("/api/reports/new", {"name": "Mine", "source": "email.stats"}).json["report"]
    assert line_totals(chart(her, own["id"], "mautic.email.graph.line.stats"))["Sent emails"] == 1
    assert line_totals(chart(api, own["id"], "mautic.email.graph.line.stats"))["Sent emails"] == 2
    sent = chart(her, own["id"], "mautic.email.table.most.emails.sent")
    assert "theirs@example.com" not in str(sent)
    no_reports = _as(api, "nobody", {"lead:leads": ["full"]})
    assert "Report Widgets" not in no_reports.get("/api/data").json["types"]
    assert_error(no_reports.get("/api/data/report?filter[graph]=1:mautic.page.graph.line.hits"), 403)


@pytest.mark.aws  # counts DynamoDB calls: over moto
def test_a_graph_reads_the_report_s_rows_in_batches(api):
    """The `All Emails` graphs read the send records, the emails and the contacts per chunk of rows,
    not one by one: measured 17 calls at 12 sends (2 GetItem, 7 BatchGetItem, 8 Query: the feed's
    keys), 19 at 48."""
    from tests.api.test_views_costs import cost, sends

    measured = {}
    for count in (12, 36):
        sends(api, count)
        path = "/api/data/report?" + urlencode({"filter[graph]": "4:mautic.email.table.most.emails.unsubscribed"})
        measured[count] = cost(api, path)
        assert "GetItem" not in measured[count] or measured[count]["GetItem"] <= 2, measured
    assert sum(measured[36].values()) <= sum(measured[12].values()) + 6, measured


def test_time_on_site_is_the_time_to_the_contact_s_next_hit(api, frozen):
    """A hit is left when the same contact's next hit comes within Mautic's 1800 s session
    (`contacts/time_on_page.py`); the last hit, and one followed only after the session, are not."""
    make_page(api)
    pia = api.post("/api/contacts/new", {"email": "pia@example.com"}).json["contact"]
    start = frozen.moment.replace(microsecond=0)
    for seconds in (0, 200, 200 + 2000):
        frozen.moment = start + timedelta(seconds=seconds)
        browse(api, "/spring-offer", cookie=pia["id"])
    assert line_totals(chart(api, 1, "mautic.page.graph.line.time.on.site")) == {"Average time on site in seconds": 200}
    pie = pie_values(chart(api, 1, "mautic.page.graph.pie.time.on.site"))
    assert pie == {"< 1m; 0x, 0%": 0, "1 - 5m; 1x, 100%": 1, "5 - 10m; 0x, 0%": 0, "> 10m; 0x, 0%": 0}
