"""`GET /api/openapi.json`: the OpenAPI document of the service (no authentication)."""

from functools import lru_cache

from chalicelib.api import openapi
from chalicelib.api.routing import Routes


def install(tables):
    """(a Routes table serving the document, document(base_url)) for the route `tables`
    [(url prefix, Routes)] and the document's own route."""
    routes = Routes("contract", authenticated=False)
    everything = (*tables, ("/api", routes))

    @lru_cache(maxsize=8)
    def document(base_url):
        return openapi.document(everything, base_url)

    @routes.route("/openapi.json", "GET")
    def openapi_json(request, ctx):
        """The OpenAPI 3.1 document of this API."""
        return document(ctx.base_url)

    return routes, document
