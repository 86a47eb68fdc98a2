"""Issue 34: `/api/data` lists Mautic's whole widget catalogue (every bundle's dashboard widget
types) and `GET /api/data/<type>` answers each with the shape Mautic's widget has (line and bar
charts: labels + datasets; pies: one dataset of values and colours; tables: headItems + bodyItems,
`raw` rows with `dataFormat=raw`; the map; the upcoming emails; the lifecycle), computed from our
data with Mautic's parameters, counting only the documents the caller may view."""

import re
from html import unescape

import pytest

from tests.api.payloads import assert_error
from tests.api.test_automations import action, new_automation
from tests.api.test_email_send import make_email, parts, sent_messages
from tests.api.test_pages_public import fetch, make_page
from tests.api.test_permissions import _as
from tests.api.test_stats_catalogue import world  # noqa: F401 - the fixture
from tests.conftest import visitor_cookie

CATALOGUE = {
    "Core Widgets": {"recent.activity"},
    "Asset Widgets": {"asset.downloads.in.time", "unique.vs.repetitive.downloads", "popular.assets", "created.assets"},
    "Campaign Widgets": {"events.in.time", "leads.added.in.time"},
    "Email Widgets": {
        "emails.in.time",
        "sent.email.to.contacts",
        "most.hit.email.redirects",
        "ignored.vs.read.emails",
        "upcoming.emails",
        "most.sent.emails",
        "most.read.emails",
        "created.emails",
        "device.granularity.email",
        "emails.best.hours",
    },
    "Form Widgets": {"submissions.in.time", "top.submission.referrers", "top.submitters", "created.forms"},
    "Contact Widgets": {
        "created.leads.in.time",
        "anonymous.vs.identified.leads",
        "lead.lifetime",
        "map.of.leads",
        "top.lists",
        "segments.build.time",
        "top.creators",
        "top.owners",
        "created.leads",
    },
    "Page Widgets": {
        "page.hits.in.time",
        "unique.vs.returning.leads",
        "dwell.times",
        "popular.pages",
        "created.pages",
        "device.granularity",
    },
    "Point Widgets": {"points.in.time"},
    "Stage Widgets": {"stages.in.time"},
    "Report Widgets": {"report"},  # a report's graph: tests/api/test_report_widget.py
}
LINES = {
    "asset.downloads.in.time": ("Download count", 1),
    "events.in.time": ("Events triggered", 1),
    "leads.added.in.time": ("Leads added", 2),  # ann in one automation, bob in the other
    "emails.in.time": ("Sent emails", 1),
    "submissions.in.time": ("Submission count", 1),
    "page.hits.in.time": ("Total visits", 4),  # the pixel, the click, two landing page visits
    "points.in.time": ("Points", 12),
    "stages.in.time": ("Stage changes", 1),
}
PIES = {
    "unique.vs.repetitive.downloads": [1, 0],
    "ignored.vs.read.emails": [0, 1, 0],
    "dwell.times": [2, 0, 0, 0],  # ann's click and first visit, left at once; her last hit and the pixel's never
    "device.granularity.email": [1],
}


def widget(client, widget_type, query=""):
    response = client.get(f"/api/data/{widget_type}{query}")
    assert response.status_code == 200, (widget_type, response.json)
    assert set(response.json) == {"success", "cached", "execution_time", "data"} and response.json["success"] == 1
    return response.json["data"]


@pytest.fixture
def more(api, world):  # noqa: F811 - the fixture
    """On top of the stats world: a click on the email's link, a landing page visited twice, an
    email an automation will send in two days, ann's country and owner."""
    link = unescape(re.search(r'href="https?://[^/]+(/r/[^"]+)"', parts(sent_messages()[0])[1]).group(1))
    assert api.http.request("GET", link, headers={"Accept": "*/*"}, body=b"").status_code == 302
    page = make_page(api)
    for _ in range(2):
        assert fetch(api, "/spring-offer", {"Cookie": visitor_cookie(world["ann"]["id"])}).status_code == 200
    later = make_email(api, name="Later")
    step = action("new1", "email.send", {"email": later["id"]}, triggerMode="interval", triggerInterval=2)
    automation = new_automation(api, [dict(step, triggerIntervalUnit="d")], name="Later")
    api.post(f"/api/automations/{automation['id']}/contact/{world['other']['id']}/add")
    me = api.get("/api/users/self").json["id"]
    api.patch(f"/api/contacts/{world['ann']['id']}/edit", {"country": "Czech Republic", "owner": me})
    return dict(world, page=page, later=later, me=me)


def test_the_catalogue_lists_every_widget_by_category(api):
    answer = api.get("/api/data").json
    assert answer["success"] == 1
    assert {category: set(types) for category, types in answer["types"].items()} == CATALOGUE
    assert answer["types"]["Contact Widgets"]["map.of.leads"] == "Map"


def test_line_charts_count_our_events(api, more):
    for widget_type, (label, total) in LINES.items():
        chart = widget(api, widget_type, "?timeUnit=d")
        assert chart["chartType"] == "line" and set(chart["chartData"]) == {"labels", "datasets"}, widget_type
        raw = widget(api, widget_type, "?timeUnit=d&dataFormat=raw")
        assert sum(raw[label].values()) == total, (widget_type, raw)


def test_pies_and_the_bar_chart(api, more):
    for widget_type, values in PIES.items():
        chart = widget(api, widget_type)
        assert chart["chartType"] == "pie" and chart["chartHeight"] == 220, widget_type
        (dataset,) = chart["chartData"]["datasets"]
        assert dataset["data"] == values and len(dataset["backgroundColor"]) == len(values), (widget_type, dataset)
    identified = widget(api, "anonymous.vs.identified.leads")
    assert sum(identified["chartData"]["datasets"][0]["data"]) == int(api.get("/api/contacts").json["total"])
    assert widget(api, "ignored.vs.read.emails")["chartData"]["labels"][1] == "Read; 1x, 100%"
    assert sum(widget(api, "unique.vs.returning.leads")["chartData"]["datasets"][0]["data"]) >= 1
    assert sum(widget(api, "device.granularity")["chartData"]["datasets"][0]["data"]) == 4  # every page hit
    assert widget(api, "unique.vs.repetitive.downloads", "?dataFormat=raw") == {
        "": {"Unique; 1x, 100%": 1, "Repetitive; 0x, 0%": 0}
    }
    bars = widget(api, "emails.best.hours")
    assert bars["chartType"] == "bar" and len(bars["chartData"]["labels"]) == 24
    assert sum(bars["chartData"]["datasets"][0]["data"]) == 100


def _raw(client, widget_type, query=""):
    table = widget(client, widget_type, query)
    assert set(table) == {"headItems", "bodyItems"} and "raw" not in table, widget_type
    assert len(table["bodyItems"]) == len(widget(client, widget_type, "?dataFormat=raw" + query.replace("?", "&")))
    return widget(client, widget_type, "?dataFormat=raw" + query.replace("?", "&"))


def test_tables_count_our_documents_and_events(api, more):
    ann = more["ann"]["id"]
    assert _raw(api, "popular.assets") == [{"download_count": 1, "id": more["asset"]["id"], "title": "Notes"}]
    assert more["asset"]["id"] in [r["id"] for r in _raw(api, "created.assets")]
    assert _raw(api, "most.sent.emails") == [{"count": 1, "id": more["mail"]["id"], "name": "Welcome"}]
    assert _raw(api, "most.read.emails")[0]["count"] == 1
    assert {more["mail"]["id"], more["later"]["id"]} <= {r["id"] for r in _raw(api, "created.emails")}
    assert [r["submissions"] for r in _raw(api, "top.submission.referrers")] == [1]
    assert [(r["lead_id"], r["submissions"]) for r in _raw(api, "top.submitters")] == [(ann, 1)]
    assert [r["id"] for r in _raw(api, "created.forms")] == [more["form"]["id"]]
    assert [(r["id"], r["leads"]) for r in _raw(api, "top.lists")] == [(more["segment"]["id"], 2)]
    assert [r["id"] for r in _raw(api, "segments.build.time")] == [more["segment"]["id"]]
    assert [(r["owner_id"], r["leads"]) for r in _raw(api, "top.owners")] == [(more["me"], 1)]
    assert sum(r["leads"] for r in _raw(api, "top.creators")) >= 2
    assert ann in [r["id"] for r in _raw(api, "created.leads")]
    assert [(r["id"], r["hits"]) for r in _raw(api, "popular.pages")] == [(more["page"]["id"], 2)]
    assert [r["id"] for r in _raw(api, "created.pages")] == [more["page"]["id"]]
    sent = widget(api, "sent.email.to.contacts")
    assert len(sent["headItems"]) == 15 and [(r["contact_id"], r["email_id"]) for r in sent["bodyItems"]] == [
        (ann, more["mail"]["id"])
    ]
    (redirect,) = widget(api, "most.hit.email.redirects")["bodyItems"]
    assert (redirect["url"], redirect["hits"], redirect["email_id"]) == (
        "https://shop.example/offer",
        1,
        more["mail"]["id"],
    )


def test_map_upcoming_lifecycle_and_recent_activity(api, more):
    assert widget(api, "map.of.leads") == {"height": 300, "data": {"CZ": 1}}
    (upcoming,) = widget(api, "upcoming.emails")["upcomingEmails"]
    assert upcoming["lead_id"] == more["other"]["id"] and upcoming["trigger_date"] > "2000"
    lifetime = widget(api, "lead.lifetime")
    assert (lifetime["columnName"], lifetime["value"], lifetime["chartType"]) == (["VIP"], [2], "pie")  # top segments
    recent = widget(api, "recent.activity", "?limit=2")
    assert len(recent["logs"]) == 2 and "point.gained" in recent["icons"]
    assert widget(api, "recent.activity", "?limit=2&dataFormat=raw") == recent["logs"]


def test_a_limited_user_counts_only_her_documents(api, more):
    mailer = _as(api, "mailer", {"email:emails": ["viewown", "create"]})
    mine = mailer.post("/api/emails/new", {"name": "Mine", "subject": "S", "customHtml": "<p>x</p>"}).json["email"]
    assert _raw(mailer, "most.sent.emails") == []  # the administrator's email is not hers
    assert [r["id"] for r in _raw(mailer, "created.emails")] == [mine["id"]]
    assert sum(widget(mailer, "emails.in.time", "?dataFormat=raw")["Sent emails"].values()) == 0
    assert widget(mailer, "ignored.vs.read.emails")["chartData"]["datasets"][0]["data"] == [0, 0, 0]
    assert widget(mailer, "most.hit.email.redirects")["bodyItems"] == []
    assert_error(mailer.get("/api/data/sent.email.to.contacts"), 403)  # it lists contacts: she may view none
    assert widget(api, "ignored.vs.read.emails")["chartData"]["datasets"][0]["data"] == [0, 1, 0]
    for other in ("popular.assets", "top.owners", "map.of.leads", "stages.in.time", "popular.pages"):
        assert_error(mailer.get(f"/api/data/{other}"), 403)
    own = _as(api, "own", {"lead:leads": ["viewown", "create"]})
    assert_error(own.get("/api/data/top.owners"), 403)  # Mautic: counting others' contacts needs viewother
    assert widget(own, "map.of.leads")["data"] == {}
    assert _raw(own, "created.leads") == []


def _total(client, widget_type, label):
    return sum(widget(client, widget_type, "?timeUnit=m&dataFormat=raw")[label].values())


def test_points_and_stages_in_time_count_only_the_contacts_she_may_view(api):
    """Issue 39: both widgets counted every contact's points and stage changes for a caller who may
    view only her own contacts, or none."""
    own = _as(api, "own", {"lead:leads": ["viewown"], "point:points": ["view"], "stage:stages": ["view"]})
    blind = _as(api, "blind", {"point:points": ["view"], "stage:stages": ["view"]})
    stage = api.post("/api/stages/new", {"name": "Lead", "weight": 10}).json["stage"]
    for email, owner, points in (("hers@example.com", own.user_id, 5), ("other@example.com", None, 7)):
        made = api.post("/api/contacts/new", {"email": email, "owner": owner}).json["contact"]
        assert api.post(f"/api/contacts/{made['id']}/points/plus/{points}").status_code == 200
        assert api.post(f"/api/stages/{stage['id']}/contact/{made['id']}/add").status_code == 200
    assert (_total(api, "points.in.time", "Points"), _total(api, "stages.in.time", "Stage changes")) == (12, 2)
    assert (_total(own, "points.in.time", "Points"), _total(own, "stages.in.time", "Stage changes")) == (5, 1)
    assert (_total(blind, "points.in.time", "Points"), _total(blind, "stages.in.time", "Stage changes")) == (0, 0)
