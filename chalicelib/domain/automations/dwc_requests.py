"""A page asking for a dynamic content slot (`/dwc/<slot>`), as Mautic's DynamicContentHelper::
getDynamicContentForLead, campaigns first: a contact waiting at a `dwc.decision` whose `dwc_slot_name`
is that slot takes its yes path in one contact write (the decision's `dynamicContent` becomes the
contact's content for the slot; a `dwc.push_content` that follows replaces it with its own, as
Mautic's DynamicContentLeadData), then the slot resolves for the contact (messaging/dynamic_content.py).
A contact waiting at no such decision is only read: a page view writes nothing.
"""

import copy

from chalicelib.domain.automations import automation_graph as graph
from chalicelib.domain.automations import journey_entry
from chalicelib.domain.automations.journey_routing import by_id, is_active
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import cache_keys, service, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import dynamic_content

REQUESTED = "dynamiccontent.requested"  # the timeline event a `dwc.decision` waits for: {slot}


def request(slot: str, contact: Contact | None, accept_language: JSON, ctx: Context) -> str | None:
    """The slot's content for the contact (None: nothing fits), after its waiting decisions on the slot."""
    if contact is not None and waiting(contact, slot, ctx):
        contact_id = int(contact["id"])
        try:
            contact = service.retrying(lambda: _decide(contact_id, slot, ctx), ctx)
        except NotFound:
            contact = None
    return dynamic_content.resolve(slot, dict(contact) if contact else None, ctx, accept_language)


def waiting(contact: Contact, slot: str, ctx: Context) -> list[Doc]:
    """The `dwc.decision` events on `slot` the contact's active journeys wait at."""
    automations, found = by_id(ctx), []
    for key, entry in journey_entry.entries(contact).items():
        automation = automations.get(int(key))
        if automation is None or not is_active(entry):
            continue
        found += [
            event
            for event in (graph.event(automation, int(d)) for d in entry["waiting"])
            if event and event.get("type") == "dwc.decision" and decided_by(event, slot)
        ]
    return found


def decided_by(decision: Doc, slot: JSON) -> bool:
    """Whether a request of `slot` satisfies the `dwc.decision` (its `dwc_slot_name`)."""
    return bool(slot) and str((decision.get("properties") or {}).get("dwc_slot_name") or "") == str(slot)


def _decide(contact_id: int, slot: str, ctx: Context) -> Contact:
    """The write that tells the contact's journeys of the request: the default content first, the
    `dynamiccontent.requested` event deciding, the pushes that follow running in the same write."""
    existing = service.load(CONTACT, contact_id)
    doc = copy.deepcopy(existing)
    found = waiting(doc, slot, ctx)
    if not found:
        return existing
    default = a.id_or_none((found[0].get("properties") or {}).get("dynamicContent"))
    if default is not None:
        doc.setdefault("dwcSlots", {})[slot] = default
    ctx.cache[cache_keys.DWC_SLOT] = slot
    event = timeline.event(REQUESTED, slot, {"slot": slot})
    stored: Contact = service.save_change(CONTACT, existing, doc, ctx, [event], stamp=False)
    return stored


def push_content(props: Doc, doc: Contact, automation: Doc, ctx: Context) -> None:
    """`dwc.push_content` (`dynamicContent`): the contact's content for the slot its page asked for
    (Mautic keeps that slot a day in its cache; here the request that decided, else the automation's
    only `dwc.decision` slot)."""
    content = a.id_or_none(props.get("dynamicContent"))
    if content is None:
        raise a.Invalid("No dynamic content chosen.")
    slots = {
        str((e.get("properties") or {}).get("dwc_slot_name"))
        for e in automation.get("events") or []
        if e.get("type") == "dwc.decision"
    }
    slot = ctx.cache.get(cache_keys.DWC_SLOT) or (next(iter(slots)) if len(slots) == 1 else None)
    if not slot:
        raise a.Invalid("No dynamic content slot was asked for: push_content follows a dwc.decision.")
    doc.setdefault("dwcSlots", {})[str(slot)] = content
