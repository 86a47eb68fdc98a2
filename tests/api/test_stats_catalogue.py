"""Issue 34: `GET /api/stats` lists Mautic's whole table catalogue (every table its bundles'
`onStatsFetch` subscribers register, with Mautic's columns), and `GET /api/stats/<table>` answers each
from our data with Mautic's paging, `order`, `where` and row shape (every column of the table, as
database strings); tables of which nothing is kept answer an empty, well-formed list. Access as
Mautic's subscribers: contact tables need `lead:leads:viewother`, webhook logs a webhook view (own
hooks only without viewother), tweet stats a tweet view, the audit log an administrator."""

from urllib.parse import urlencode

import pytest

from tests.api.payloads import assert_error
from tests.api.test_automations import new_automation, tag
from tests.api.test_email_send import make_contact, make_email, sent_messages
from tests.api.test_files_assets import fetch, make_local_asset
from tests.api.test_forms_submit import make_form, post
from tests.api.test_permissions import _as
from tests.api.test_point_triggers import make_trigger
from tests.api.test_sms_send import make_sms
from tests.api.test_stages import move, new_stage
from tests.api.test_stats import stats
from tests.api.test_visitors import browse
from tests.conftest import visitor_cookie

MAUTIC_TABLES = {
    "asset_downloads",
    "audit_log",
    "campaign_lead_event_log",
    "campaign_leads",
    "channel_url_trackables",
    "companies_leads",
    "dynamic_content_lead_data",
    "dynamic_content_stats",
    "email_stat_replies",
    "email_stats",
    "email_stats_devices",
    "focus_stats",
    "form_submissions",
    "ip_addresses",
    "lead_categories",
    "lead_companies_change_log",
    "lead_devices",
    "lead_donotcontact",
    "lead_event_log",
    "lead_frequencyrules",
    "lead_lists_leads",
    "lead_points_change_log",
    "lead_stages_change_log",
    "lead_utmtags",
    "page_hits",
    "page_redirects",
    "point_lead_action_log",
    "point_lead_event_log",
    "push_notification_stats",
    "sms_message_stats",
    "stage_lead_action_log",
    "tweet_stats",
    "video_hits",
    "webhook_logs",
}
EMPTY = {
    "audit_log",
    "channel_url_trackables",
    "dynamic_content_lead_data",
    "dynamic_content_stats",
    "lead_companies_change_log",
    "page_redirects",
    "push_notification_stats",
    "stage_lead_action_log",
    "tweet_stats",
    "video_hits",
}


def _hook_log(hook_id, entry_id, status):
    from chalicelib.store import port as store

    store.put(
        f"hooklog#{hook_id}",
        {"id": entry_id, "dateAdded": "2026-01-02T03:04:05+00:00", "statusCode": status, "duration": 0.25},
    )


@pytest.fixture
def world(api, source_ip):
    """One contact who did a bit of everything, and a second one only in a segment."""
    ann = make_contact(api, mobile="+420777123456", ipAddress="10.1.2.3")
    mail = make_email(api)
    assert api.post(f"/api/emails/{mail['id']}/contact/{ann['id']}/send").json == {"success": True}
    assert api.post(f"/api/emails/reply/{sent_messages()[-1]['X-Mautic-Tracking']}").status_code == 201
    assert api.get(f"/api/smses/{make_sms(api)['id']}/contact/{ann['id']}/send").json["success"] is True
    asset, _ = make_local_asset(api)
    assert fetch(api, f"/asset/{asset['id']}:notes", {"Cookie": visitor_cookie(ann["id"])}).status_code == 200
    form = make_form(api)
    action = api.post("/api/points/new", {"name": "Submits", "type": "form.submit", "delta": 5}).json["point"]
    assert post(api, form["id"], {"email": "ann@example.com"}).status_code == 200
    trigger = make_trigger(api, points=10)
    api.patch(f"/api/contacts/{ann['id']}/edit", {"points": 12})
    stage = new_stage(api)
    assert move(api, stage["id"], ann["id"]).status_code == 200
    segment = api.post("/api/segments/new", {"name": "VIP"}).json["list"]
    other = make_contact(api, email="bob@example.com", firstname="Bob")
    for person in (ann, other):
        api.post(f"/api/segments/{segment['id']}/contact/{person['id']}/add")
    automation = new_automation(api, [tag("new1", "now")])
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    company = api.post("/api/companies/new", {"companyname": "Acme"}).json["company"]
    api.post(f"/api/companies/{company['id']}/contact/{ann['id']}/add")
    utm = {"utm_campaign": "spring", "url": "https://site.example/x", "useragent": "Mozilla/5.0 (X11; Linux x86_64)"}
    assert api.post(f"/api/contacts/{ann['id']}/utm/add", utm).status_code == 200
    assert api.post(f"/api/contacts/{ann['id']}/dnc/sms/add", {"reason": 3}).status_code == 200
    rules = {"email": {"frequency_number": 2, "frequency_time": "WEEK"}}
    assert api.patch(f"/api/contacts/{ann['id']}/edit", {"frequencyRules": rules}).status_code == 200
    category = api.post("/api/categories/new", {"title": "News", "bundle": "global"}).json["category"]
    assert api.post(f"/api/contacts/{ann['id']}/categories/{category['id']}/remove").status_code == 200
    focus = api.post("/api/focus/new", {"name": "F", "type": "notice", "style": "bar"}).json["focus"]
    browse(api, f"/focus/{focus['id']}/viewpixel.gif", cookie=ann["id"])
    browse(api, "/mtracking.gif?" + urlencode({"page_url": "https://site.example/p", "page_title": "P"}))
    hook = api.post("/api/hooks/new", {"name": "H", "webhookUrl": "https://hooks.example/x", "triggers": []})
    assert hook.status_code == 201, hook.json
    _hook_log(hook.json["hook"]["id"], 1, "200")
    return {
        "ann": ann,
        "other": other,
        "mail": mail,
        "asset": asset,
        "form": form,
        "action": action,
        "trigger": trigger,
        "stage": stage,
        "segment": segment,
        "automation": automation,
        "company": company,
        "hook": hook.json["hook"],
        "focus": focus,
        "category": category,
    }


def test_the_catalogue_lists_every_mautic_table_with_its_columns(api):
    answer = api.get("/api/stats").json
    assert set(answer) == {"availableTables", "tableColumns"}
    assert set(answer["availableTables"]) == MAUTIC_TABLES and answer["availableTables"] == sorted(MAUTIC_TABLES)
    columns = answer["tableColumns"]
    assert set(columns) == MAUTIC_TABLES
    assert columns["lead_lists_leads"] == ["date_added", "lead_id", "leadlist_id", "manually_added", "manually_removed"]
    assert columns["campaign_leads"] == [
        "campaign_id",
        "date_added",
        "date_last_exited",
        "lead_id",
        "manually_added",
        "manually_removed",
        "rotation",
    ]
    assert columns["webhook_logs"] == ["date_added", "id", "note", "runtime", "status_code", "webhook_id"]
    assert {"copy_id", "tokens", "list_id", "ip_id", "open_details"} <= set(columns["email_stats"])
    assert {"event_name", "group_id", "ip_id"} <= set(columns["lead_points_change_log"])
    assert "tracking_hash" not in str(answer)  # a hash acts as its contact on the public pages
    for table, names in columns.items():
        assert names == sorted(names, key=str.lower), table


def _real(world):
    """(table, where, the column to check, its value) of one row each table holds for the world."""
    ann = str(world["ann"]["id"])
    return {
        "asset_downloads": ("asset_id", str(world["asset"]["id"])),
        "campaign_lead_event_log": ("campaign_id", str(world["automation"]["id"])),
        "campaign_leads": ("campaign_id", str(world["automation"]["id"])),
        "companies_leads": ("company_id", str(world["company"]["id"])),
        "email_stat_replies": ("date_replied", None),
        "email_stats": ("email_id", str(world["mail"]["id"])),
        "email_stats_devices": ("date_opened", None),
        "focus_stats": ("focus_id", str(world["focus"]["id"])),
        "form_submissions": ("form_id", str(world["form"]["id"])),
        "ip_addresses": ("ip_address", "10.1.2.3"),
        "lead_categories": ("category_id", str(world["category"]["id"])),
        "lead_devices": ("lead_id", ann),
        "lead_donotcontact": ("channel", "sms"),
        "lead_event_log": ("lead_id", ann),
        "lead_frequencyrules": ("frequency_time", "WEEK"),
        "lead_lists_leads": ("leadlist_id", str(world["segment"]["id"])),
        "lead_points_change_log": ("lead_id", ann),
        "lead_stages_change_log": ("stage_id", str(world["stage"]["id"])),
        "lead_utmtags": ("utm_campaign", "spring"),
        "page_hits": ("url", "https://site.example/p"),
        "point_lead_action_log": ("point_id", str(world["action"]["id"])),
        "point_lead_event_log": ("event_id", str(world["trigger"]["events"][0]["id"])),
        "sms_message_stats": ("lead_id", ann),
        "webhook_logs": ("webhook_id", str(world["hook"]["id"])),
    }


def test_each_table_answers_mautic_rows_from_our_data(api, world):
    columns = api.get("/api/stats").json["tableColumns"]
    real = _real(world)
    assert set(real) | EMPTY == MAUTIC_TABLES
    for table in sorted(MAUTIC_TABLES):
        answer = stats(api, table)
        if table in EMPTY:
            assert answer == {"total": "0", "stats": []}, table
            continue
        assert int(answer["total"]) >= 1 and answer["stats"], table
        for row in answer["stats"]:
            assert set(row) <= set(columns[table]) and all(v is None or isinstance(v, str) for v in row.values())
        column, value = real[table]
        assert value is None or value in [row[column] for row in answer["stats"]], (table, answer)


def test_counts_paging_order_and_where_on_the_new_tables(api, world):
    members = stats(api, "lead_lists_leads")
    ann, bob = str(world["ann"]["id"]), str(world["other"]["id"])
    assert int(members["total"]) == 2 and [r["lead_id"] for r in members["stats"]] == [ann, bob]
    assert members["stats"][0]["manually_added"] == "1" and members["stats"][0]["manually_removed"] == "0"
    assert [
        r["lead_id"] for r in stats(api, "lead_lists_leads", order=[{"col": "lead_id", "dir": "DESC"}])["stats"]
    ] == [
        bob,
        ann,
    ]
    assert stats(api, "lead_lists_leads", start=1, limit=1)["stats"] == members["stats"][1:]
    only_bob = stats(api, "lead_lists_leads", where=[{"col": "lead_id", "expr": "eq", "val": bob}])
    assert [r["lead_id"] for r in only_bob["stats"]] == [bob]
    (download,) = stats(api, "asset_downloads")["stats"]
    assert (download["lead_id"], download["code"], download["ip_id"]) == (ann, "200", None)
    (stage,) = stats(api, "lead_stages_change_log")["stats"]
    assert stage["lead_id"] == ann and stage["event_name"].startswith(f"{world['stage']['id']}:")
    (dnc,) = stats(api, "lead_donotcontact")["stats"]
    assert (dnc["reason"], dnc["lead_id"]) == ("3", ann)
    (sms,) = stats(api, "sms_message_stats")["stats"]
    assert sms["is_failed"] == "0" and sms["sms_id"] is not None
    points = stats(api, "lead_points_change_log", where=[{"col": "event_name", "expr": "isNotNull"}])
    assert int(points["total"]) >= 2 and all(r["group_id"] is None for r in points["stats"])
    assert_error(api.get("/api/stats/lead_lists_leads?order[0][col]=nope"), 400, field="order[0][col]")
    assert_error(
        api.get("/api/stats/lead_lists_leads?order[0][col]=lead_id&order[0][dir]=up"), 400, field="order[0][dir]"
    )
    assert_error(api.get("/api/stats/campaign_leads?where[0][col]=nope&where[0][val]=1"), 400, field="where[0][col]")
    assert api.get("/api/stats/focus_stats?where[0][col]=nope").status_code == 400  # empty tables check too


def test_a_webhook_user_sees_only_her_hooks_logs_and_no_contact_table(api, world):
    hooker = _as(api, "hooker", {"webhook:webhooks": ["viewown", "create"]})
    mine = hooker.post("/api/hooks/new", {"name": "Mine", "webhookUrl": "https://hooks.example/m", "triggers": []})
    assert mine.status_code == 201, mine.json
    _hook_log(mine.json["hook"]["id"], 1, "500")
    logs = stats(hooker, "webhook_logs")
    assert [(r["webhook_id"], r["status_code"]) for r in logs["stats"]] == [(str(mine.json["hook"]["id"]), "500")]
    assert str(world["hook"]["id"]) not in [r["webhook_id"] for r in logs["stats"]]
    assert int(stats(api, "webhook_logs")["total"]) == 2  # the administrator sees both
    assert set(hooker.get("/api/stats").json["availableTables"]) == MAUTIC_TABLES  # names only
    for table in ("lead_lists_leads", "email_stats", "ip_addresses", "audit_log", "tweet_stats"):
        assert_error(hooker.get(f"/api/stats/{table}"), 403)


def test_contact_tables_need_every_contact_and_the_audit_log_an_administrator(api, world):
    own = _as(api, "own", {"lead:leads": ["viewown", "editown", "create"]})
    for path in ("/api/stats", "/api/stats/lead_lists_leads", "/api/stats/ip_addresses", "/api/stats/webhook_logs"):
        assert_error(own.get(path), 403)
    every = _as(api, "every", {"lead:leads": ["viewother"]})
    assert int(stats(every, "lead_lists_leads")["total"]) == 2
    assert_error(every.get("/api/stats/audit_log"), 403)
    assert_error(every.get("/api/stats/webhook_logs"), 403)
    assert stats(api, "audit_log") == {"total": "0", "stats": []}


@pytest.mark.parametrize("direction", ["asc", "DESC"])
def test_every_table_orders_by_id_or_its_first_column(api, world, direction):
    """Mautic's client (StatsTest::testGetOrderAsc/Desc) orders each table by `id` (else its first
    column): a column the table is not read in the order of is sorted after the read, as SQL would."""
    catalogue = api.get("/api/stats").json
    for table in catalogue["availableTables"]:
        columns = catalogue["tableColumns"][table]
        column = "id" if "id" in columns else columns[0]
        rows = stats(api, table, order=[{"col": column, "dir": direction}])["stats"]
        values = [row[column] for row in rows if row[column] is not None]
        key = int if column == "id" else str
        assert values == sorted(values, key=key, reverse=direction == "DESC"), (table, values)


def test_a_column_outside_the_read_order_sorts_the_rows(api, world):
    by_date = stats(api, "lead_lists_leads", order=[{"col": "date_added", "dir": "desc"}])["stats"]
    dates = [row["date_added"] for row in by_date]
    assert len(dates) == 2 and dates == sorted(dates, reverse=True)
    ann = str(world["ann"]["id"])
    mine = stats(
        api, "lead_lists_leads", order=[{"col": "date_added"}], where=[{"col": "lead_id", "expr": "eq", "val": ann}]
    )
    assert [row["lead_id"] for row in mine["stats"]] == [ann] and int(mine["total"]) == 1
    paged = stats(api, "lead_lists_leads", order=[{"col": "date_added", "dir": "desc"}], start=1, limit=1)["stats"]
    assert paged == by_date[1:]
