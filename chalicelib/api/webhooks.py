"""Webhooks and the catalogue of their triggers."""
from chalicelib.api import standard
from chalicelib.api.routing import Routes
from chalicelib.domain.catalog import webhook_triggers
from chalicelib.domain.registry import WEBHOOK

routes = Routes("webhooks")
standard.install(routes, WEBHOOK)


@routes.route("/hooks/triggers", "GET")
def triggers(request, ctx):
    return {"triggers": webhook_triggers()}


blueprint = routes.blueprint()
