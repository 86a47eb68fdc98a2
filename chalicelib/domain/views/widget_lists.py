"""Mautic's dashboard widgets that are no time chart: pies (`chartType: pie`, one dataset of
values with their colours, labels `Label; Nx, P%`), bars, tables (`headItems`: Mautic's label
keys, `bodyItems`: rows of cells, `raw`: the rows as Mautic's queries name their columns), the
map (`{height, data: {country code: contacts}}`) and the upcoming emails. Each counts the timeline
events of its range (the all-contacts feed, newest first, only back to the range's start) or the
documents of a kind, and only what the caller may view: an event counts when the document it
names (asset, email, form, page, automation, contact) is viewable (`guarded`), a document list
reads `access.visible_documents`."""

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from chalicelib.domain.kernel import access, clock, registry, service, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging.stats_tables import db_value
from chalicelib.domain.views import charts, time_range
from chalicelib.domain.views.time_range import DB_FORMAT, Range

Build = Callable[[Range, int, int, Context], Doc]  # (range, limit, height, ctx) -> the widget's template data
COUNTRY_CODES: dict[str, str] = json.loads((Path(__file__).parent / "data" / "country_codes.json").read_text("utf-8"))
DWELL_TIMES = ("< 1m", "1 - 5m", "5 - 10m", "> 10m")  # Mautic's labels; no hit records when it was left


def events_in(span: Range, what: str = "This widget") -> Iterator[Doc]:
    """The timeline events inside the range, newest first, the read stopping at its start."""
    rows = ({"at": db_value(e["timestamp"]), "event": e} for e in timeline.all_events(True))
    return (row["event"] for row in time_range.within(rows, "at", span, True, what))


def _of(events: Iterable[Doc], *types: str) -> list[Doc]:
    return [e for e in events if e["event"] in types]


def visible_ids(ctx: Context, kind: str, ids: Iterable[JSON]) -> set[JSON]:
    """The ids (None: no document) of `kind` whose documents the caller may view: all of them for a
    caller who sees every document (nothing read), else read in one BatchGetItem per 100; Forbidden
    without any view of the kind."""
    resource = registry.resource(kind)
    wanted = set(ids)
    if access.visible_owner(ctx, resource) is None:
        return wanted
    docs = service.referenced_many({kind: [i for i in wanted if i is not None]}, ctx)[kind]
    return {i for i in wanted if i is not None and access.viewable(ctx, resource, docs.get(i))}


def guarded(events: Sequence[Doc], ctx: Context, kind: str, key: Callable[[Doc], JSON]) -> list[Doc]:
    """The events whose document of `kind` (its id `key(event)`) the caller may view."""
    seen = visible_ids(ctx, kind, (key(e) for e in events))
    return [e for e in events if key(e) in seen]


def _detail(*path: str) -> Callable[[Doc], JSON]:
    def get(event: Doc) -> JSON:
        value: JSON = event.get("details") or {}
        for name in path:
            value = value.get(name) if isinstance(value, dict) else None
        return value

    return get


ASSET, EMAIL, FORM, PAGE = _detail("asset", "id"), _detail("emailId"), _detail("form", "id"), _detail("page", "id")


def contact_of(event: Doc) -> JSON:
    """The contact an event belongs to."""
    return event.get("contactId")


# --- pies -----------------------------------------------------------------------------------------


def pie(values: Sequence[tuple[str, int]], height: int) -> Doc:
    """Mautic's PieChart: labels with their count and share, one dataset of values and colours."""
    total = sum(value for _, value in values)
    labels = [f"{label}; {value}x, {round(value / total * 100, 2):g}%" if total else label for label, value in values]
    colours = [charts.COLORS[i % len(charts.COLORS)] for i in range(len(values))]
    dataset = {
        "data": [value for _, value in values],
        "backgroundColor": [f"rgba({r},{g},{b},0.8)" for r, g, b in colours],
        "hoverBackgroundColor": [f"rgba({r},{g},{b},0.9)" for r, g, b in colours],
    }
    return {"chartType": "pie", "chartHeight": height - 80, "chartData": {"labels": labels, "datasets": [dataset]}}


def _downloads_pie(span: Range, limit: int, height: int, ctx: Context) -> Doc:
    downloads = guarded(_of(events_in(span), "asset.download"), ctx, "asset", ASSET)
    unique = len({(contact_of(e), ASSET(e)) for e in downloads})
    return pie([("Unique", unique), ("Repetitive", len(downloads) - unique)], height)


def _read_pie(span: Range, limit: int, height: int, ctx: Context) -> Doc:
    found = guarded(_of(events_in(span), "email.sent", "email.read", "email.failed"), ctx, "email", EMAIL)
    counts = Counter(e["event"] for e in found)
    sent, read, failed = counts["email.sent"], counts["email.read"], counts["email.failed"]
    return pie([("Ignored", max(sent - read - failed, 0)), ("Read", read), ("Failed", failed)], height)


def _returning_pie(span: Range, limit: int, height: int, ctx: Context) -> Doc:
    hits = guarded(_of(events_in(span), "page.hit"), ctx, "page", PAGE)
    per_visitor = Counter(contact_of(e) for e in hits)
    returning = sum(1 for count in per_visitor.values() if count > 1)
    return pie([("Unique", len(per_visitor) - returning), ("Returning", returning)], height)


def _dwell_pie(span: Range, limit: int, height: int, ctx: Context) -> Doc:
    hits = guarded(_of(events_in(span), "page.hit"), ctx, "page", PAGE)
    return pie([(label, len(hits) if i == 0 else 0) for i, label in enumerate(DWELL_TIMES)], height)


def _created_contacts(span: Range, ctx: Context) -> Iterator[Doc]:
    """The contacts created in the range that the caller may view, newest first."""
    docs = ({"at": db_value(d.get("dateAdded")), "doc": d} for d in _visible_docs(ctx, "contact"))
    return (row["doc"] for row in time_range.within(docs, "at", span, True, "This widget"))


def _visible_docs(ctx: Context, kind: str) -> Iterator[Doc]:
    return access.visible_documents(ctx, registry.resource(kind), descending=True)


def _identified_pie(span: Range, limit: int, height: int, ctx: Context) -> Doc:
    contacts = list(_created_contacts(span, ctx))
    identified = sum(1 for doc in contacts if doc.get("dateIdentified"))
    return pie([("Identified", identified), ("Anonymous", len(contacts) - identified)], height)


def _devices_pie(types: tuple[str, ...], kind: str, key: Callable[[Doc], JSON]) -> Build:
    """A pie of the device types (`device` of their first device) of the contacts behind the events."""

    def build(span: Range, limit: int, height: int, ctx: Context) -> Doc:
        found = guarded(_of(events_in(span), *types), ctx, kind, key)
        contacts = service.referenced_many({"contact": list({contact_of(e) for e in found})}, ctx)["contact"]
        counts: Counter[str] = Counter()
        for event in found:
            devices = (contacts.get(contact_of(event)) or {}).get("devices") or [{}]
            counts[devices[0].get("device") or "unknown"] += 1
        return pie(sorted(counts.items()), height)

    return build


# --- tables ---------------------------------------------------------------------------------------


def table(head: Sequence[str], raw: Sequence[Doc], cells: Callable[[Doc], list[Doc]]) -> Doc:
    """Mautic's table widget: label keys, rows of cells, and the raw rows."""
    return {"headItems": list(head), "bodyItems": [cells(row) for row in raw], "raw": list(raw)}


def _link(value: JSON, path: str) -> Doc:
    return {"value": value, "type": "link", "link": path}


def _top(counts: Counter[JSON], limit: int) -> list[tuple[JSON, int]]:
    """The most counted keys, ties by key, at most `limit`."""
    return sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))[:limit]


def _docs(ctx: Context, kind: str, ids: Iterable[JSON]) -> dict[JSON, Doc]:
    return service.referenced_many({kind: [i for i in ids if i is not None]}, ctx)[kind]


def _popular(event_type: str, kind: str, key: Callable[[Doc], JSON], count: str, title: str, head: str) -> Build:
    """The documents of `kind` named by the most events of the range (Mautic's popular assets and
    pages, most sent and most read emails)."""

    def build(span: Range, limit: int, height: int, ctx: Context) -> Doc:
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


def _created(kind: str, title: str) -> Build:
    """The documents of `kind` created in the range, newest first (Mautic's created assets, forms...)."""

    def build(span: Range, limit: int, height: int, ctx: Context) -> Doc:
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


def _contact_name(doc: Doc) -> str:
    values = doc.get("values") or {}
    name = f"{values.get('firstname') or ''} {values.get('lastname') or ''}".strip()
    return name or values.get("email") or "anonymous"


def _created_leads(span: Range, limit: int, height: int, ctx: Context) -> Doc:
    raw = []
    for doc in _created_contacts(span, ctx):
        values = doc.get("values") or {}
        raw.append(
            {"id": doc["id"], "firstname": values.get("firstname"), "lastname": values.get("lastname")}
            | {"email": values.get("email"), "date_added": db_value(doc.get("dateAdded"))}
            | {"date_modified": db_value(doc.get("dateModified")), "name": _contact_name(doc)}
        )
        if len(raw) >= limit:
            break
    return table(["mautic.dashboard.label.title"], raw, lambda r: [_link(r["name"], f"/s/contacts/view/{r['id']}")])


def _referrers(span: Range, limit: int, height: int, ctx: Context) -> Doc:
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


def _submitters(span: Range, limit: int, height: int, ctx: Context) -> Doc:
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


def _top_lists(span: Range, limit: int, height: int, ctx: Context) -> Doc:
    added = [e for e in _of(events_in(span), "segment_membership") if _detail("action")(e) == "added"]
    found = guarded(added, ctx, "segment", _detail("segmentId"))
    top = _top(Counter(_detail("segmentId")(e) for e in found), limit)
    segments = _docs(ctx, "segment", (i for i, _ in top))
    raw = [
        {
            "leads": n,
            "id": i,
            "name": (segments.get(i) or {}).get("name"),
            "alias": (segments.get(i) or {}).get("alias"),
        }
        for i, n in top
    ]
    return table(
        ["mautic.dashboard.label.title", "mautic.lead.leads"],
        raw,
        lambda r: [_link(r["name"], f"/s/contacts?search=segment:{r['alias']}"), {"value": r["leads"]}],
    )


def _top_people(by: str, head: str) -> Build:
    """Contacts created in the range counted by their owner (`owner`) or creator (`createdBy`)."""

    def build(span: Range, limit: int, height: int, ctx: Context) -> Doc:
        access.require_any(ctx, ("lead:leads:viewother",))  # Mautic: others' contacts are counted
        contacts = list(_created_contacts(span, ctx))
        top = _top(Counter(doc.get(by) for doc in contacts if doc.get(by) is not None), limit)
        users = _docs(ctx, "user", (i for i, _ in top))
        raw = [_person_row(by, users.get(i) or {}, i, n) for i, n in top]
        return table([head, "mautic.lead.leads"], raw, lambda r: [{"value": r["name"]}, {"value": r["leads"]}])

    return build


def _person_row(by: str, user: Doc, user_id: JSON, count: int) -> Doc:
    first, last = user.get("firstName") or "", user.get("lastName") or ""
    if by == "owner":
        return {"leads": count, "owner_id": user_id, "first_name": first, "last_name": last, "name": f"{first} {last}"}
    name = f"{first} {last}".strip() or user.get("username")
    return {"leads": count, "created_by": user_id, "created_by_user": name, "name": name}


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


def _sent_to_contacts(span: Range, limit: int, height: int, ctx: Context) -> Doc:
    """Mautic's `sent.email.to.contacts`: the latest sends of the range, a row each."""
    found = guarded(guarded(_of(events_in(span), "email.sent"), ctx, "email", EMAIL), ctx, "contact", contact_of)
    found = found[:limit]
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


def _redirects(span: Range, limit: int, height: int, ctx: Context) -> Doc:
    """Mautic's `most.hit.email.redirects`: the links of emails clicked most in the range."""
    clicks = [e for e in _of(events_in(span), "page.hit") if _detail("source")(e) == "email"]
    clicks = guarded(clicks, ctx, "email", EMAIL)
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


def _upcoming(span: Range, limit: int, height: int, ctx: Context) -> Doc:
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


def _map(span: Range, limit: int, height: int, ctx: Context) -> Doc:
    """Mautic's `map.of.leads`: contacts created in the range by country (its 2-letter code)."""
    counts: Counter[str] = Counter()
    for doc in _created_contacts(span, ctx):
        country = str((doc.get("values") or {}).get("country") or "")
        code = COUNTRY_CODES.get(country) or (country.upper() if len(country) == 2 else None)
        if code:
            counts[code] += 1
    return {"height": height, "data": dict(sorted(counts.items()))}


def _best_hours(span: Range, limit: int, height: int, ctx: Context) -> Doc:
    """Mautic's `emails.best.hours`: the share of the range's reads made in each hour of the day."""
    reads = guarded(_of(events_in(span), "email.read"), ctx, "email", EMAIL)
    per_hour = Counter(int((db_value(e["timestamp"]) or "0000-00-00 00")[11:13]) for e in reads)
    total = sum(per_hour.values())
    data = [round(per_hour[h] / total * 100, 2) if total else 0 for h in range(24)]
    r, g, b = charts.COLORS[0]
    dataset = {"label": "Reads", "data": data, "backgroundColor": f"rgba({r},{g},{b},0.8)"}
    dataset |= {"borderColor": f"rgba({r},{g},{b},1)"}
    chart = {"labels": [f"{h:02d}:00" for h in range(24)], "datasets": [dataset]}
    return {"chartType": "bar", "chartHeight": height - 80, "chartData": chart}


def _lifetime(span: Range, limit: int, height: int, ctx: Context) -> Doc:
    """Mautic's `lead.lifetime` with one column, all contacts: their count in the range."""
    count = sum(1 for _ in _created_contacts(span, ctx))
    return {
        "columnName": ["All Contacts"],
        "value": [count],
        "width": 100,
        "link": ["/s/contacts"],
        "chartType": "pie",
        "chartHeight": height - 180,
        "chartItems": [pie([("All Contacts", count)], height)["chartData"]],
        "stages": [],
        "devices": [],
    }


def _build_times(span: Range, limit: int, height: int, ctx: Context) -> Doc:
    """Mautic's `segments.build.time`: the segments; their last build time is not kept (null)."""
    raw = []
    for doc in _visible_docs(ctx, "segment"):
        raw.append({"id": doc["id"], "name": doc.get("name"), "createdByUser": doc.get("createdByUser")})
        if len(raw) >= limit:
            break
    for row in raw:
        row["lastBuiltTime"] = None
    head = ["mautic.dashboard.label.title", "mautic.core.createdby", "mautic.lead.list.last_built_time"]
    return table(head, raw, lambda r: [{"value": r["name"]}, {"value": r["createdByUser"]}, {"value": None}])


# type: (category, name, builder)
WIDGETS: dict[str, tuple[str, str, Build]] = {
    "unique.vs.repetitive.downloads": ("asset", "Unique vs repetitive downloads", _downloads_pie),
    "popular.assets": (
        "asset",
        "Popular assets",
        _popular("asset.download", "asset", ASSET, "download_count", "title", "mautic.dashboard.label.downloads"),
    ),
    "created.assets": ("asset", "Created assets", _created("asset", "title")),
    "sent.email.to.contacts": ("email", "Sent email to contacts", _sent_to_contacts),
    "most.hit.email.redirects": ("email", "Most hit email redirects", _redirects),
    "ignored.vs.read.emails": ("email", "Ignored vs read", _read_pie),
    "upcoming.emails": ("email", "Upcoming emails", _upcoming),
    "most.sent.emails": (
        "email",
        "Most sent emails",
        _popular("email.sent", "email", EMAIL, "count", "name", "mautic.email.sends"),
    ),
    "most.read.emails": (
        "email",
        "Most read emails",
        _popular("email.read", "email", EMAIL, "count", "name", "mautic.email.reads"),
    ),
    "created.emails": ("email", "Created emails", _created("email", "name")),
    "device.granularity.email": (
        "email",
        "Devices for emails read",
        _devices_pie(("email.read",), "email", EMAIL),
    ),
    "emails.best.hours": ("email", "Best email read hours", _best_hours),
    "top.submission.referrers": ("form", "Top submission referrers", _referrers),
    "top.submitters": ("form", "Top submitters", _submitters),
    "created.forms": ("form", "Created forms", _created("form", "name")),
    "anonymous.vs.identified.leads": ("lead", "Anonymous vs identified contacts", _identified_pie),
    "lead.lifetime": ("lead", "Lifecycle", _lifetime),
    "map.of.leads": ("lead", "Map", _map),
    "top.lists": ("lead", "Top segments", _top_lists),
    "segments.build.time": ("lead", "Segments build time", _build_times),
    "top.creators": (
        "lead",
        "Top contact creators",
        _top_people("createdBy", "mautic.user.account.permissions.editname"),
    ),
    "top.owners": ("lead", "Top contact owners", _top_people("owner", "mautic.user.account.permissions.editname")),
    "created.leads": ("lead", "Created contacts", _created_leads),
    "unique.vs.returning.leads": ("page", "Unique vs returning visitors", _returning_pie),
    "dwell.times": ("page", "Dwell times", _dwell_pie),
    "popular.pages": (
        "page",
        "Popular landing pages",
        _popular("page.hit", "page", PAGE, "hits", "title", "mautic.dashboard.label.hits"),
    ),
    "created.pages": ("page", "Created Landing pages", _created("page", "title")),
    "device.granularity": ("page", "Device granularity", _devices_pie(("page.hit",), "page", PAGE)),
}
