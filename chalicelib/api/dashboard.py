"""Mautic's dashboard widget API: `GET /data` (the widget types) and `GET /data/<type>` (a widget's
data with `dateFrom`, `dateTo`, `timeUnit`, `dataFormat`, `height`, `limit`)."""

import time

from chalicelib.api import standard
from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Holds
from chalicelib.api.routing import Answer, Routes
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.views import widgets

routes = Routes("dashboard")


@routes.route("/data", "GET", access=(Holds(*widgets.ANY_PERMISSION),))
def widget_types(request: ApiRequest, ctx: Context) -> Answer:
    """The dashboard widget types the caller may see."""
    return {"success": 1, "types": widgets.types(ctx)}


@routes.route("/data/{type}", "GET", access=(Holds(*widgets.ANY_PERMISSION),))  # and its category's
def widget_data(request: ApiRequest, ctx: Context, type: str) -> Answer:
    """A dashboard widget's data for the asked range and format."""
    started = time.monotonic()
    query = request.query
    found = widgets.data(
        type,
        query,
        ctx,
        raw=query.get("dataFormat") == "raw",
        height=standard.int_param(query, "height", 300),
        limit=standard.int_param(query, "limit", 0),
    )
    return {"success": 1, "cached": False, "execution_time": round(time.monotonic() - started, 6), "data": found}


blueprint = routes.blueprint()
