"""Issue 32, retention of old visit rows: page hits and asset downloads older than
`STATS_RETENTION_DAYS` are folded into per-day counts, then removed from the timelines, a feed bucket
at a time once all of it is past the cutoff; a run cut short never counts twice. Time is the
context's `now` (a fake clock)."""

from datetime import timedelta

import pytest

from chalicelib import config
from chalicelib.domain.contacts import contact_timeline
from chalicelib.domain.kernel import clock, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.messaging import email_stats, send_retention
from chalicelib.domain.privacy import stats_retention
from chalicelib.store import port as store

START = clock.parse("2026-01-01T00:00:00+00:00")
PAGE_HIT = {"page": {"id": 1, "title": "Spring"}, "url": "https://site.example/spring?email=ann%40example.com"}


def _at(days: float) -> Context:
    return Context(now=clock.iso(START + timedelta(days=days)))


def _events(contact_id: int, days: float, *events: dict) -> list[int]:
    """Events stored on the contact's timeline (and the feed) as of START + days; their ids."""
    written = timeline.documents(contact_id, list(events), _at(days).now)
    for kind, doc in written:
        store.put(kind, doc)
    return [doc["id"] for _, doc in written]


def _timeline(contact_id: int) -> list[str]:
    return [e["event"] for e in contact_timeline.events_of(contact_id)]


@pytest.fixture
def small_buckets(configure, memory_store, monkeypatch):
    monkeypatch.setattr(timeline, "FEED_BUCKET", 5)  # ids 0-4, 5-9, 10-14...
    # event ids one by one from the counter: a block of 100 (store/id_blocks.py) would span 20 such buckets
    configure(ID_BLOCKS={k: v for k, v in config.active().ID_BLOCKS.items() if k != "timeline"})


def _visits() -> dict:
    hit, asset = (
        timeline.event("page.hit", "Spring", PAGE_HIT),
        timeline.event("asset.download", "Notes", {"asset": {"id": 4}}),
    )
    pixel = timeline.event("page.hit", "x", {"url": "https://site.example/a?utm_source=news#top"})
    click = timeline.event("page.hit", "y", {"emailId": 9, "statId": 3, "url": "https://shop.example/offer"})
    old = _events(1, 0, hit, hit, asset, pixel) + _events(2, 0.5, click, timeline.event("note", "Called"))
    recent = _events(1, 40, hit, hit, hit, hit)
    return {"old": old, "recent": recent}


def test_old_visits_are_counted_per_day_then_removed(small_buckets):
    _visits()  # ids 1-4 (bucket 0), 5-6 then 7-9 at day 40 (bucket 1), 10 (bucket 2)
    state = stats_retention.sweep(_at(50), days=30, seconds=10)
    assert state["bucket"] == 1  # bucket 1 holds day-40 events: kept whole until they age too
    assert _timeline(1) == ["page.hit"] * 4 and _timeline(2) == ["page.hit", "note"]
    assert stats_retention.kept("2026-01-01", "2026-12-31") == {
        "2026-01-01": {"page.hit#page:1": 2, "asset.download#asset:4": 1, "page.hit#url:https://site.example/a": 1}
    }
    state = stats_retention.sweep(_at(80), days=30, seconds=10)
    assert state["bucket"] == 2  # the newest bucket is never taken: ids are still being written in it
    assert _timeline(1) == ["page.hit"] and _timeline(2) == ["note"]
    kept = stats_retention.kept("2026-01-01", "2026-12-31")
    assert kept["2026-01-01"]["page.hit#email:9"] == 1 and kept["2026-02-10"] == {"page.hit#page:1": 3}


def test_a_bucket_redone_after_a_cut_short_run_is_not_counted_twice(small_buckets, monkeypatch):
    ids = _visits()["old"]
    removed = []
    monkeypatch.setattr(store, "remove", lambda kind, i: removed.append(i) or (_ for _ in ()).throw(OSError("cut")))
    with pytest.raises(OSError):
        stats_retention.sweep(_at(50), days=30, seconds=10)
    monkeypatch.undo()
    monkeypatch.setattr(timeline, "FEED_BUCKET", 5)
    store.remove(timeline.kind(1), ids[0])  # one event removed before the run was cut
    stats_retention.sweep(_at(50), days=30, seconds=10)
    assert stats_retention.kept("2026-01-01", "2026-01-01")["2026-01-01"]["page.hit#page:1"] == 2


def test_rows_are_kept_when_the_setting_is_off_and_the_job_reads_it(configure, small_buckets, monkeypatch):
    _visits()
    assert stats_retention.sweep(_at(500), days=0, seconds=10)["bucket"] == 0
    assert len(_timeline(1)) == 8
    from chalicelib import workers

    assert stats_retention.run in workers.JOBS["hour"]
    configure(STATS_RETENTION_DAYS=30)
    monkeypatch.setattr(clock, "now", lambda: START + timedelta(days=500))
    stats_retention.run()
    assert _timeline(1) == ["page.hit"]  # bucket 2 (the newest) stays


def test_what_a_visit_counts_as():
    assert stats_retention.counted_as({"event": "page.hit", "details": PAGE_HIT}) == "page.hit#page:1"
    pixel = {"event": "page.hit", "details": {"url": "https://site.example/a?email=ann%40example.com"}}
    assert stats_retention.counted_as(pixel) == "page.hit#url:https://site.example/a"


def _send(email_id: int, contact_id: int, days: float, **flags) -> dict:
    """A send record as `sending` stores it, and its `email.sent` event, as of START + days."""
    stat_id, tracking_hash = email_stats.allocate("email", email_id)
    stat = {
        "id": stat_id,
        "email": {"id": email_id},
        "lead": {"id": contact_id},
        "emailAddress": "ann@example.com",
        "ipAddress": "203.0.113.7",
        "dateSent": _at(days).now,
        "isRead": False,
        "isFailed": False,
        "dateRead": None,
        "openCount": 0,
        "lastOpened": None,
        "clickCount": 0,
        "trackingHash": tracking_hash,
        "subject": "Hi Ann",
        "messageId": f"ses-{stat_id}",
        "tokens": {"{contactfield=firstname}": "Ann"},
        "sendTokens": {"code": "A1"},
        "headers": {"X-Mautic-Tracking": tracking_hash},
        **flags,
    }
    email_stats.create("email", email_id, stat)
    email_stats.remember(stat["messageId"], tracking_hash)
    details = {"emailId": email_id, "statId": stat_id, "trackingHash": tracking_hash}
    _events(contact_id, days, timeline.event("email.sent", "Hi Ann", details))
    return stat


def test_old_email_sends_are_counted_per_email_and_day_then_slimmed(small_buckets):
    read = {"isRead": True, "dateRead": _at(1).now, "openCount": 3, "lastOpened": _at(2).now, "clickCount": 2}
    old = [_send(7, 1, 0, **read), _send(7, 2, 0, bounced="Permanent", isFailed=True), _send(8, 1, 0.5)]
    fresh = [_send(7, 3, 40) for _ in range(3)]  # event ids 1-3, then 4 (bucket 0), 5-6 (bucket 1, the newest)
    assert stats_retention.sweep(_at(50), days=30, seconds=10)["bucket"] == 0  # id 4 is too young
    assert stats_retention.kept_sends("2026-01-01", "2026-12-31") == {}
    stats_retention.sweep(_at(80), days=30, seconds=10)
    assert stats_retention.kept_sends("2026-01-01", "2026-01-31") == {
        "2026-01-01": {
            "7": {"sent": 2, "read": 1, "failed": 1, "bounced": 1, "opens": 3, "clicks": 2, "clicked": 1},
            "8": {"sent": 1},
        }
    }
    assert stats_retention.kept_sends("2026-02-01", "2026-12-31") == {"2026-02-10": {"7": {"sent": 1}}}
    slim = email_stats.find(old[0]["trackingHash"])  # the old email's links still find email and recipient
    assert slim["lead"] == {"id": 1} and slim["email"] == {"id": 7} and slim["folded"] == "2026-01-01"
    assert (slim["isRead"], slim["openCount"], slim["clickCount"], slim["dateSent"]) == (True, 3, 2, old[0]["dateSent"])
    for gone in ("emailAddress", "ipAddress", "lastOpened", "subject", "messageId", "tokens", "sendTokens", "headers"):
        assert gone not in slim
    assert email_stats.by_message_id("ses-1") is None  # the SES note is gone with the message id
    newer = email_stats.find(fresh[-1]["trackingHash"])
    assert newer["emailAddress"] == "ann@example.com" and "folded" not in newer  # not past the cutoff yet


def test_sends_of_a_bucket_redone_are_not_counted_twice(small_buckets, monkeypatch):
    _send(7, 1, 0, isRead=True)
    _send(7, 2, 0)
    _events(1, 40, *[timeline.event("note", "x")] * 5)  # a newer bucket, so bucket 0 may be taken
    calls = []

    def cut(kind, stat):
        calls.append(stat["id"])
        if len(calls) == 2:
            raise OSError("cut")
        real_slim(kind, stat)

    real_slim = send_retention.slim
    monkeypatch.setattr(send_retention, "slim", cut)
    with pytest.raises(OSError):
        stats_retention.sweep(_at(80), days=30, seconds=10)
    monkeypatch.setattr(send_retention, "slim", real_slim)
    state = stats_retention.sweep(_at(80), days=30, seconds=10)
    assert state["bucket"] == 1
    assert stats_retention.kept_sends("2026-01-01", "2026-01-01") == {"2026-01-01": {"7": {"sent": 2, "read": 1}}}
    assert all("folded" in s for s in store.iterate(email_stats.kind("email", 7)))


def test_old_text_message_records_are_counted_then_lose_the_number(small_buckets):
    for days in (0, 0, 40, 40):
        stat_id = email_stats.allocate("sms", 5)[0]
        record = {"id": stat_id, "sms": {"id": 5}, "lead": {"id": 1}, "phone": "+420777000111"}
        email_stats.create("sms", 5, dict(record, dateSent=_at(days).now, source="api", sourceId=None, messageId="sns"))
        _events(1, days, timeline.event("sms.sent", "Hi", {"smsId": 5, "statId": stat_id, "content": "Hi"}))
    _events(1, 41, timeline.event("note", "x"))  # ids 1-4 (bucket 0), 5 (bucket 1, the newest)
    stats_retention.sweep(_at(80), days=30, seconds=10)
    assert stats_retention.kept_sends("2026-01-01", "2026-12-31", "sms") == {
        "2026-01-01": {"5": {"sent": 2}},
        "2026-02-10": {"5": {"sent": 2}},
    }
    records = list(store.iterate(email_stats.kind("sms", 5)))
    assert [sorted(k for k in r if not k.startswith("_")) for r in records] == [
        ["dateSent", "folded", "id", "lead", "sms", "source", "sourceId"]
    ] * 4
    assert store.count(email_stats.kind("sms", 5)) == 4  # the message's sentCount is untouched
