"""Mautic's stats API: `GET /stats` (Mautic's whole table catalogue and its columns) and
`GET /stats/<table>` with `start`, `limit`, `order[i][col|dir]` and `where[i][col|expr|val]`
(domain/views/stats_catalogue.py over domain/messaging/stats_tables.py)."""

from chalicelib.api import standard
from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Holds
from chalicelib.api.routing import Answer, Routes
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.views import stats_catalogue

routes = Routes("stats")
DEFAULT_LIMIT = 100  # Mautic's


@routes.route("/stats", "GET", access=(Holds(*stats_catalogue.ANY_NEEDS),))
def tables(request: ApiRequest, ctx: Context) -> Answer:
    """The stats tables and their columns."""
    return stats_catalogue.catalogue()


@routes.route("/stats/{table}", "GET", access=(Holds(*stats_catalogue.ANY_NEEDS),))  # and the table's own
def table_rows(request: ApiRequest, ctx: Context, table: str) -> Answer:
    """A stats table's rows, with `start`, `limit`, `order` and `where`."""
    query = standard.list_query(
        dict(request.query, limit=request.query.get("limit") or DEFAULT_LIMIT, where=None, order=None)
    )
    return stats_catalogue.rows(
        table, query.start, query.limit, request.query.get("order"), request.query.get("where"), ctx
    )


blueprint = routes.blueprint()
