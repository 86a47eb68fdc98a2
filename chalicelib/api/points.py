"""Point actions, point triggers and point groups, with their type catalogues; a contact's
point-group scores."""

from chalicelib.api import standard
from chalicelib.api.collections import install_nested_delete
from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Answer, Routes
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.validation import payload_object
from chalicelib.domain.points import group_scores
from chalicelib.domain.points.catalog import POINT_ACTION_TYPES, TRIGGER_EVENT_TYPES
from chalicelib.domain.points.declarations import TRIGGER

routes = Routes("points")
standard.install_declared(routes)  # the resources whose declarations name this table
install_nested_delete(routes, TRIGGER, "events")


@routes.route("/points/actions/types", "GET", access=(Need("point", Action.VIEW),))
def action_types(request: ApiRequest, ctx: Context) -> Answer:
    """The catalogue of point action types."""
    return {"pointActionTypes": POINT_ACTION_TYPES}


@routes.route("/points/triggers/events/types", "GET", access=(Need("trigger", Action.VIEW),))
def trigger_event_types(request: ApiRequest, ctx: Context) -> Answer:
    """The catalogue of point trigger event types."""
    return {"eventTypes": TRIGGER_EVENT_TYPES}


@routes.route(
    "/contacts/{id}/points/groups", "GET", access=(Need("pointgroup", Action.VIEW), Need("contact", Action.VIEW, "id"))
)
def contact_group_scores(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """The contact's point-group scores: `{"total", "groupScores": [{"score", "group"}]}`."""
    return group_scores.of_contact(id, ctx)


@routes.route(
    "/contacts/{id}/points/groups/{groupId}",
    "GET",
    access=(Need("pointgroup", Action.VIEW), Need("contact", Action.VIEW, "id")),
)
def contact_group_score(request: ApiRequest, ctx: Context, id: str, groupId: str) -> Answer:
    """The contact's score in one group: `{"groupScore": {"score", "group"} or null}`."""
    return group_scores.one(id, groupId, ctx)


@routes.route(
    "/contacts/{id}/points/groups/{groupId}/{operator}/{value}",
    "POST",
    access=(Need("pointgroup", Action.VIEW), Need("contact", Action.EDIT, "id")),
)
def change_group_score(request: ApiRequest, ctx: Context, id: str, groupId: str, operator: str, value: str) -> Answer:
    """plus/minus/times/divide/set the contact's score in a group (`eventName`, `actionName` in the body)."""
    return group_scores.change(id, groupId, operator, value, payload_object(request.body), ctx)


blueprint = routes.blueprint()
