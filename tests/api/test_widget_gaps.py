"""Issue 34's widget gaps: `dwell.times` from the time on page (a hit is left when its contact's
next hit comes within Mautic's 1800 s session), shown also as the `page_hits` stats' `date_left` and
the activity's `details.dateLeft`; `lead.lifetime`'s stages and devices bars; `segments.build.time`
ordered by the last build's duration. Each counts only what the caller may view."""

from datetime import timedelta

import pytest

from tests.api.payloads import assert_error
from tests.api.test_pages_public import fetch, make_page
from tests.api.test_permissions import _as
from tests.api.test_stages import move, new_stage
from tests.conftest import visitor_cookie

DB = "%Y-%m-%d %H:%M:%S"
# seconds after the first hit: on the page 30 s, 3 min, 7 min, 11 min, then a 30 min gap (a new visit)
VISITS = (0, 30, 210, 630, 1290, 3090)


def widget(client, widget_type, query=""):
    response = client.get(f"/api/data/{widget_type}{query}")
    assert response.status_code == 200, (widget_type, response.json)
    return response.json["data"]


def _contact(api, email):
    response = api.post("/api/contacts/new", {"email": email})
    assert response.status_code == 201, response.json
    return response.json["contact"]


def _visit(api, frozen, contact, alias, at, start):
    frozen.moment = start + timedelta(seconds=at)
    assert fetch(api, f"/{alias}", {"Cookie": visitor_cookie(contact["id"])}).status_code == 200


@pytest.fixture
def visits(api, frozen):
    """The six hits of ann on the offer page at VISITS (frozen time), and the moment of the first."""
    page = make_page(api)
    ann = _contact(api, "ann@example.com")
    start = frozen.moment.replace(microsecond=0) + timedelta(minutes=1)
    for at in VISITS:
        _visit(api, frozen, ann, page["alias"], at, start)
    return {"page": page, "ann": ann, "start": start}


def _dwell(client, query=""):
    return widget(client, "dwell.times", query)["chartData"]["datasets"][0]["data"]


def test_dwell_times_count_each_hit_by_its_time_on_page(api, visits):
    chart = widget(api, "dwell.times")
    assert chart["chartType"] == "pie" and chart["chartHeight"] == 220
    assert chart["chartData"]["labels"] == ["< 1m; 1x, 25%", "1 - 5m; 1x, 25%", "5 - 10m; 1x, 25%", "> 10m; 1x, 25%"]
    assert _dwell(api) == [1, 1, 1, 1]  # the hit followed 30 min later and the last one were never left


def test_a_hit_in_the_range_is_left_by_a_hit_after_it(api, visits):
    until = (visits["start"] + timedelta(seconds=100)).strftime(DB)
    assert _dwell(api, f"?dateTo={until}") == [1, 1, 0, 0]  # the 2nd hit left at the 3rd, past dateTo


def test_the_stats_and_the_activity_show_when_a_hit_was_left(api, visits):
    start, ann = visits["start"], visits["ann"]["id"]
    left = [(start + timedelta(seconds=s)).strftime(DB) for s in VISITS[1:5]] + [None, None]
    mine = f"where[0][col]=lead_id&where[0][val]={ann}"
    for query, expected in (
        (mine, left),
        (f"{mine}&order[0][col]=id&order[0][dir]=desc", left[::-1]),
        ("where[0][col]=page_id&where[0][val]=" + str(visits["page"]["id"]), left),  # the feed, oldest first
    ):
        rows = api.get(f"/api/stats/page_hits?{query}").json["stats"]
        assert [r["date_left"] for r in rows] == expected, query
    only_left = api.get(f"/api/stats/page_hits?{mine}&where[1][col]=date_left&where[1][expr]=isNotNull").json
    assert int(only_left["total"]) == 4
    for path in (f"/api/contacts/{ann}/activity", "/api/contacts/activity"):
        events = api.get(f"{path}?filters[includeEvents][]=page.hit&order[0]=timestamp&order[1]=ASC").json["events"]
        dates = [e["details"]["dateLeft"] for e in events if e["contactId"] == ann]
        assert dates == [(start + timedelta(seconds=s)).isoformat() for s in VISITS[1:5]] + [None, None], path


def test_a_limited_user_counts_only_the_hits_of_her_pages(api, frozen, visits):
    pages = _as(api, "pager", {"page:pages": ["viewown", "create", "publishown"]})
    mine = pages.post("/api/pages/new", {"title": "Her page", "customHtml": "<p>x</p>"}).json["page"]
    bob = _contact(api, "bob@example.com")
    later = visits["start"] + timedelta(hours=2)
    for at, alias in ((0, mine["alias"]), (90, visits["page"]["alias"]), (100, mine["alias"])):
        _visit(api, frozen, bob, alias, at, later)
    assert _dwell(pages) == [0, 1, 0, 0]  # her page's hit left after 90 s; the last one never left
    assert _dwell(api) == [2, 2, 1, 1]  # and bob's hit on the offer page, left after 10 s


# --- lead.lifetime: stages and devices ------------------------------------------------------------

PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"


@pytest.fixture
def lifecycle(api):
    """Segment VIP holds ann (a phone, stage Prospect) and bob (a desktop, Prospect, owned by `owner`);
    Others holds ann and cat (stage "Customer for life", no device); Dormant (unpublished stage) dan."""
    owner = _as(api, "owner", {"lead:leads": ["viewown"], "lead:lists": ["viewother"], "stage:stages": ["view"]})
    stages = {name: new_stage(api, name) for name in ("Prospect", "Customer for life")}
    stages["Dormant"] = new_stage(api, "Dormant", isPublished=False)
    people = {}
    for name, stage, agent in (
        ("ann", "Prospect", PHONE),
        ("bob", "Prospect", DESKTOP),
        ("cat", "Customer for life", None),
        ("dan", "Dormant", None),
    ):
        people[name] = _contact(api, f"{name}@example.com")
        assert move(api, stages[stage]["id"], people[name]["id"]).status_code == 200
        if agent:
            assert api.post(f"/api/contacts/{people[name]['id']}/utm/add", {"useragent": agent}).status_code == 200
    api.patch(f"/api/contacts/{people['bob']['id']}/edit", {"owner": owner.user_id})
    segments = {name: api.post("/api/segments/new", {"name": name}).json["list"] for name in ("VIP", "Others")}
    for segment, names in (("VIP", ("ann", "bob")), ("Others", ("ann", "cat", "dan"))):
        for name in names:
            api.post(f"/api/segments/{segments[segment]['id']}/contact/{people[name]['id']}/add")
    return {"owner": owner, "segments": segments, "people": people}


def _bars(chart):
    (dataset,) = chart["datasets"]
    return dict(zip(chart["labels"], dataset["data"], strict=True))


def test_the_lifecycle_counts_each_column_s_memberships_by_stage_and_device(api, lifecycle):
    vip, others = (lifecycle["segments"][name]["id"] for name in ("VIP", "Others"))
    data = widget(api, "lead.lifetime", f"?filter[flag][]={vip}&filter[flag][]={others}&filter[flag][]=0")
    assert data["columnName"] == ["Others", "VIP", "All Contacts"]
    assert [_bars(chart) for chart in data["stages"]] == [
        {"Customer for": 1, "Prospect": 1},  # ann and cat; dan's stage is unpublished
        {"Prospect": 2},
        {"Prospect": 3, "Customer for": 1},  # every segment's memberships: ann twice
    ]
    assert [list(_bars(chart).items()) for chart in data["devices"]] == [
        [("smartphone", 1)],
        [("smartphone", 1), ("desktop", 1)],  # types descending, as Mautic's ORDER BY device DESC
        [("smartphone", 2), ("desktop", 1)],
    ]
    stages, devices = data["stages"][0], data["devices"][0]
    assert stages["options"] == {"xAxes": [{"display": True}], "yAxes": [{"display": True}]}
    assert stages["datasets"][0]["label"] == "Contacts" and devices["datasets"][0]["label"] == "Device"
    assert stages["datasets"][0]["backgroundColor"] == "rgba(253,185,51,0.7)" and stages["datasets"][0]["fill"] is True
    assert devices["datasets"][0]["borderColor"] == "rgba(253,149,114,0.8)"
    before = widget(api, "lead.lifetime", "?dateFrom=2001-01-01&dateTo=2001-01-02")
    assert [_bars(chart) for chart in before["stages"] + before["devices"]] == [{}, {}]  # joined after the range


def test_an_own_only_caller_s_lifecycle_counts_her_contacts_memberships_only(api, lifecycle):
    vip = lifecycle["segments"]["VIP"]["id"]
    data = widget(lifecycle["owner"], "lead.lifetime", f"?filter[flag][]={vip}&filter[flag][]=0")
    assert [_bars(chart) for chart in data["stages"]] == [{"Prospect": 1}, {"Prospect": 1}]  # bob's only
    assert [_bars(chart) for chart in data["devices"]] == [{"desktop": 1}, {"desktop": 1}]
    blind = _as(api, "blind", {"lead:leads": ["viewother"], "lead:lists": ["viewother"]})  # no stage view
    data = widget(blind, "lead.lifetime", f"?filter[flag][]={vip}")
    assert (_bars(data["stages"][0]), _bars(data["devices"][0])) == ({}, {"smartphone": 1, "desktop": 1})


# --- segments.build.time --------------------------------------------------------------------------


@pytest.fixture
def builds(api, drain, frozen, monkeypatch):
    """Segments whose rebuilds took 5 s (Quick), 1 h 2 min 5 s (Slow) and no time (Instant); Fresh
    never built; Hidden unpublished."""
    from chalicelib.domain.segments import rebuilds

    took = {}
    finish = rebuilds._finish

    def timed(segment, generation):
        frozen.advance(seconds=took.get(segment, 0))
        finish(segment, generation)

    monkeypatch.setattr(rebuilds, "_finish", timed)
    segments = {}
    for name, seconds in (("Quick", 5), ("Slow", 3725), ("Instant", 0), ("Hidden", 9)):
        body = {"name": name, "isPublished": name != "Hidden"}
        segments[name] = api.post("/api/segments/new", body).json["list"]
        took[segments[name]["id"]] = seconds
    drain()
    segments["Fresh"] = api.post("/api/segments/new", {"name": "Fresh"}).json["list"]
    return segments


def _names(client, query=""):
    return [row["name"] for row in widget(client, "segments.build.time", "?dataFormat=raw" + query)]


def test_segments_are_ordered_by_their_last_build_time(api, builds):
    assert _names(api) == ["Slow", "Quick", "Instant", "Fresh"]  # desc by default, never built last
    assert _names(api, "&filter[order]=asc") == ["Fresh", "Instant", "Quick", "Slow"]
    assert _names(api, "&filter[order]=DESC&limit=2") == ["Slow", "Quick"]
    picked = f"&filter[segments][]={builds['Quick']['id']}&filter[segments][]={builds['Fresh']['id']}"
    assert _names(api, picked) == ["Quick", "Fresh"]
    table = widget(api, "segments.build.time")
    assert table["headItems"] == [
        "mautic.dashboard.label.title",
        "mautic.core.createdby",
        "mautic.lead.list.last_built_time",
    ]
    slow = builds["Slow"]
    assert table["bodyItems"][0] == [
        {"value": "Slow", "type": "link", "link": f"/s/segments/view/{slow['id']}"},
        {"value": slow["createdByUser"]},
        {"value": "1 hour 2 minutes 5 seconds"},
    ]
    assert [row[2]["value"] for row in table["bodyItems"]] == [
        "1 hour 2 minutes 5 seconds",
        "5 seconds",
        "Less than 1 second",
        "Less than 1 second",
    ]
    (row,) = widget(api, "segments.build.time", f"?dataFormat=raw&filter[segments][]={slow['id']}")
    assert row["lastBuiltTime"] == 3725 and row["lastBuiltDate"] > slow["dateAdded"]
    for query, field in (("?filter[order]=up", "filter[order]"), ("?filter[segments][]=x", "filter[segments]")):
        assert_error(api.get(f"/api/data/segments.build.time{query}"), 400, field=field)


def test_an_own_only_caller_sees_the_build_times_of_her_segments_only(api, builds, drain):
    mine = _as(api, "lister", {"lead:leads": ["viewown"], "lead:lists": ["viewown", "create"]})
    assert mine.post("/api/segments/new", {"name": "Mine"}).status_code == 201
    drain()
    assert _names(mine) == ["Mine"]
    assert _names(mine, f"&filter[segments][]={builds['Slow']['id']}") == []
