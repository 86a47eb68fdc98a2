"""A contact's category subscriptions, as Mautic's `lead_categories` rows keep them (LeadModel's
addToCategory / unsubscribeCategories): the contact document's `categories` maps a category id to
`{dateAdded, manuallyAdded, manuallyRemoved}`. Subscribing adds a row (`manuallyAdded`); unsubscribing
keeps it with `manuallyRemoved` (and `manuallyAdded` false), and that is what a segment send, a
broadcast or an automation's email in that category reads to skip the contact (EmailRepository's
pending query, EmailBundle's CampaignSubscriber). Written by the preference centre and by
`POST /contacts/<id>/categories/<category id>/add|remove`."""

import copy
from collections.abc import Iterable

from chalicelib.domain.contacts.contact_document import CategoryEntry, Contact
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import access, service, timeline
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.basics import CATEGORY
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.references import referenced
from chalicelib.domain.kernel.types import JSON, Doc, EntityId, Event


def unsubscribed(contact: Contact, category_id: JSON) -> bool:
    """Whether the contact unsubscribed from the category (False for no category)."""
    if category_id in (None, "", 0):
        return False
    rows: dict[str, CategoryEntry] = contact.get("categories") or {}
    row = rows.get(str(category_id))
    return bool(row and row["manuallyRemoved"])


def subscribed_ids(contact: Contact) -> list[int]:
    """The categories the contact is subscribed to (rows not removed), by id."""
    rows: dict[str, CategoryEntry] = contact.get("categories") or {}
    return sorted(int(k) for k, row in rows.items() if not row["manuallyRemoved"])


def change(doc: Contact, category: Doc, subscribe: bool, now: str) -> Event | None:
    """Subscribe (or unsubscribe) the contact document to a category; the timeline event, or None
    when nothing changes."""
    rows: dict[str, CategoryEntry] = doc.setdefault("categories", {})
    old = rows.get(str(category["id"]))
    if old is not None and bool(old["manuallyRemoved"]) != subscribe:
        return None  # already as wanted (no row: subscribed by default, and unsubscribing writes one)
    rows[str(category["id"])] = {
        "dateAdded": old["dateAdded"] if old else now,
        "manuallyAdded": subscribe,
        "manuallyRemoved": not subscribe,
    }
    verb = "Subscribed to" if subscribe else "Unsubscribed from"
    details = {"categoryId": category["id"], "categoryTitle": category.get("title"), "added": subscribe}
    return timeline.event("lead.categorychange", f"{verb} category {category.get('title')}", details)


def apply(doc: Contact, wanted: Iterable[int], offered: Iterable[Doc], now: str) -> list[Event]:
    """The preference centre's choice: subscribed to the `wanted` ones of the `offered` categories,
    unsubscribed from the others offered (Mautic's setFrequencyRules with `global_categories`)."""
    chosen = set(wanted)
    events = [change(doc, category, category["id"] in chosen, now) for category in offered]
    return [event for event in events if event is not None]


def set_one(contact_id: EntityId, category_id: EntityId, subscribe: bool, ctx: Context) -> Doc:
    """`POST /contacts/<id>/categories/<category id>/add|remove`: the contact after the change; 404
    for an unknown category or one the caller may not view."""
    try:
        wanted = a.as_int(category_id)
    except a.Invalid:
        raise NotFound(f"Category {category_id} not found.") from None
    category = referenced(CATEGORY.kind, [wanted], ctx).get(wanted)
    if category is None:
        raise NotFound(f"Category {category_id} not found.")
    access.require(ctx, CATEGORY, Action.VIEW, category)
    existing = service.load(CONTACT, contact_id)
    doc = copy.deepcopy(existing)
    event = change(doc, category, subscribe, ctx.now)
    return existing if event is None else service.save_change(CONTACT, existing, doc, ctx, [event])


def of_contact(contact_id: EntityId, ctx: Context) -> Doc:
    """`GET /contacts/<id>/categories`: `{"total", "categories": {id: {id, title, alias, bundle,
    dateAdded, manuallyAdded, manuallyRemoved}}}`, unsubscribed rows included (they are the choice)."""
    return view(service.load(CONTACT, contact_id), ctx)


def view(contact: Contact, ctx: Context) -> Doc:
    """The contact document's category rows as `GET /contacts/<id>/categories` shows them (also its
    data export), rows of deleted categories left out."""
    rows: dict[str, CategoryEntry] = contact.get("categories") or {}
    found = referenced(CATEGORY.kind, [int(k) for k in rows], ctx)
    shown = {
        key: {
            "id": int(key),
            "title": found[int(key)].get("title"),
            "alias": found[int(key)].get("alias"),
            "bundle": found[int(key)].get("bundle"),
            **row,
        }
        for key, row in sorted(rows.items(), key=lambda item: int(item[0]))
        if int(key) in found
    }
    return {"total": len(shown), "categories": shown}
