"""Reports: definitions through the standard routes (list as an array, Mautic's search commands),
checked against their source's columns, and `GET /reports/<id>` answering the report's rows with
Mautic's keys, over contacts, emails and the event sources, by range, page, order and grouping."""

import pytest

from tests.api.payloads import assert_error


def report(api, source="leads", **extra):
    response = api.post("/api/reports/new", dict({"name": f"R {source}", "source": source}, **extra))
    assert response.status_code == 201, response.json
    return response.json["report"]


def contacts(api, *emails, **values):
    return [api.post("/api/contacts/new", dict({"email": e}, **values)).json["contact"]["id"] for e in emails]


def run(api, report_id, query=""):
    response = api.get(f"/api/reports/{report_id}{query}")
    assert response.status_code == 200, response.json
    return response.json


def test_definition_is_stored_listed_as_an_array_and_searched(api):
    made = report(api, columns=["l.id", "l.email"], description="All")
    assert made["source"] == "leads" and made["columns"] == ["l.id", "l.email"] and made["system"] is False
    other = report(api, isPublished=False)
    listed = api.get("/api/reports").json
    assert int(listed["total"]) == 7  # Mautic's five standard reports first (test_default_reports.py)
    assert [r["id"] for r in listed["reports"]] == [1, 2, 3, 4, 5, made["id"], other["id"]]
    assert [r["id"] for r in api.get("/api/reports?search=is:unpublished").json["reports"]] == [other["id"]]
    assert [r["id"] for r in api.get(f"/api/reports?search=ids:{made['id']}").json["reports"]] == [made["id"]]
    assert len(api.get("/api/reports?search=is:mine").json["reports"]) == 2
    minimal = api.get("/api/reports?minimal=1").json["reports"][5]
    assert "columns" not in minimal and minimal["name"] == "R leads"
    edited = api.patch(f"/api/reports/{made['id']}/edit", {"columns": ["l.firstname"]})
    assert edited.status_code == 200 and edited.json["report"]["columns"] == ["l.firstname"]
    deleted = api.delete(f"/api/reports/{other['id']}/delete")
    assert deleted.status_code == 200 and deleted.json["report"]["id"] is None
    assert api.get(f"/api/reports/{other['id']}").status_code == 404


@pytest.mark.parametrize(
    "body, field",
    [
        ({"source": "nothing"}, "source"),
        ({"columns": ["l.id", "x.nope"]}, "columns[1]"),
        ({"filters": [{"column": "l.email", "condition": "sounds", "value": "a"}]}, "filters[0][condition]"),
        ({"tableOrder": [{"column": "l.id", "direction": "SIDEWAYS"}]}, "tableOrder[0][direction]"),
        ({"aggregators": [{"column": "l.points", "function": "MEDIAN"}]}, "aggregators[0][function]"),
        ({"groupBy": ["es.id"]}, "groupBy[0]"),
        ({"columns": [["l.id"]]}, "columns[0]"),
        ({"tableOrder": [{"column": {"a": 1}}]}, "tableOrder[0][column]"),
    ],
)
def test_bad_definitions_are_refused_naming_the_field_and_nothing_is_written(api, body, field):
    response = api.post("/api/reports/new", dict({"name": "Bad", "source": "leads"}, **body))
    assert_error(response, 400)
    assert field in response.json["errors"][0]["details"]
    assert int(api.get("/api/reports").json["total"]) == 5  # the standard reports only


def test_contact_report_keys_columns_filters_and_pages(api):
    ids = contacts(api, "a@x.com", "b@y.com", "c@x.com", firstname="Ann")
    made = report(
        api,
        columns=["l.id", "l.email", "l.firstname"],
        filters=[{"column": "l.email", "condition": "like", "value": "%@x.com", "glue": "and"}],
    )
    answer = run(api, made["id"])
    assert set(answer) == {
        "totalResults",
        "data",
        "dataColumns",
        "limit",
        "page",
        "dateFrom",
        "dateTo",
        "debug",
        "aggregatorColumns",
        "report",
    }
    assert answer["data"] == [
        {"id": str(ids[0]), "email": "a@x.com", "firstname": "Ann"},
        {"id": str(ids[2]), "email": "c@x.com", "firstname": "Ann"},
    ]
    assert answer["totalResults"] == 2 and answer["dataColumns"]["email"] == "l.email"
    assert answer["report"]["id"] == made["id"] and answer["dateFrom"] is None
    page = run(api, made["id"], "?limit=1&page=2")
    assert page["data"] == [{"id": str(ids[2]), "email": "c@x.com", "firstname": "Ann"}]
    assert page["limit"] == 1 and page["page"] == 2


def test_unfiltered_contact_report_counts_from_the_stored_count_and_orders(api):
    ids = contacts(api, "a@x.com", "b@x.com", "c@x.com")
    made = report(api, columns=["l.id"], tableOrder=[{"column": "l.id", "direction": "DESC"}])
    answer = run(api, made["id"], "?limit=2")
    assert answer["totalResults"] == 3 and [r["id"] for r in answer["data"]] == [str(ids[2]), str(ids[1])]
    by_email = report(api, columns=["l.email"], tableOrder=[{"column": "l.email", "direction": "DESC"}])
    assert [r["email"] for r in run(api, by_email["id"])["data"]] == ["c@x.com", "b@x.com", "a@x.com"]


def test_date_range_bounds_the_rows(api, frozen):
    contacts(api, "old@x.com")
    frozen.advance(days=10)
    new = contacts(api, "new@x.com")
    made = report(api, columns=["l.id", "l.date_added"])
    since = frozen().strftime("%Y-%m-%d 00:00:00")
    answer = run(api, made["id"], f"?dateFrom={since}")
    assert [r["id"] for r in answer["data"]] == [str(new[0])] and answer["totalResults"] == 1
    assert answer["dateFrom"].startswith(since[:10]) and answer["dateTo"] is None
    assert_error(api.get(f"/api/reports/{made['id']}?dateFrom=yesterdayish"), 400)


def test_group_by_with_aggregators(api):
    contacts(api, "a@x.com", "b@x.com", city="Prague", points=5)
    contacts(api, "c@x.com", city="Brno", points=2)
    made = report(
        api,
        columns=["l.city"],
        groupBy=["l.city"],
        aggregators=[{"column": "l.id", "function": "count"}, {"column": "l.points", "function": "SUM"}],
        tableOrder=[{"column": "l.city", "direction": "ASC"}],
    )
    answer = run(api, made["id"])
    assert answer["aggregatorColumns"] == {"COUNT l.id": "l.id", "SUM l.points": "l.points"}
    assert sorted(answer["data"], key=lambda r: r["city"]) == [
        {"city": "Brno", "COUNT l.id": "1", "SUM l.points": "2"},
        {"city": "Prague", "COUNT l.id": "2", "SUM l.points": "10"},
    ]


def test_event_sources_read_the_stats_tables(api):
    person = contacts(api, "p@x.com")[0]
    api.post(f"/api/contacts/{person}/points/plus/4")
    made = report(
        api,
        "lead.pointlog",
        columns=["lp.lead_id", "lp.delta"],
        tableOrder=[{"column": "lp.date_added", "direction": "DESC"}],
    )
    answer = run(api, made["id"])
    assert answer["data"][0] == {"lead_id": str(person), "delta": "4"}
    assert answer["dataColumns"]["delta"] == "lp.delta"
    emails = report(api, "emails", columns=["e.name", "e.template"])
    api.post("/api/emails/new", {"name": "Hello", "subject": "Hi", "template": "blank"})
    assert run(api, emails["id"])["data"] == [{"name": "Hello", "template": "blank"}]


def test_unknown_report_is_404(api):
    assert_error(api.get("/api/reports/999"), 404)
