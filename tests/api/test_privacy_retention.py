"""Issue 32, retention over DynamoDB (moto): an anonymous visitor made by a page hit expires a year
after its last visit through the normal contact delete; identified contacts stay; the sweep's cost."""

from datetime import timedelta

import pytest

from chalicelib import config
from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.privacy import retention
from tests.api.test_email_send import make_contact
from tests.api.test_pages_public import make_page
from tests.api.test_visitors import browse, cookie_of
from tests.bench.conftest import dynamodb_calls


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
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
    assert int(api.get("/api/contacts").json["total"]) == 1
    # the state (GetItem, UpdateItem), the field definitions' version (the versions item, GetItem), one page
    # (a Query per contact shard, docs/storage.md), and per deleted visitor its delete (TransactWriteItems: the
    # document, its count, its derived items)
    shards = config.active().SHARDED_KINDS["contact"]
    assert dict(calls) == {"GetItem": 2, "Query": shards, "TransactWriteItems": 6, "UpdateItem": 1}
    again = Context(now=clock.iso(clock.now() + timedelta(days=366, hours=1)))
    with dynamodb_calls() as calls:
        retention.sweep(again, days=365, seconds=10)
    assert dict(calls) == {"GetItem": 1}  # within a day of the last pass: only the state is read


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
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


def _counts_of(api, mail_id, report_id):
    """Everything a client counts an email's sends with: the email, the stats table, a report, two charts."""
    shown = api.get(f"/api/emails/{mail_id}").json["email"]
    rows = api.get(f"/api/stats/email_stats?where[0][col]=email_id&where[0][val]={mail_id}").json["stats"]
    data = api.get(f"/api/reports/{report_id}").json["data"]
    charts = [api.get(f"/api/data/{chart}").json["data"] for chart in ("ignored.vs.read.emails", "emails.in.time")]
    return {
        "email": (shown["sentCount"], shown["readCount"], shown["bounceCount"]),
        "stats": sorted((r["id"], r["lead_id"], r["is_read"], r["open_count"], r["date_sent"]) for r in rows),
        "report": sorted(str(sorted(row.items())) for row in data),
        "charts": charts,
    }


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_old_email_sends_fold_and_their_counts_and_links_still_work(api, monkeypatch, source_ip):
    from chalicelib.domain.kernel import timeline
    from chalicelib.domain.messaging import email_stats
    from chalicelib.domain.privacy import stats_retention
    from tests.api.test_email_send import make_email, sent_messages
    from tests.api.test_email_tracking import _public

    monkeypatch.setattr(timeline, "FEED_BUCKET", 4)
    mail = make_email(api, customHtml="<p>Hi {contactfield=firstname}, code {code}</p>")
    people = [make_contact(api, email=f"p{n}@example.com") for n in range(3)]
    hashes = []
    for person in people:
        api.post(f"/api/emails/{mail['id']}/contact/{person['id']}/send", {"tokens": {"code": "Z-9"}})
        hashes.append(sent_messages()[-1]["X-Mautic-Tracking"])
    source_ip("203.0.113.9")
    _public(api, f"/email/{hashes[0]}.gif")
    for n in range(6):  # newer events, so the sends' buckets are full and the newest bucket holds none of them
        make_contact(api, email=f"later{n}@example.com")
    report = api.post(
        "/api/reports/new", {"name": "S", "source": "email.stats", "columns": ["es.id", "es.is_read", "es.open_count"]}
    ).json["report"]
    before = _counts_of(api, mail["id"], report["id"])
    assert before["email"] == (3, 1, 0) and len(before["stats"]) == len(before["report"]) == 3
    later = Context(now=clock.iso(clock.now() + timedelta(days=31)))
    with dynamodb_calls() as calls:
        stats_retention.sweep(later, days=30, seconds=10)
    slim = [email_stats.find(h) for h in hashes]
    assert all(s["folded"] and "emailAddress" not in s and "tokens" not in s for s in slim)
    assert "ipAddress" not in slim[0] and slim[0]["isRead"] and slim[0]["openCount"] == 1
    day = clock.now().date().isoformat()
    assert stats_retention.kept_sends(day, day)[day][str(mail["id"])] == {"sent": 3, "read": 1, "opens": 1}
    assert _counts_of(api, mail["id"], report["id"]) == before  # every count adds up as before the fold
    # per send record: 1 DeleteItem (its SES note) and 1 conditional PutItem (the slim record, revision-checked;
    # one item needs no transaction)
    assert calls["DeleteItem"] == 3 and calls["PutItem"] == 3 and "TransactWriteItems" not in calls
    assert "Scan" not in calls
    # the old email's links: an open counts without keeping the address, the web view, the unsubscribe
    source_ip("198.51.100.4")
    _public(api, f"/email/{hashes[1]}.gif")
    again = email_stats.find(hashes[1])
    assert again["isRead"] and "ipAddress" not in again and "lastOpened" not in again
    assert api.get(f"/api/emails/{mail['id']}").json["email"]["readCount"] == 2
    view = _public(api, f"/email/view/{hashes[2]}")
    assert view.status_code == 200 and "Hi Ann" in view.body.decode()
    assert _public(api, f"/email/unsubscribe/{hashes[2]}").status_code == 200
    dnc = api.get(f"/api/contacts/{people[2]['id']}").json["contact"]["doNotContact"]
    assert [(d["channel"], d["channelId"]) for d in dnc] == [("email", mail["id"])]
