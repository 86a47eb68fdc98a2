"""Segment membership by hand (compat 1.8 shapes): add/remove one contact, add several."""

from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Answer, Routes
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.segments import segment_actions

routes = Routes("segments")


@routes.route(
    "/segments/{id}/contact/{contact_id}/add",
    "POST",
    access=(Need("segment", Action.VIEW, "id"), Need("contact", Action.EDIT, "contact_id")),
)
def add_to_segment(request: ApiRequest, ctx: Context, id: str, contact_id: str) -> Answer:
    """Add the contact to the segment by hand."""
    segment_actions.change(id, contact_id, True, ctx)
    return {"success": 1}


@routes.route(
    "/segments/{id}/contact/{contact_id}/remove",
    "POST",
    access=(Need("segment", Action.VIEW, "id"), Need("contact", Action.EDIT, "contact_id")),
)
def remove_from_segment(request: ApiRequest, ctx: Context, id: str, contact_id: str) -> Answer:
    """Take the contact out of the segment by hand."""
    segment_actions.change(id, contact_id, False, ctx)
    return {"success": 1}


@routes.route(
    "/segments/{id}/contacts/add", "POST", access=(Need("segment", Action.VIEW, "id"), Need("contact", Action.EDIT))
)
def add_contacts_to_segment(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """Add several contacts (`ids`) to the segment: the outcome per contact."""
    return {"success": 1, "details": segment_actions.add_many(id, request.body, ctx)}


blueprint = routes.blueprint()
