"""Segment membership by hand (compat 1.8 shapes): add/remove one contact, add several."""
from chalicelib.api.routing import Routes
from chalicelib.domain.segments import segmentactions

routes = Routes("segments")


@routes.route("/segments/{id}/contact/{contact_id}/add", "POST")
def add_to_segment(request, ctx, id, contact_id):
    segmentactions.change(id, contact_id, True, ctx)
    return {"success": 1}


@routes.route("/segments/{id}/contact/{contact_id}/remove", "POST")
def remove_from_segment(request, ctx, id, contact_id):
    segmentactions.change(id, contact_id, False, ctx)
    return {"success": 1}


@routes.route("/segments/{id}/contacts/add", "POST")
def add_contacts_to_segment(request, ctx, id):
    return {"success": 1, "details": segmentactions.add_many(id, request.body, ctx)}


blueprint = routes.blueprint()
