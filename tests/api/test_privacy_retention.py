"""Issue 32, retention over DynamoDB (moto): an anonymous visitor made by a page hit expires a year
after its last visit through the normal contact delete; identified contacts stay; the sweep's cost."""

from datetime import timedelta

from chalicelib import config
from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.privacy import retention
from tests.api.test_email_send import make_contact
from tests.api.test_pages_public import make_page
from tests.api.test_visitors import browse, cookie_of
from tests.bench.conftest import dynamodb_calls


def test_an_idle_visitor_expires_and_a_contact_stays(api):
    make_page(api)
    visitor = cookie_of(browse(api, "/spring-offer"))
    kept = make_contact(api)
    for n in range(5):
        cookie_of(browse(api, f"/spring-offer?n={n}"))  # more visitors, each a new contact
    later = Context(now=clock.iso(clock.now() + timedelta(days=366)))
    with dynamodb_calls() as calls:
        state = retention.sweep(later, days=365, seconds=10)
    assert state["deleted"] == 6 and state["after"] == 0
    assert api.get(f"/api/contacts/{visitor}").status_code == 404
    assert api.get(f"/api/contacts/{kept['id']}").status_code == 200
    assert api.get("/api/contacts").json["total"] == 1
    # the state (GetItem, UpdateItem), the field definitions' version (BatchGetItem), one page (a Query per
    # contact shard, docs/storage.md), and per deleted visitor its delete (TransactWriteItems: the document,
    # its count, its derived items)
    shards = config.SHARDED_KINDS["contact"]
    assert dict(calls) == {"GetItem": 1, "BatchGetItem": 1, "Query": shards, "TransactWriteItems": 6, "UpdateItem": 1}
    again = Context(now=clock.iso(clock.now() + timedelta(days=366, hours=1)))
    with dynamodb_calls() as calls:
        retention.sweep(again, days=365, seconds=10)
    assert dict(calls) == {"GetItem": 1}  # within a day of the last pass: only the state is read


def test_old_page_hits_are_folded_then_removed_over_dynamodb(api, monkeypatch):
    from chalicelib.domain.kernel import timeline
    from chalicelib.domain.privacy import stats_retention

    monkeypatch.setattr(timeline, "FEED_BUCKET", 4)
    page = make_page(api)
    contact = make_contact(api)  # its creation's events come first
    for n in range(6):
        assert browse(api, f"/spring-offer?n={n}", cookie=contact["id"]).status_code == 200
    later = Context(now=clock.iso(clock.now() + timedelta(days=31)))
    with dynamodb_calls() as calls:
        state = stats_retention.sweep(later, days=30, seconds=10)
    hits = [e for e in api.get(f"/api/contacts/{contact['id']}/activity").json["events"] if e["event"] == "page.hit"]
    folded = sum(stats_retention.kept("2000-01-01", "2999-12-31")[clock.now().date().isoformat()].values())
    assert state["bucket"] >= 1 and folded + len(hits) == 6 and folded >= 2  # the newest bucket waits
    assert api.get(f"/api/pages/{page['id']}").json["page"]["hits"] == 6  # the page's own counter stays
    assert calls["DeleteItem"] == folded and "Scan" not in calls
