"""Issue 17: Mautic's stats API (CoreBundle StatsApiController::listAction, the api-library's
Stats context and StatsTest): `GET /stats` answers `{"availableTables", "tableColumns"}`;
`GET /stats/<table>` answers `{"total", "stats": [rows]}` (`stats` is the controller's default items
name, which the api-library reads) with `start`, `limit` (default 100), `order[i][col|dir]` and
`where[i][col|expr|val]`; rows are database rows (strings)."""

from urllib.parse import urlencode

from tests.api.test_email_send import make_contact, make_email
from tests.api.test_forms_submit import make_form, post
from tests.api.test_visitors import browse

TABLES = {
    "form_submissions",
    "email_stats",
    "page_hits",
    "lead_points_change_log",
    "campaign_lead_event_log",
    "lead_event_log",
}


def stats(api, table, **params):
    pairs = []
    for name, value in params.items():
        if isinstance(value, list):
            pairs += [(f"{name}[{i}][{k}]", v) for i, entry in enumerate(value) for k, v in entry.items()]
        else:
            pairs.append((name, value))
    response = api.get(f"/api/stats/{table}?{urlencode(pairs)}")
    assert response.status_code == 200, response.json
    assert set(response.json) == {"total", "stats"}
    return response.json


def test_the_table_list(api):
    answer = api.get("/api/stats").json
    assert set(answer) == {"availableTables", "tableColumns"} and TABLES <= set(answer["availableTables"])
    assert {"id", "form_id", "lead_id", "date_submitted"} <= set(answer["tableColumns"]["form_submissions"])
    assert {"id", "email_id", "lead_id", "is_read", "date_sent"} <= set(answer["tableColumns"]["email_stats"])
    assert api.get("/api/stats/no_such_table").json == answer  # Mautic answers the catalogue


def test_form_submissions_with_start_limit_order_and_where(api):
    form, other = make_form(api), make_form(api, name="Other")
    for i in range(3):
        assert post(api, form["id"], {"email": f"s{i}@example.com"}).status_code == 200
    post(api, other["id"], {"email": "o@example.com"})
    every = stats(api, "form_submissions")
    assert int(every["total"]) == 4 and [r["form_id"] for r in every["stats"]] == [str(form["id"])] * 3 + [
        str(other["id"])
    ]
    ids = [int(r["id"]) for r in every["stats"]]
    assert ids == sorted(ids) and all(isinstance(r["id"], str) for r in every["stats"])
    assert stats(api, "form_submissions", start=1, limit=2)["stats"] == every["stats"][1:3]
    newest = stats(api, "form_submissions", order=[{"col": "id", "dir": "DESC"}])["stats"]
    assert [int(r["id"]) for r in newest] == ids[::-1]
    one_form = stats(api, "form_submissions", where=[{"col": "form_id", "expr": "eq", "val": other["id"]}])
    assert [r["id"] for r in one_form["stats"]] == [every["stats"][3]["id"]]
    above = stats(api, "form_submissions", where=[{"col": "id", "expr": "gt", "val": ids[1]}])
    assert [int(r["id"]) for r in above["stats"]] == ids[2:]
    lead = every["stats"][0]["lead_id"]
    assert [r["lead_id"] for r in stats(api, "form_submissions", where=[{"col": "lead_id", "val": lead}])["stats"]] == [
        lead
    ]
    bad = api.get("/api/stats/form_submissions?where[0][col]=nope&where[0][val]=1")
    assert bad.status_code == 400 and "where[0][col]" in str(bad.json["errors"][0]["details"])
    assert api.get("/api/stats/form_submissions?where[0][col]=id&where[0][expr]=regexp").status_code == 400
    by_referer = stats(api, "form_submissions", order=[{"col": "referer", "dir": "desc"}])["stats"]
    assert sorted(r["id"] for r in by_referer) == sorted(r["id"] for r in every["stats"])
    assert [r["referer"] or "" for r in by_referer] == sorted((r["referer"] or "" for r in by_referer), reverse=True)
    assert api.get("/api/stats/form_submissions?order[0][col]=nope").status_code == 400


def test_email_stats_page_hits_points_and_events(api):
    contact, mail = make_contact(api), make_email(api)
    assert api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send").json["success"] is True
    api.post(f"/api/contacts/{contact['id']}/points/plus/7")
    browse(api, "/mtracking.gif?" + urlencode({"page_url": "https://site.example/p", "page_title": "P"}))
    (sent,) = stats(api, "email_stats")["stats"]
    assert (sent["email_id"], sent["lead_id"], sent["is_read"]) == (str(mail["id"]), str(contact["id"]), "0")
    assert sent["email_address"] == "ann@example.com" and len(sent["date_sent"]) == 19
    assert int(stats(api, "email_stats", where=[{"col": "is_read", "expr": "eq", "val": 1}])["total"]) == 0
    (hit,) = stats(api, "page_hits")["stats"]
    assert hit["url"] == "https://site.example/p" and hit["url_title"] == "P"
    (points,) = stats(api, "lead_points_change_log")["stats"]
    assert points["delta"] == "7" and points["lead_id"] == str(contact["id"])
    events = stats(api, "lead_event_log", where=[{"col": "lead_id", "expr": "eq", "val": contact["id"]}])
    assert {(r["bundle"], r["action"]) for r in events["stats"]} >= {("email", "sent"), ("point", "gained")}
    assert int(stats(api, "lead_event_log", where=[{"col": "bundle", "expr": "like", "val": "page%"}])["total"]) == 1
    assert int(stats(api, "campaign_lead_event_log")["total"]) == 0


def test_automation_lead_event_log(api):
    from tests.api.test_automations import new_automation, tag

    automation = new_automation(api, [tag("new1", "now")])
    contact = make_contact(api)
    api.post(f"/api/automations/{automation['id']}/contact/{contact['id']}/add")
    (row,) = stats(api, "campaign_lead_event_log")["stats"]
    assert row["campaign_id"] == str(automation["id"]) and row["lead_id"] == str(contact["id"])
    assert row["event_id"] == str(automation["events"][0]["id"]) and row["is_scheduled"] == "0"
