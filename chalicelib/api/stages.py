"""Stages, and contacts put in and taken out of a stage."""

from chalicelib.api import standard
from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Answer, Routes
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.stages import stages

routes = Routes("stages")
standard.install_declared(routes)  # the resources whose declarations name this table


@routes.route(
    "/stages/{id}/contact/{contact_id}/add",
    "POST",
    access=(Need("stage", Action.VIEW), Need("contact", Action.EDIT, "contact_id")),
)
def add_contact(request: ApiRequest, ctx: Context, id: str, contact_id: str) -> Answer:
    """Put the contact in the stage: `{"success": 1}`; 404 for an unknown stage or contact."""
    stages.add_contact(id, contact_id, ctx)
    return {"success": 1}


@routes.route(
    "/stages/{id}/contact/{contact_id}/remove",
    "POST",
    access=(Need("stage", Action.VIEW), Need("contact", Action.EDIT, "contact_id")),
)
def remove_contact(request: ApiRequest, ctx: Context, id: str, contact_id: str) -> Answer:
    """Take the contact out of the stage: `{"success": 1}`, also when it was not in it."""
    stages.remove_contact(id, contact_id, ctx)
    return {"success": 1}


blueprint = routes.blueprint()
