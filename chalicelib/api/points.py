"""Point actions and point triggers, with their type catalogues."""
from chalicelib.api import standard
from chalicelib.api.collections import install_nested_delete
from chalicelib.api.permits import Need
from chalicelib.api.routing import Routes
from chalicelib.domain.points.catalog import POINT_ACTION_TYPES, TRIGGER_EVENT_TYPES
from chalicelib.domain.points.declarations import POINT, TRIGGER

routes = Routes("points")
standard.install(routes, POINT)
standard.install(routes, TRIGGER)
install_nested_delete(routes, TRIGGER, "events")


@routes.route("/points/actions/types", "GET", access=(Need("point", "view"),))
def action_types(request, ctx):
    return {"pointActionTypes": POINT_ACTION_TYPES}


@routes.route("/points/triggers/events/types", "GET", access=(Need("trigger", "view"),))
def trigger_event_types(request, ctx):
    return {"eventTypes": TRIGGER_EVENT_TYPES}


blueprint = routes.blueprint()
