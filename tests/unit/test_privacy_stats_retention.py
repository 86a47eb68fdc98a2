"""Issue 32, retention of old visit rows: page hits and asset downloads older than
`STATS_RETENTION_DAYS` are folded into per-day counts, then removed from the timelines, a feed bucket
at a time once all of it is past the cutoff; a run cut short never counts twice. Time is the
context's `now` (a fake clock)."""

from datetime import timedelta

import pytest

from chalicelib import config
from chalicelib.domain.kernel import clock, timeline
from chalicelib.domain.kernel.context import Context
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
    return [e["event"] for e in timeline.events_of(contact_id)]


@pytest.fixture
def small_buckets(memory_store, monkeypatch):
    monkeypatch.setattr(timeline, "FEED_BUCKET", 5)  # ids 0-4, 5-9, 10-14...


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


def test_rows_are_kept_when_the_setting_is_off_and_the_job_reads_it(small_buckets, monkeypatch):
    _visits()
    assert stats_retention.sweep(_at(500), days=0, seconds=10)["bucket"] == 0
    assert len(_timeline(1)) == 8
    from chalicelib import workers

    assert stats_retention.run in workers.JOBS["hour"]
    monkeypatch.setattr(config, "STATS_RETENTION_DAYS", 30)
    monkeypatch.setattr(clock, "now", lambda: START + timedelta(days=500))
    stats_retention.run()
    assert _timeline(1) == ["page.hit"]  # bucket 2 (the newest) stays


def test_what_a_visit_counts_as():
    assert stats_retention.counted_as({"event": "page.hit", "details": PAGE_HIT}) == "page.hit#page:1"
    pixel = {"event": "page.hit", "details": {"url": "https://site.example/a?email=ann%40example.com"}}
    assert stats_retention.counted_as(pixel) == "page.hit#url:https://site.example/a"
