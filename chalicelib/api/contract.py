"""`GET /api/openapi.json`: the OpenAPI document of the service (no authentication)."""

from collections.abc import Callable, Iterable
from functools import lru_cache

from chalicelib.api import openapi
from chalicelib.api.request import ApiRequest
from chalicelib.api.routing import Answer, Routes
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc


def install(tables: Iterable[tuple[str, Routes]]) -> tuple[Routes, Callable[[str], Doc]]:
    """(a Routes table serving the document, document(base_url)) for the route `tables`
    [(url prefix, Routes)] and the document's own route."""
    routes = Routes("contract", authenticated=False)
    everything = (*tables, ("/api", routes))

    @lru_cache(maxsize=8)
    def document(base_url: str) -> Doc:
        """The document for one base URL (its `servers`), built once per URL."""
        return openapi.document(everything, base_url)

    @routes.route("/openapi.json", "GET")
    def openapi_json(request: ApiRequest, ctx: Context) -> Answer:
        """The OpenAPI 3.1 document of this API."""
        return document(ctx.base_url)

    return routes, document
