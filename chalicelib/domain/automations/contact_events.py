"""A contact's event log across automations, and many contacts' runs edited at once (Mautic's
EventLogApiController: `getContactEventsAction` without a campaign, `editEventsAction`).

The log rows are the journey entries of `event_logs.py`, each standing alone as Mautic's
`campaignEventStandaloneLogDetails` rows do: the event's list properties, the contact (Mautic's
`leadBasicList`) and the automation beside the row. Only automations the caller may view are
read, and the route decides the contact's view. A batch edit runs each item as the single edit
(`event_logs.edit_run`), in its own contact write, so a refused item writes nothing.
"""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial

from chalicelib.domain.automations import event_logs, journey_entry
from chalicelib.domain.automations.declarations import AUTOMATION
from chalicelib.domain.contacts import contacts
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import access, service
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import DomainError, NotFound
from chalicelib.domain.kernel.listing import ListQuery
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.store.port import EntityId

EVENT_KEYS = ("id", "name", "description", "type", "eventType", "channel", "channelId")  # Mautic's list group
INVALID_ITEM = "contactId and/or eventId are missing from this item's parameters."
Key = int | str  # an item's key in the batch request


def _lead(contact: Contact, ctx: Context) -> Doc:
    """The contact as Mautic's `leadBasicList` shows it: id, points, color and the core fields, flat."""
    score = contacts.points(contact)
    values = contact.get("values") or {}
    return dict(
        {"id": contact["id"], "points": score, "color": contacts.color(score, ctx)},
        **{name: values.get(name) for name in contacts.BASIC_FIELDS},
    )


def _rows(contact: Contact, ctx: Context) -> Iterator[Doc]:
    """The contact's log rows in every automation the caller may view, by automation then event."""
    entries = journey_entry.entries(contact)
    lead = _lead(contact, ctx)
    for automation in sorted(event_logs.viewable(ctx), key=lambda d: d["id"]):
        entry = entries.get(str(automation["id"]))
        if entry is None:
            continue
        ref = event_logs.automation_ref(automation)
        for event in event_logs.events_of(automation, ctx):
            listed = {key: event.get(key) for key in EVENT_KEYS}
            for log in event_logs.log_rows(entry, event["id"]):
                yield dict({"event": listed, "lead": lead, "automation": ref}, **log)


def contact_events(contact_id: EntityId, query: ListQuery, ctx: Context) -> Doc:
    """`{"total", "events": [log rows]}`: the contact's runs in every automation the caller may view,
    paged by `start` and `limit`; 404 for an unknown contact."""
    rows = list(_rows(service.load(CONTACT, contact_id, ctx), ctx))
    end = query.start + query.limit if query.limit is not None else None
    return {"total": len(rows), "events": rows[query.start : end]}


@dataclass(eq=False, repr=False)
class BatchEdit:
    """The results of a batch of event edits: the events the items named that the caller may view
    (by id, each with the log rows its successful items left, without its automation as Mautic's
    list group), and per item its status or error."""

    events: dict[int, Doc] = field(default_factory=dict)
    codes: list[tuple[Key, int]] = field(default_factory=list)
    errors: list[tuple[Key, DomainError]] = field(default_factory=list)

    def refuse(self, key: Key, error: DomainError) -> None:
        """Record an item's refusal."""
        self.errors.append((key, error))
        self.codes.append((key, error.status))


def _named(item: JSON, ctx: Context) -> tuple[Doc, Doc, Doc]:
    """(automation, event, contact) an item names; 404 (Mautic's message) when it names none."""
    if not isinstance(item, Mapping) or item.get("eventId") in (None, "") or item.get("contactId") in (None, ""):
        raise NotFound(INVALID_ITEM)
    try:
        automation, event = event_logs.find(item["eventId"], ctx)
        contact = service.load(CONTACT, item["contactId"])
    except NotFound:
        raise NotFound(INVALID_ITEM) from None
    return automation, event, contact


def _edit_item(item: JSON, outcome: BatchEdit, ctx: Context) -> int:
    """One item: the single edit's checks (the contact's edit, then its automation's), then its run."""
    automation, event, contact = _named(item, ctx)
    if access.allowed(ctx, AUTOMATION, Action.VIEW, automation):
        shown = {key: value for key, value in event.items() if key != "automation"}  # Mautic's list group
        outcome.events.setdefault(event["id"], dict(shown, contactLog=[]))
    access.require(ctx, CONTACT, Action.EDIT, contact)
    access.require(ctx, AUTOMATION, Action.EDIT, automation)
    logs, created = event_logs.edit_run(automation, event, contact, item, ctx)
    outcome.events[event["id"]]["contactLog"].extend(logs)
    return 201 if created else 200


def edit_many(items: list[tuple[Key, JSON]], ctx: Context) -> BatchEdit:
    """Edit each item's run (`{eventId, contactId, triggerDate | dateTriggered}`) as the single edit
    does; an item refused (404, 403, 400, 409) is recorded and the others still run."""
    outcome = BatchEdit()
    for key, item in items:
        try:
            status = service.retrying(partial(_edit_item, item, outcome, ctx), ctx)
        except DomainError as error:
            outcome.refuse(key, error)
        else:
            outcome.codes.append((key, status))
    return outcome
