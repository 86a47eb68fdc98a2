"""Segment membership by hand (compat 1.8 shapes): add/remove one contact, add several."""

from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Routes
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.segments import segment_actions

routes = Routes("segments")


@routes.route(
    "/segments/{id}/contact/{contact_id}/add",
    "POST",
    access=(Need("segment", Action.VIEW, "id"), Need("contact", Action.EDIT, "contact_id")),
)
def add_to_segment(request, ctx, id, contact_id):
    segment_actions.change(id, contact_id, True, ctx)
    return {"success": 1}


@routes.route(
    "/segments/{id}/contact/{contact_id}/remove",
    "POST",
    access=(Need("segment", Action.VIEW, "id"), Need("contact", Action.EDIT, "contact_id")),
)
def remove_from_segment(request, ctx, id, contact_id):
    segment_actions.change(id, contact_id, False, ctx)
    return {"success": 1}


@routes.route(
    "/segments/{id}/contacts/add", "POST", access=(Need("segment", Action.VIEW, "id"), Need("contact", Action.EDIT))
)
def add_contacts_to_segment(request, ctx, id):
    return {"success": 1, "details": segment_actions.add_many(id, request.body, ctx)}


blueprint = routes.blueprint()
