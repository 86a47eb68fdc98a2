"""Membership by hand: add or remove a contact (or several) to a segment, read a contact's segments."""

import copy

from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import access, cached, capability_hooks, service
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import DomainError, invalid
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.segments import membership
from chalicelib.domain.segments.declarations import SEGMENT
from chalicelib.store.port import EntityId


def change(segment_id: EntityId, contact_id: EntityId, added: bool, ctx: Context) -> None:
    """Add (or remove) one contact by hand: 404 for an unknown segment or contact."""
    segment = service.load(SEGMENT, segment_id)
    _mark(segment["id"], service.load(CONTACT, contact_id), added, ctx)


def _mark(segment_id: int, contact: Doc, added: bool, ctx: Context) -> None:
    doc = copy.deepcopy(contact)
    membership.mark(doc, segment_id, added, ctx.now)
    if doc.get("segments") != contact.get("segments"):
        service.save_change(CONTACT, contact, doc, ctx, stamp=False)


def add_many(segment_id: EntityId, payload: JSON, ctx: Context) -> dict[str, dict[str, bool]]:
    """Add the contacts of `{"ids": [...]}`; {id: {"success": bool}} per requested id."""
    segment = service.load(SEGMENT, segment_id)
    ids = payload.get("ids") if isinstance(payload, dict) else None
    if not ids:
        raise invalid("ids", "A list of contact ids is required.")
    try:
        wanted = a.as_list(ids)
    except a.Invalid:
        raise invalid("ids", "This value should be a list of contact ids.") from None
    details = {}
    for raw in wanted:
        details[str(raw)] = {"success": _try_add(segment["id"], raw, ctx)}
    return details


def _try_add(segment_id: int, contact_id: JSON, ctx: Context) -> bool:
    def add() -> None:
        contact = service.load(CONTACT, contact_id)
        access.require(ctx, CONTACT, Action.EDIT, contact)  # one the caller may not edit is a failure
        _mark(segment_id, contact, True, ctx)

    try:
        service.retrying(add, ctx)
    except DomainError:
        return False
    return True


def _offered(segment: Doc, others: bool, ctx: Context) -> bool:
    published = is_published(segment, ctx.now)
    if others:
        return published
    own = access.owner_of(SEGMENT, segment, ctx) == ctx.user_id
    return (published and capability_hooks.seen_by_viewers(SEGMENT, segment)) or own


def of_contact(contact_id: EntityId, ctx: Context) -> Doc:
    """The contact's segments view (compat 1.8); 404 for an unknown contact."""
    return membership.contact_segments(service.load(CONTACT, contact_id), ctx)


def user_segments(ctx: Context) -> dict[str, Doc] | list[Doc]:
    """The segments a user may add contacts to (`GET /contacts/list/segments`), by name, `{id: {id,
    name, alias}}` (Mautic's list indexed by id; `[]` when there are none), as
    LeadListRepository::getLists: the published ones for who may view others' segments; else the
    published global ones and the caller's own, published or not (its query's `OR` reads so)."""
    others = access.visible_owner(ctx, SEGMENT) is None
    found = sorted(
        (s for s in cached.documents(SEGMENT.kind, ctx) if _offered(s, others, ctx)),
        key=lambda s: (str(s.get("name") or "").lower(), s["id"]),
    )
    return {str(s["id"]): {"id": s["id"], "name": s.get("name"), "alias": s.get("alias")} for s in found} or []
