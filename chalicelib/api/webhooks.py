"""Webhooks, the catalogue of their triggers and each hook's delivery log."""

from chalicelib import config
from chalicelib.api import standard
from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Answer, Routes
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.webhooks import webhooks
from chalicelib.domain.webhooks.catalog import webhook_triggers

routes = Routes("webhooks")
standard.install_declared(routes)  # the resources whose declarations name this table


@routes.route("/hooks/triggers", "GET", access=(Need("hook", Action.VIEW),))
def triggers(request: ApiRequest, ctx: Context) -> Answer:
    """The events a webhook may subscribe to."""
    return {"triggers": webhook_triggers()}


@routes.route("/hooks/{id}/logs", "GET", access=(Need("hook", Action.VIEW, "id"),))
def logs(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """`start` and `limit` (at most WEBHOOK_LOG_MAX, the entries kept) page the log, newest first."""
    query = standard.list_query(request.query)
    return webhooks.logs(
        id, query.start, min(query.limit or config.active().WEBHOOK_LOG_MAX, config.active().WEBHOOK_LOG_MAX)
    )


blueprint = routes.blueprint()
