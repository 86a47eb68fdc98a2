"""The data of Mautic's asset, email, form and page widgets that are no time chart: their pies
(downloads, ignored vs read, returning visitors, dwell times, devices), popular and created tables,
submission referrers and submitters, email sends and redirects, best read hours (bars) and the
upcoming emails. Each counts the timeline events of its range whose document (asset, email, form,
page, automation, contact) the caller may view, or lists the documents of a kind it may view."""

from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import replace
from datetime import datetime, timedelta

from chalicelib.domain.contacts import time_on_page
from chalicelib.domain.kernel import clock, references, registry
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging.stats_tables import db_value
from chalicelib.domain.views import charts, time_range, widget_filters
from chalicelib.domain.views.time_range import DB_FORMAT, Range
from chalicelib.domain.views.widget_base import (
    ASSET,
    EMAIL,
    FORM,
    PAGE,
    Build,
    _contact_name,
    _detail,
    _docs,
    _link,
    _of,
    _top,
    _visible_docs,
    contact_of,
    events_in,
    guarded,
    pie,
    table,
)
from chalicelib.domain.views.widget_filters import Params

# (label, from, till): seconds on the page, from included (HitRepository::getDwellTimeLabels)
DWELL_TIMES = (("< 1m", 0, 60), ("1 - 5m", 60, 300), ("5 - 10m", 300, 600), ("> 10m", 600, 999999))


def downloads_pie(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `unique.vs.repetitive.downloads`: one download per contact and asset is unique."""
    downloads = guarded(_of(events_in(span), "asset.download"), ctx, "asset", ASSET)
    unique = len({(contact_of(e), ASSET(e)) for e in downloads})
    return pie([("Unique", unique), ("Repetitive", len(downloads) - unique)], height)


def read_pie(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `ignored.vs.read.emails`: the range's sends, read, failed or ignored."""
    found = guarded(_of(events_in(span), "email.sent", "email.read", "email.failed"), ctx, "email", EMAIL)
    counts = Counter(e["event"] for e in found)
    sent, read, failed = counts["email.sent"], counts["email.read"], counts["email.failed"]
    return pie([("Ignored", max(sent - read - failed, 0)), ("Read", read), ("Failed", failed)], height)


def returning_pie(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `unique.vs.returning.leads`: visitors with one hit in the range, or more."""
    hits = guarded(_of(events_in(span), "page.hit"), ctx, "page", PAGE)
    per_visitor = Counter(contact_of(e) for e in hits)
    returning = sum(1 for count in per_visitor.values() if count > 1)
    return pie([("Unique", len(per_visitor) - returning), ("Returning", returning)], height)


def _hit_key(event: Doc) -> tuple[Hashable | None, datetime]:
    return contact_of(event), time_on_page.moment(event["timestamp"])


def dwell_pie(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `dwell.times`: the range's hits by their time on the page (until the contact's next
    hit within the session, read up to a session past the range: `time_on_page.py`); a hit never
    left counts in no bucket, as Mautic's TIMESTAMPDIFF of a null `date_left` is in none."""
    wider = replace(span, end=span.end + timedelta(seconds=time_on_page.SESSION_SECONDS)) if span.end else span
    end = span.db()[1] or "9999"
    timed = [
        (event, time_on_page.seconds(time_on_page.moment(event["timestamp"]), left) or 0)
        for event, left in time_on_page.newest_first(_of(events_in(wider), "page.hit"), _hit_key)
        if left and (db_value(event["timestamp"]) or "") <= end
    ]
    seen = {event["id"] for event in guarded([event for event, _ in timed], ctx, "page", PAGE)}
    counted = [on_page for event, on_page in timed if event["id"] in seen]
    return pie([(label, sum(low <= n < high for n in counted)) for label, low, high in DWELL_TIMES], height)


def devices_pie(types: tuple[str, ...], kind: str, key: Callable[[Doc], JSON]) -> Build:
    """A pie of the device types (`device` of their first device) of the contacts behind the events."""

    def build(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
        found = guarded(_of(events_in(span), *types), ctx, kind, key)
        contacts = references.referenced_many({"contact": list({contact_of(e) for e in found})}, ctx)["contact"]
        counts: Counter[str] = Counter()
        for event in found:
            devices = (contacts.get(contact_of(event)) or {}).get("devices") or [{}]
            counts[devices[0].get("device") or "unknown"] += 1
        return pie(sorted(counts.items()), height)

    return build


def popular(event_type: str, kind: str, key: Callable[[Doc], JSON], count: str, title: str, head: str) -> Build:
    """The documents of `kind` named by the most events of the range (Mautic's popular assets and
    pages, most sent and most read emails)."""

    def build(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
        found = guarded(_of(events_in(span), event_type), ctx, kind, key)
        top = _top(Counter(key(e) for e in found if key(e) is not None), limit)
        docs = _docs(ctx, kind, (i for i, _ in top))
        raw = [{count: n, "id": i, title: (docs.get(i) or {}).get(title)} for i, n in top]
        return table(
            ["mautic.dashboard.label.title", head],
            raw,
            lambda r: [_link(r[title], f"/s/{registry.resource(kind).prefix}/view/{r['id']}"), {"value": r[count]}],
        )

    return build


def created_list(kind: str, title: str) -> Build:
    """The documents of `kind` created in the range, newest first (Mautic's created assets, forms...)."""

    def build(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
        rows = ({"at": db_value(d.get("dateAdded")), "doc": d} for d in _visible_docs(ctx, kind))
        raw = []
        for row in time_range.within(rows, "at", span, True, "This widget"):
            doc = row["doc"]
            raw.append(
                {"id": doc["id"], "name": doc.get(title), "date_added": db_value(doc.get("dateAdded"))}
                | {"date_modified": db_value(doc.get("dateModified"))}
            )
            if len(raw) >= limit:
                break
        prefix = registry.resource(kind).prefix
        return table(["mautic.dashboard.label.title"], raw, lambda r: [_link(r["name"], f"/s/{prefix}/view/{r['id']}")])

    return build


def referrers(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `top.submission.referrers`: the referers of the most submissions in the range."""
    found = guarded(_of(events_in(span), "form.submitted"), ctx, "form", FORM)
    top = _top(Counter(_detail("submission", "referer")(e) for e in found), limit)
    raw = [{"submissions": n, "referer": referer} for referer, n in top]
    return table(
        ["mautic.form.result.thead.referrer", "mautic.form.graph.line.submissions"],
        raw,
        lambda r: [
            {"value": r["referer"], "type": "link", "external": True, "link": r["referer"]},
            {"value": r["submissions"]},
        ],
    )


def submitters(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `top.submitters`: the contacts who submitted forms most in the range."""
    found = guarded(_of(events_in(span), "form.submitted"), ctx, "form", FORM)
    found = guarded(found, ctx, "contact", contact_of)
    top = _top(Counter(contact_of(e) for e in found), limit)
    contacts = _docs(ctx, "contact", (i for i, _ in top))
    raw = []
    for contact_id, n in top:
        values = (contacts.get(contact_id) or {}).get("values") or {}
        raw.append(
            {"submissions": n, "lead_id": contact_id, "firstname": values.get("firstname")}
            | {"lastname": values.get("lastname"), "email": values.get("email")}
        )
    return table(
        ["mautic.form.lead", "mautic.form.graph.line.submissions"],
        raw,
        lambda r: [
            _link(_contact_name({"values": r}), f"/s/contacts/view/{r['lead_id']}"),
            {"value": r["submissions"]},
        ],
    )


SENT_HEAD = (
    "contact.id",
    "contact.email.address",
    "contact.open",
    "contact.click",
    "contact.links.clicked",
    "email.id",
    "email.name",
    "segment.id",
    "segment.name",
    "company.id",
    "company.name",
    "campaign.id",
    "campaign.name",
    "date.sent",
    "date.read",
)


def sent_to_contacts(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `sent.email.to.contacts`: the latest sends of the range, a row each, of the contacts
    `filter[companyId|campaignId|segmentId]` keep."""
    found = guarded(guarded(_of(events_in(span), "email.sent"), ctx, "email", EMAIL), ctx, "contact", contact_of)
    found = widget_filters.matching(found, params, ctx)[:limit]
    emails = _docs(ctx, "email", {EMAIL(e) for e in found})
    contacts = _docs(ctx, "contact", {contact_of(e) for e in found})
    rows = []
    for event in found:
        mail, person = emails.get(EMAIL(event)) or {}, contacts.get(contact_of(event)) or {}
        rows.append(
            {"contact_id": contact_of(event), "contact_email": (person.get("values") or {}).get("email")}
            | {
                "open": None,
                "click": None,
                "links_clicked": [],
                "email_id": EMAIL(event),
                "email_name": mail.get("name"),
            }
            | {"segment_id": None, "segment_name": None, "company_id": None, "company_name": None}
            | {"campaign_id": None, "campaign_name": None, "date_sent": db_value(event["timestamp"]), "date_read": None}
        )
    return {"headItems": [f"mautic.dashboard.label.{h}" for h in SENT_HEAD], "bodyItems": rows}


def redirects(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `most.hit.email.redirects`: the links of emails clicked most in the range, by the
    contacts `filter[companyId|campaignId|segmentId]` keep."""
    clicks = [e for e in _of(events_in(span), "page.hit") if _detail("source")(e) == "email"]
    clicks = widget_filters.matching(guarded(clicks, ctx, "email", EMAIL), params, ctx)
    link = _detail("url")
    hits = Counter((link(e), EMAIL(e)) for e in clicks)
    unique = Counter((url, email_id) for _, url, email_id in {(contact_of(e), link(e), EMAIL(e)) for e in clicks})
    emails = _docs(ctx, "email", {email_id for _, email_id in hits})
    rows = [
        {"url": url, "unique_hits": unique[(url, email_id)], "hits": n, "email_id": email_id}
        | {"email_name": (emails.get(email_id) or {}).get("name")}
        for (url, email_id), n in _top(hits, limit)
    ]
    head = ("url", "unique.hit.count", "total.hit.count", "email.id", "email.name")
    return {"headItems": [f"mautic.dashboard.label.{h}" for h in head], "bodyItems": rows}


def upcoming(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Emails automations will send later: `campaign.event.scheduled` events of `email.send` steps
    scheduled within the range and due after now."""
    now = clock.now().strftime(DB_FORMAT)
    found = [
        e
        for e in _of(events_in(span), "campaign.event.scheduled")
        if _detail("type")(e) == "email.send" and (db_value(_detail("triggerDate")(e)) or "") > now
    ]
    found = guarded(found, ctx, "automation", _detail("automationId"))
    rows = [
        {"event_id": _detail("eventId")(e), "event_name": _detail("eventName")(e)}
        | {"campaign_id": _detail("automationId")(e), "lead_id": contact_of(e)}
        | {"trigger_date": db_value(_detail("triggerDate")(e))}
        for e in sorted(found, key=lambda e: db_value(_detail("triggerDate")(e)) or "")[:limit]
    ]
    return {"upcomingEmails": rows}


def best_hours(span: Range, limit: int, height: int, ctx: Context, params: Params) -> Doc:
    """Mautic's `emails.best.hours`: the share of the range's reads made in each hour of the day (in
    the range's zone), of the contacts `filter[companyId|campaignId|segmentId]` keep."""
    reads = widget_filters.matching(guarded(_of(events_in(span), "email.read"), ctx, "email", EMAIL), params, ctx)
    per_hour = Counter(charts.local(db_value(e["timestamp"]) or "", span.zone).hour for e in reads)
    total = sum(per_hour.values())
    data = [round(per_hour[h] / total * 100, 2) if total else 0 for h in range(24)]
    r, g, b = charts.COLORS[0]
    dataset = {"label": "Reads", "data": data, "backgroundColor": f"rgba({r},{g},{b},0.8)"}
    dataset |= {"borderColor": f"rgba({r},{g},{b},1)"}
    chart = {"labels": [f"{h:02d}:00" for h in range(24)], "datasets": [dataset]}
    return {"chartType": "bar", "chartHeight": height - 80, "chartData": chart}
