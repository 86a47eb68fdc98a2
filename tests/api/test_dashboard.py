"""Dashboard widget data: `GET /data` lists the widget types by category, `GET /data/<type>` answers
Mautic's `{success, cached, execution_time, data}` with a chart.js line chart (or `dataFormat=raw`),
counting contacts and timeline events per time bucket of the range; bad units and types are refused."""

import pytest

from tests.api.payloads import assert_error


def widget(api, widget_type, query=""):
    response = api.get(f"/api/data/{widget_type}{query}")
    assert response.status_code == 200, response.json
    assert set(response.json) == {"success", "cached", "execution_time", "data"} and response.json["success"] == 1
    return response.json["data"]


def test_widget_types_by_category(api):
    answer = api.get("/api/data").json
    assert answer["success"] == 1
    assert answer["types"]["Contact Widgets"]["created.leads.in.time"] == "Created contacts in time"
    assert "emails.in.time" in answer["types"]["Email Widgets"]
    assert "recent.activity" in answer["types"]["Core Widgets"]


def test_created_contacts_in_time_by_day(api, frozen):
    start = frozen().strftime("%Y-%m-%d")
    api.post("/api/contacts/new", {"email": "a@x.com"})
    frozen.advance(days=1)
    api.post("/api/contacts/new", {"email": "b@x.com"})
    api.post("/api/contacts/new", {"email": "c@x.com"})
    end = frozen().strftime("%Y-%m-%d")
    chart = widget(api, "created.leads.in.time", f"?timeUnit=d&dateFrom={start}&dateTo={end} 23:59:59")
    assert chart["chartType"] == "line" and chart["chartHeight"] == 220
    dataset = chart["chartData"]["datasets"][0]
    assert dataset["label"] == "Created contacts" and dataset["data"] == [1, 2]
    assert len(chart["chartData"]["labels"]) == 2 and dataset["borderColor"].startswith("rgba(")
    raw = widget(api, "created.leads.in.time", f"?timeUnit=Y&dateFrom={start}&dataFormat=raw")
    assert raw == {"Created contacts": {start[:4]: 3}}


def test_event_charts_count_the_feed(api):
    person = api.post("/api/contacts/new", {"email": "p@x.com"}).json["contact"]["id"]
    api.post(f"/api/contacts/{person}/points/plus/4")
    api.post(f"/api/contacts/{person}/points/minus/1")
    assert list(widget(api, "points.in.time", "?timeUnit=m&dataFormat=raw")["Points"].values())[-1] == 3
    assert sum(widget(api, "page.hits.in.time", "?dataFormat=raw")["Total visits"].values()) == 0
    recent = widget(api, "recent.activity", "?limit=1")
    assert len(recent["logs"]) == 1 and recent["logs"][0]["event"] == "point.gained"


def test_range_outside_the_data_is_empty(api):
    api.post("/api/contacts/new", {"email": "a@x.com"})
    raw = widget(api, "created.leads.in.time", "?timeUnit=Y&dateFrom=2001-01-01&dateTo=2002-12-31&dataFormat=raw")
    assert raw == {"Created contacts": {"2001": 0, "2002": 0}}


@pytest.mark.parametrize(
    "query, status, field",
    [
        ("?timeUnit=Q", 400, "timeUnit"),
        ("?dateFrom=nonsense", 400, "dateFrom"),
        ("?dateFrom=2024-02-01&dateTo=2024-01-01", 400, "dateTo"),
        ("?timeUnit=H&dateFrom=2000-01-01&dateTo=2024-01-01", 400, "timeUnit"),
    ],
)
def test_bad_parameters(api, query, status, field):
    response = api.get(f"/api/data/created.leads.in.time{query}")
    assert_error(response, status)
    assert field in response.json["errors"][0]["details"]


def test_unknown_widget_type_is_404(api):
    assert_error(api.get("/api/data/no.such.widget"), 404)
