"""What the views cost in DynamoDB calls (docs/storage.md): a report page read in time order and a
widget over a recent range cost the same however many contacts and events lie outside them."""

import pytest

from chalicelib import config
from tests.bench.conftest import dynamodb_calls

CONTACT_SHARDS = config.active().SHARDED_KINDS["contact"]  # a Query per partition key of the contacts (docs/storage.md)


def cost(api, path):
    with dynamodb_calls() as calls:
        response = api.get(path)
    assert response.status_code == 200, response.json
    return dict(calls)


def contacts(api, prefix, count):
    for i in range(count):
        api.post("/api/contacts/new", {"email": f"{prefix}{i}@example.com", "points": 1})


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_report_page_in_time_order_costs_the_same_at_10_and_60_contacts(api):
    leads = api.post(
        "/api/reports/new",
        {
            "name": "L",
            "source": "leads",
            "columns": ["l.email"],
            "tableOrder": [{"column": "l.id", "direction": "DESC"}],
        },
    ).json["report"]
    points = api.post(
        "/api/reports/new",
        {
            "name": "P",
            "source": "lead.pointlog",
            "columns": ["lp.delta"],
            "tableOrder": [{"column": "lp.date_added", "direction": "DESC"}],
        },
    ).json["report"]
    contacts(api, "a", 10)
    few = cost(api, f"/api/reports/{leads['id']}?limit=5"), cost(api, f"/api/reports/{points['id']}?limit=5")
    contacts(api, "b", 50)
    many = cost(api, f"/api/reports/{leads['id']}?limit=5"), cost(api, f"/api/reports/{points['id']}?limit=5")
    assert few == many and not any(c.get("Scan") for c in few)
    # versions (one item since issue 29), the report; the count's shards; the contacts
    assert few[0] == {"BatchGetItem": 1, "GetItem": 2, "Query": CONTACT_SHARDS}


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_widget_over_a_recent_range_reads_only_back_to_its_start(api, frozen):
    contacts(api, "old", 30)
    frozen.advance(days=400)
    contacts(api, "new", 3)
    since = frozen().strftime("%Y-%m-%d")
    created = cost(api, f"/api/data/created.leads.in.time?timeUnit=d&dateFrom={since}")
    points = cost(api, f"/api/data/points.in.time?timeUnit=d&dateFrom={since}")
    assert created == {"GetItem": 1, "Query": CONTACT_SHARDS}  # the versions; the contacts
    assert points.get("Query", 0) <= 2 * config.active().FEED_SHARDS and not points.get("Scan")  # at most 2 buckets


def sends(api, count):
    from tests.api.test_email_send import make_email

    mail = make_email(api, name=f"Mail {count}")
    for i in range(count):
        contact = api.post("/api/contacts/new", {"email": f"sent{count}-{i}@example.com"}).json["contact"]
        assert api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send").json == {"success": True}


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_email_stats_read_their_send_records_in_batches_not_one_by_one(api):
    """Before: one GetItem per send (37 calls at 33 sends, 33 of them GetItem); now a BatchGetItem per chunk of
    sends, and an own-only caller's report reads the contacts and emails its rows name in batches too."""
    from tests.api.test_permissions import _as

    sales = _as(api, "sales", {"lead:leads": ["viewown"], "email:emails": ["viewother"], "report:reports": ["full"]})
    own = sales.post(
        "/api/reports/new", {"name": "Own", "source": "email.stats", "columns": ["es.email_address"]}
    ).json["report"]
    report = api.post("/api/reports/new", {"name": "S", "source": "email.stats", "columns": ["es.email_address"]}).json[
        "report"
    ]
    sends(api, 3)
    few = (
        cost(api, "/api/stats/email_stats"),
        cost(api, f"/api/reports/{report['id']}"),
        cost(sales, f"/api/reports/{own['id']}"),
    )
    sends(api, 30)
    many = (
        cost(api, "/api/stats/email_stats"),
        cost(api, f"/api/reports/{report['id']}"),
        cost(sales, f"/api/reports/{own['id']}"),
    )
    assert [c.get("GetItem", 0) for c in many] == [c.get("GetItem", 0) for c in few]
    # versions; 3 of the feed's events, 2 of the sends (10, 20, 3: the third with the events); a Query per feed shard
    assert many[0] == {"BatchGetItem": 5, "GetItem": 1, "Query": config.active().FEED_SHARDS}
    assert many[2]["BatchGetItem"] <= 9 and many[2]["BatchGetItem"] - many[1]["BatchGetItem"] <= 3
