"""Mautic's dashboard widget API: `GET /data` (the widget types) and `GET /data/<type>` (a widget's
data with `dateFrom`, `dateTo`, `timeUnit`, `dataFormat`, `height`, `limit`)."""

import time

from chalicelib.api import standard
from chalicelib.api.route_needs import Holds
from chalicelib.api.routing import Routes
from chalicelib.domain.views import widgets

routes = Routes("dashboard")


@routes.route("/data", "GET", access=(Holds(*widgets.ANY_PERMISSION),))
def widget_types(request, ctx):
    return {"success": 1, "types": widgets.types(ctx)}


@routes.route("/data/{type}", "GET", access=(Holds(*widgets.ANY_PERMISSION),))  # and its category's
def widget_data(request, ctx, type):  # noqa: A002 - the path parameter's name
    started = time.monotonic()
    query = request.query
    found = widgets.data(
        type,
        query,
        ctx,
        raw=query.get("dataFormat") == "raw",
        height=standard.int_param(query, "height", 300),
        limit=standard.int_param(query, "limit", 0) or widgets.RECENT_LIMIT,
    )
    return {"success": 1, "cached": False, "execution_time": round(time.monotonic() - started, 6), "data": found}


blueprint = routes.blueprint()
