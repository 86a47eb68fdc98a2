"""Retention of old visit rows and send records (issue 32): page hits (landing pages, the tracking pixel,
email clicks) and asset downloads older than `STATS_RETENTION_DAYS` are folded into per-day counts, then
removed from their contact's timeline (and so from all contacts' activity, the stats API's `page_hits` and
the charts). The documents' own counters (a page's `hits`, an asset's `downloadCount`) are not touched.
Email send records as old are counted per email and day, then slimmed to what their links and counts need
(domain/messaging/send_retention.py).

The hourly sweep walks the timeline feed a bucket (1,000 event ids) at a time from the oldest, and
takes a bucket only once every event in it is past the cutoff: its counts are stored first, in one
`statsdaily`/<bucket> item written whole, then its visit events are removed, then its place moves on.
A run cut short redoes the bucket: the counts stored already are kept, never counted again
(docs/privacy.md, "Retention")."""

import time
from collections import Counter
from collections.abc import Iterable
from datetime import timedelta
from urllib.parse import urlsplit, urlunsplit

from chalicelib import config
from chalicelib.domain.kernel import clock, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import send_retention
from chalicelib.store import port as store

STATE = "statsretention"  # one item, id 1: the next feed bucket to look at
DAILY = "statsdaily"  # one item per feed bucket: {"days": {day: {what: count}}}
TYPES = ("page.hit", "asset.download")
TIMER = time.monotonic  # the run's budget is measured with it


def _without_query(url: object) -> str:
    """A URL without its query and fragment (they may name the visitor)."""
    parts = urlsplit(str(url or ""))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def counted_as(event: Doc) -> str:
    """What a visit event counts as per day: `<type>#page:<id>`, `#asset:<id>`, `#email:<id>` (a click),
    else `#url:<url without its query>` (the tracking pixel)."""
    details = event.get("details") or {}
    for key in ("page", "asset"):
        if isinstance(details.get(key), dict):
            return f"{event['event']}#{key}:{details[key].get('id')}"
    if details.get("emailId"):
        return f"{event['event']}#email:{details['emailId']}"
    return f"{event['event']}#url:{_without_query(details.get('url'))}"


def daily_counts(events: Iterable[Doc]) -> dict[str, dict[str, int]]:
    """{day: {what: count}} of visit events (the day of their UTC timestamp)."""
    days: dict[str, Counter[str]] = {}
    for event in events:
        days.setdefault(event["timestamp"][:10], Counter())[counted_as(event)] += 1
    return {day: dict(counts) for day, counts in sorted(days.items())}


def _bucket(number: int, cutoff: str) -> bool:
    """Fold one feed bucket: its visit events and the send records its `email.sent` events name are
    counted per day (once: the counts of a bucket are written whole, before anything is removed), then
    the visits are removed and the send records slimmed; False (nothing done) while any event in it is
    newer than `cutoff`."""
    events = list(store.feed(f"timeline#{number}", descending=False))
    if any(clock.parse(e["timestamp"]) >= clock.parse(cutoff) for e in events):
        return False
    visits = [e for e in events if e["event"] in TYPES]
    sends = send_retention.records(send_retention.keys(events))
    texts = send_retention.records(send_retention.keys(events, "sms"))
    if (visits or sends or texts) and store.get(DAILY, number) is None:
        emails = send_retention.daily_counts(stat for _, stat in sends)
        sms = send_retention.daily_counts((stat for _, stat in texts), "sms")
        store.put(DAILY, {"id": number, "days": daily_counts(visits), "emails": emails, "texts": sms})
    for kind, stat in sends + texts:
        send_retention.slim(kind, stat)
    for event in visits:
        store.remove(timeline.kind(event["contactId"]), event["id"])
    return True


def sweep(ctx: Context, days: int, seconds: float) -> Doc:
    """Run for up to `seconds` over the full buckets of the feed (0 days: rows are kept); the state after."""
    stored = store.get(STATE, 1) or {"id": 1, "bucket": 0}
    state = {k: v for k, v in stored.items() if not k.startswith("_")}
    if days <= 0:
        return state
    cutoff = clock.iso(clock.parse(ctx.now) - timedelta(days=days))
    newest, deadline = store.last_id("timeline") // timeline.FEED_BUCKET, TIMER() + seconds
    while state["bucket"] < newest and TIMER() < deadline and _bucket(int(state["bucket"]), cutoff):
        state["bucket"] = int(state["bucket"]) + 1
        store.put(STATE, state)
    return state


def kept(day_from: str, day_to: str) -> dict[str, dict[str, int]]:
    """The per-day counts folded so far for days in [day_from, day_to] (`YYYY-MM-DD`), added up across buckets."""
    totals: dict[str, Counter[str]] = {}
    for doc in store.iterate(DAILY):
        for day, counts in (doc.get("days") or {}).items():
            if day_from <= day <= day_to:
                totals.setdefault(day, Counter()).update(counts)
    return {day: dict(counts) for day, counts in sorted(totals.items())}


def kept_sends(day_from: str, day_to: str, channel: str = "email") -> dict[str, dict[str, dict[str, int]]]:
    """The per-day counts of the email sends folded so far, sent in [day_from, day_to]: {day: {email id:
    {sent, read, failed, bounced, clicked, clicks, opens...}}}, added up across buckets (`channel` "sms":
    the text messages', {day: {sms id: {sent}}})."""
    totals: dict[str, dict[str, Counter[str]]] = {}
    for doc in store.iterate(DAILY):
        for day, emails in (doc.get("emails" if channel == "email" else "texts") or {}).items():
            if day_from <= day <= day_to:
                for email_id, counts in emails.items():
                    totals.setdefault(day, {}).setdefault(email_id, Counter()).update(counts)
    return {day: {i: dict(c) for i, c in emails.items()} for day, emails in sorted(totals.items())}


def run() -> None:
    """The hourly job: the sweep with the settings (`STATS_RETENTION_DAYS`, `RETENTION_SWEEP_SECONDS`)."""
    sweep(Context(), config.active().STATS_RETENTION_DAYS, config.active().RETENTION_SWEEP_SECONDS)
