"""What happens to one contact outside a create/edit: points, do-not-contact, UTM tags, companies,
stages.

Each action loads the contact, changes it and stores it with its timeline event in one
transaction (`service.save_change`).
"""

import copy
from collections.abc import Iterable
from urllib.parse import parse_qsl

from chalicelib import config
from chalicelib.domain.contacts import contact_timeline, devices
from chalicelib.domain.contacts.contact_document import CompanyLink, Contact
from chalicelib.domain.kernel import access, batching, clock, references, registry, service, timeline
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound, invalid
from chalicelib.domain.kernel.resources import Resource, Write
from chalicelib.domain.kernel.types import JSON, Doc, Event, Events
from chalicelib.store import port as store
from chalicelib.store.port import EntityId

OPERATORS = {
    "plus": lambda p, d: p + d,
    "minus": lambda p, d: p - d,
    "times": lambda p, d: p * d,
    "divide": lambda p, d: p // d,
}
DNC_REASONS = {1: "unsubscribed", 2: "bounced", 3: "manual"}
# Mautic's timeline text of each reason (`DncReasonHelper`, LeadBundle's messages.ini)
DNC_REASON_TEXTS = {
    0: "Contact is contactable.",
    1: "Contact unsubscribed from this channel.",
    2: "Communication bounced for this channel.",
    3: "Contact was manually set as do not contact for this channel.",
}
UTM_FIELDS = {
    "utm_campaign": "utmCampaign",
    "utm_source": "utmSource",
    "utm_medium": "utmMedium",
    "utm_content": "utmContent",
    "utm_term": "utmTerm",
    "useragent": "userAgent",
    "url": "url",
    "referer": "referer",
    "remotehost": "remoteHost",
}


def _param(payload: Doc, *names: str) -> JSON:
    return next((payload[n] for n in names if payload.get(n) not in (None, "")), None)


def operand(operator: str, value: JSON, operators: Iterable[str], field: str) -> int:
    """The integer `value` of a points change by `operator` (one of `operators`); 400 naming
    `operator` or `field` (not an integer, a division by zero)."""
    if operator not in operators:
        raise invalid("operator", f"Invalid operator '{operator}'; use one of: {', '.join(operators)}.")
    try:
        number = a.as_int(value)
    except a.Invalid:
        raise invalid(field, "This value should be an integer.") from None
    try:
        a.as_int32(number)  # Mautic's points are an INT column
    except a.Invalid as error:
        raise invalid(field, str(error)) from None
    if operator == "divide" and number == 0:
        raise invalid(field, "Cannot divide by zero.")
    return number


def change_points(
    resource: Resource, contact_id: EntityId, operator: str, delta: JSON, payload: Doc, ctx: Context
) -> Doc:
    """plus/minus/times/divide the contact's points; records `point.gained`. 0 changes nothing."""
    delta = operand(operator, delta, OPERATORS, "points")
    existing = service.load(resource, contact_id)
    if delta == 0 and operator in ("plus", "minus"):
        return existing
    doc = copy.deepcopy(existing)
    old = int(doc["values"].get("points") or 0)
    doc["values"]["points"] = OPERATORS[operator](old, delta)
    event = timeline.event(
        "point.gained",
        _param(payload, "eventName", "eventname") or f"API {operator} {delta}",
        {
            "action": _param(payload, "actionName", "actionname") or "API",
            "delta": delta,
            "operator": operator,
            "oldPoints": old,
            "newPoints": doc["values"]["points"],
        },
    )
    return service.save_change(resource, existing, doc, ctx, [event])


def add_dnc(resource: Resource, contact_id: EntityId, channel: str | None, payload: Doc, ctx: Context) -> Doc:
    """Mark the contact not contactable on a channel (reason 1 unsubscribed, 2 bounced, 3 manual)."""
    channel = str(payload.get("channel") or channel or "email")
    try:
        reason = a.as_int(payload.get("reason", 3) or 3)
    except a.Invalid:
        reason = None
    if reason not in DNC_REASONS:
        raise invalid("reason", "The reason should be 1 (unsubscribed), 2 (bounced) or 3 (manual).")
    existing = service.load(resource, contact_id)
    doc = copy.deepcopy(existing)
    event = set_dnc(doc, channel, reason, payload.get("comments"), payload.get("channelId"), ctx)
    return service.save_change(resource, existing, doc, ctx, [event])


def set_dnc(
    doc: Contact, channel: str, reason: int, comments: str | None, channel_id: JSON, ctx: Context, allocate: bool = True
) -> Event:
    """Mark a contact document not contactable on a channel; its `lead.donotcontact` event. With
    `allocate` False a new entry's id stays None (`dnc_ids` gives it one once the write is valid)."""
    entry = next((e for e in doc["doNotContact"] if e["channel"] == channel), None)
    if entry is None:
        entry_id = store.allocate_ids("donotcontact")[0] if allocate else None
        entry = {"id": entry_id, "dateAdded": ctx.now, "channel": channel}
        doc["doNotContact"].append(entry)
    entry.update(reason=reason, comments=comments, channelId=channel_id)
    return timeline.event("lead.donotcontact", channel[:1].upper() + channel[1:], _dnc_details(entry))


def _dnc_details(entry: Doc) -> Doc:
    """The event's details: the entry's channel, reason code and comments, and under `dnc` the row
    as Mautic's timeline shows it (the reason as its text)."""
    reason = int(entry["reason"])
    row = {
        "date_added": entry["dateAdded"],
        "reason": DNC_REASON_TEXTS[reason],
        "comments": entry.get("comments"),
        "channel": entry["channel"],
        "channel_id": entry.get("channelId"),
    }
    return {"channel": entry["channel"], "reason": reason, "comments": entry.get("comments"), "dnc": row}


def remove_dnc(resource: Resource, contact_id: EntityId, channel: str | None, payload: Doc, ctx: Context) -> Doc:
    """Make the contact contactable again on a channel."""
    channel = str(payload.get("channel") or channel or "email")
    existing = service.load(resource, contact_id)
    doc = copy.deepcopy(existing)
    event = clear_dnc(doc, channel)
    return service.save_change(resource, existing, doc, ctx, [event]) if event else existing


def clear_dnc(doc: Contact, channel: str) -> Event | None:
    """Make a contact document contactable on a channel; its event, or None when it already was."""
    kept = [e for e in doc["doNotContact"] if e["channel"] != channel]
    if len(kept) == len(doc["doNotContact"]):
        return None
    doc["doNotContact"] = kept
    return timeline.event("lead.donotcontact", f"{channel}: contactable", {"channel": channel, "reason": 0})


def _dnc_entries(value: JSON) -> list[tuple[str, int, str | None]]:
    """The `doNotContact` entries of a contact payload as (channel, reason, comments), or Invalid.
    As Mautic: the channel defaults to email and the reason to 3 (manual); reason 0 removes."""
    entries = []
    for item in a.as_list(value) if value not in (None, "") else []:
        if not isinstance(item, dict):
            raise a.Invalid("Each entry should be an object with channel, reason and comments.")
        try:
            reason = a.as_int(item.get("reason", 3) if item.get("reason") not in (None, "") else 3)
        except a.Invalid:
            reason = None
        if reason not in (0, *DNC_REASONS):
            raise a.Invalid("The reason should be 0 (contactable), 1 (unsubscribed), 2 (bounced) or 3 (manual).")
        comments = item.get("comments")
        entries.append(
            (
                a.as_string(item.get("channel") or "email"),
                reason,
                None if comments in (None, "") else a.as_string(comments),
            )
        )
    return entries


def dnc_from_payload(doc: Contact, write: Write) -> Events:
    """Apply a contact payload's `doNotContact` entries to the document being written (compat 8.5);
    their timeline events. A bad entry is an error of the write, and nothing is applied."""
    try:
        entries = _dnc_entries(write.payload["doNotContact"])
    except a.Invalid as error:
        write.errors["doNotContact"] = [str(error)]
        return []
    doc["doNotContact"] = [dict(e) for e in doc.get("doNotContact") or []]
    events = [
        clear_dnc(doc, channel)
        if reason == 0
        else set_dnc(doc, channel, reason, comments, None, write.ctx, allocate=False)
        for channel, reason, comments in entries
    ]
    return [event for event in events if event]


def dnc_ids(doc: Contact) -> None:
    """Give the new do-not-contact entries of a valid write their ids (a batch reserves them in a block)."""
    new = [entry for entry in doc.get("doNotContact") or [] if entry["id"] is None]
    for entry, entry_id in zip(new, batching.allocate_ids("donotcontact", len(new)) if new else [], strict=True):
        entry["id"] = entry_id


def _utm_query(value: JSON) -> Doc:
    if isinstance(value, str):
        return dict(parse_qsl(value.lstrip("?")))
    return value if isinstance(value, dict) else {}


def add_utm(resource: Resource, contact_id: EntityId, payload: Doc, ctx: Context) -> Doc:
    """Record UTM tags; `lastActive` moves the contact's last activity; `useragent` adds the device
    it names unless the contact has it (domain/contacts/devices.py)."""
    existing = service.load(resource, contact_id)
    doc = copy.deepcopy(existing)
    entry = {"id": None, "dateAdded": ctx.now, "query": _utm_query(payload.get("query"))}
    entry.update({key: payload.get(name) for name, key in UTM_FIELDS.items()})
    if payload.get("lastActive"):
        try:
            doc["lastActive"] = clock.iso(clock.parse(str(payload["lastActive"])))
        except (ValueError, OverflowError):
            raise invalid("lastActive", "This value is not a valid date and time.") from None
        doc["values"]["last_active"] = clock.parse(doc["lastActive"]).strftime("%Y-%m-%d %H:%M:%S")
    if payload.get("useragent"):
        devices.record(doc, payload["useragent"], doc["lastActive"] if payload.get("lastActive") else ctx.now)
    return service.save_change(resource, existing, doc, ctx, [record_utm(doc, entry)])


def record_utm(doc: Contact, entry: Doc) -> Event:
    """Append a UTM record (given its id here) to a contact document; its `lead.utmtagsadded` event."""
    entry["id"] = store.allocate_ids("utmtag")[0]
    doc["utmtags"] = (doc.get("utmtags") or []) + [entry]
    return timeline.event(
        "lead.utmtagsadded",
        entry.get("utmCampaign") or entry.get("url") or "UTM tags",
        {key: value for key, value in entry.items() if key != "id"},
    )


def remove_utm(resource: Resource, contact_id: EntityId, utm_id: EntityId, ctx: Context) -> Doc:
    """Remove one UTM record; 404 when the contact has none with that id."""
    existing = service.load(resource, contact_id)
    doc = copy.deepcopy(existing)
    doc["utmtags"] = [u for u in doc["utmtags"] if str(u["id"]) != str(utm_id)]
    if len(doc["utmtags"]) == len(existing["utmtags"]):
        raise NotFound()
    return service.save_change(resource, existing, doc, ctx)


def add_to_company(
    contacts: Resource, companies: Resource, company_id: EntityId, contact_id: EntityId, ctx: Context
) -> Doc:
    """Link the contact to a company; the first company is primary and names the `company` field."""
    company = service.load(companies, company_id)
    existing = service.load(contacts, contact_id)
    doc = copy.deepcopy(existing)
    return service.save_change(contacts, existing, doc, ctx) if link_company(doc, company, ctx) else existing


def link_company(doc: Contact, company: Doc, ctx: Context) -> bool:
    """Link a contact document to a company (the first one is primary); False when already linked."""
    if any(link["id"] == company["id"] for link in doc.get("companies") or []):
        return False
    primary = not doc.get("companies")
    link: CompanyLink = {"id": company["id"], "dateAdded": ctx.now, "isPrimary": primary}
    doc["companies"] = (doc.get("companies") or []) + [link]
    if primary:
        doc["values"]["company"] = company["values"].get("companyname")
    return True


def remove_from_company(
    contacts: Resource, companies: Resource, company_id: EntityId, contact_id: EntityId, ctx: Context
) -> Doc:
    """Unlink the contact; when the primary company goes, the next linked one becomes primary."""
    company = service.load(companies, company_id)
    existing = service.load(contacts, contact_id)
    doc = copy.deepcopy(existing)
    return service.save_change(contacts, existing, doc, ctx) if unlink_company(doc, company, ctx) else existing


def unlink_company(doc: Contact, company: Doc, ctx: Context) -> bool:
    """Unlink a contact document from a company (a stored one, or `{"id"}` of one that is gone); False
    when it was not linked. When the primary goes, the next link becomes primary, and the `company`
    field that named the company gone names the new primary (None when none is left, or it is gone)."""
    links = [copy.copy(link) for link in doc.get("companies") or [] if link["id"] != company["id"]]
    if len(links) == len(doc.get("companies") or []):
        return False
    if links and not any(link["isPrimary"] for link in links):
        links[0]["isPrimary"] = True
    doc["companies"] = links
    if doc["values"].get("company") == (company.get("values") or {}).get("companyname"):
        primary = next((link["id"] for link in links if link["isPrimary"]), None)
        found = references.referenced("company", [primary], ctx).get(primary) if primary else None
        doc["values"]["company"] = found["values"].get("companyname") if found else None
    return True


def contact_companies(contacts: Resource, companies: Resource, contact_id: EntityId, ctx: Context) -> Doc:
    """`{"total", "companies": [company columns + is_primary, date_associated]}` (compat 1.8)."""
    links = service.load(contacts, contact_id).get("companies") or []
    found = store.batch_get(companies.kind, [link["id"] for link in links])
    rows = [
        dict(
            found[link["id"]]["values"],
            id=link["id"],
            is_primary=int(link["isPrimary"]),
            date_associated=link["dateAdded"],
        )
        for link in links
        if link["id"] in found
    ]
    return {"total": len(rows), "companies": rows}


def activity(resource: Resource, contact_id: EntityId, query: Doc) -> Doc:
    """The contact's timeline with the spec's filters (`filters[...]`, `order`, `page`, `limit`)."""
    service.load(resource, contact_id)
    return contact_timeline.read(contact_id, *_timeline_query(query))


def all_activity(query: Doc) -> Doc:
    """All contacts' events with the same filters and paging (compat 9.1, `GET /contacts/activity`)."""
    return contact_timeline.read_all(*_timeline_query(query))


def _timeline_query(query: Doc) -> tuple[Doc, tuple[str, str], int, int]:
    """(filters, (column, direction), page, limit) of an activity request."""
    raw = query.get("filters")
    filters: Doc = raw if isinstance(raw, dict) else {}
    filters = {
        k: (a.as_list(v) if k.endswith("Events") and not isinstance(v, str) else ([v] if k.endswith("Events") else v))
        for k, v in filters.items()
    }
    order = a.as_list(query.get("order")) if isinstance(query.get("order"), (list, dict)) else []
    column = order[0] if order and order[0] in ("timestamp", "eventLabel") else "timestamp"
    direction = str(order[1]).upper() if len(order) > 1 and str(order[1]).upper() in ("ASC", "DESC") else "DESC"
    try:
        page = max(1, a.as_int(query.get("page") or 1))
        limit = min(max(1, a.as_int(query.get("limit") or timeline.DEFAULT_LIMIT)), config.active().MAX_PAGE_LIMIT)
    except a.Invalid:
        raise invalid("page", "page and limit should be integers.") from None
    return filters, (column, direction), page, limit


def adjust_points(doc: Contact, operator: str, delta: int, label: str | None, details: Doc) -> Event | None:
    """Change the points of a contact document; the `point.gained` event, or None when nothing changed."""
    old = int(doc["values"].get("points") or 0)
    new = OPERATORS[operator](old, delta) if not (operator == "divide" and delta == 0) else old
    if new == old:
        return None
    doc["values"]["points"] = new
    return timeline.event(
        "point.gained", label, dict(details, delta=delta, operator=operator, oldPoints=old, newPoints=new)
    )


def stage_event(stage: Doc, origin: str) -> Event:
    """The `stage.changed` event of a contact entering or leaving `stage` (a stage document, or at
    least its id): Mautic's stage change-log entry, labelled `<id>: <name>`, `origin` its action."""
    label = f"{stage['id']}: {stage.get('name') or ''}".rstrip()
    return timeline.event(
        "stage.changed", label, {"log": {"reference": stage["id"], "eventName": label, "actionName": origin}}
    )


def set_stage(doc: Contact, stage: Doc, origin: str) -> Event | None:
    """Put a contact document in `stage` (a stage document); its `stage.changed` event, or None when
    the contact is in that stage already."""
    if doc.get("stage") == stage["id"]:
        return None
    doc["stage"] = stage["id"]
    return stage_event(stage, origin)


def named_stage(stage_id: JSON, ctx: Context) -> Doc | None:
    """The stage a form action or trigger event names, when it exists; Forbidden (403) when the
    caller may not view it (a reference decides access on the document: docs/permissions.md)."""
    wanted = a.id_or_none(stage_id)
    stage = references.referenced("stage", [wanted], ctx).get(wanted) if wanted is not None else None
    if stage is not None:
        access.require(ctx, registry.resource("stage"), Action.VIEW, stage)
    return stage


def enter_stage(doc: Contact, stage_id: JSON, origin: str, ctx: Context) -> Event | None:
    """Put a contact document in the stage with id `stage_id`, whatever the weights, as
    `POST /stages/<id>/contact/<contactId>/add` does (the point trigger event and the form action
    `stage.change`); its `stage.changed` event, or None when it is there already. NotFound when no
    such stage exists."""
    wanted = a.id_or_none(stage_id)
    stage = references.referenced("stage", [wanted], ctx).get(wanted) if wanted is not None else None
    if stage is None:
        raise NotFound("Stage not found.")
    return set_stage(doc, stage, origin)


def clear_stage(doc: Contact, stage: Doc, origin: str) -> Event | None:
    """Take a contact document out of `stage`; the event naming the stage it left, or None when the
    contact is not in that stage."""
    if doc.get("stage") != stage["id"]:
        return None
    doc["stage"] = None
    return stage_event(stage, origin)
