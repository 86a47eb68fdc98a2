"""The function's own routing, for the REST API of the deployed stack.

API Gateway counts every path segment of every route as a resource (300 per REST API by default)
and the service has more; so the stack's API has three resources (`infra/compact.py`):
`/api/{proxy+}` behind the REQUEST authorizer, `/api/openapi.json` and `/{proxy+}` without it,
each integrated with the API function. A request through a `{proxy+}` resource arrives with that
resource path; `RoutedApp` finds the route of its actual path, as API Gateway would have (at each
segment a literal beats a `{parameter}`), hands Chalice the event of that route with its path
parameters, and answers an unknown path with the service's JSON 404.

A binary answer (the tracking pixels, asset and file downloads, theme zips) is sent whatever the
request's Accept header says: chalice refuses it with a 400 unless the Accept header names a binary
type (Guzzle and most HTTP clients send none), a rule meant to mirror API Gateway's; but the stack's
REST API declares every type binary (`*/*`, `infra/compact.py`), so API Gateway decodes the base64
answer for any Accept, and `AnyAccept` drops chalice's check, locally and on Lambda alike.
"""

import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from chalice import Chalice
from chalice.app import CaseInsensitiveMapping, RestAPIEventHandler

from chalicelib import observe
from chalicelib.api import errors

PROXY = "{proxy+}"


def _segments(path: str) -> list[str]:
    """The non-empty segments of a path."""
    return [segment for segment in path.split("/") if segment]


@lru_cache(maxsize=1)
def _by_length(templates: tuple[str, ...]) -> dict[int, list[str]]:
    """Route templates grouped by segment count, in API Gateway's precedence (literals first)."""
    grouped: dict[int, list[str]] = {}
    for template in sorted(templates, key=lambda t: [part.startswith("{") for part in _segments(t)]):
        grouped.setdefault(len(_segments(template)), []).append(template)
    return grouped


def match(templates: tuple[str, ...], path: str) -> tuple[str, dict[str, str]] | None:
    """(route template, path parameters) of `path` among `templates` (a tuple), or None."""
    segments = _segments(path)
    for template in _by_length(templates).get(len(segments), ()):
        params: dict[str, str] = {}
        for part, segment in zip(_segments(template), segments, strict=True):
            if part.startswith("{") and part.endswith("}"):
                params[part[1:-1]] = segment
            elif part != segment:
                break
        else:
            return template, params
    return None


class AnyAccept(RestAPIEventHandler):
    """Chalice's REST API handler, sending a binary answer whatever the request's Accept header."""

    def _validate_binary_response(
        self, request_headers: CaseInsensitiveMapping, response_headers: CaseInsensitiveMapping
    ) -> bool:
        """Always valid: the REST API takes every type as binary (`*/*`), so any Accept gets the bytes."""
        return True


class RoutedApp(Chalice):
    """A Chalice app that also serves requests arriving through a `{proxy+}` resource; each
    invocation's log lines carry its request ids (`observe`). Its routes are registered by
    `routes(app)` on the first look at `app.routes` (the API function's first request, `chalice
    package`, the local gateway), so the stack's other functions, which run the same module, never
    import the route modules."""

    _register: Callable[["RoutedApp"], None] | None = None

    def __init__(self, app_name: str, routes: Callable[["RoutedApp"], None] | None = None) -> None:
        self._swap = threading.Lock()
        self._ready = threading.Event()
        self._registrar: int | None = None
        super().__init__(app_name=app_name)
        self._register = routes
        if routes is None:
            self._ready.set()

    @property
    def routes(self) -> Any:
        """Chalice's route table, filled on first use. The first caller registers the routes; a
        request arriving meanwhile on another thread (the local stack serves several at once) waits
        for the whole table instead of reading a partial one (a 404 for a route not yet there). Once it is
        filled, and while the registering thread fills it (chalice reads it twice per route and method,
        ~4,000 times), the table is answered without the lock."""
        ready = getattr(self, "_ready", None)
        if ready is None:  # Chalice's own constructor, before ours has run
            return self._route_table
        if ready.is_set() or self._registrar == threading.get_ident():
            return self._route_table
        with self._swap:
            register, self._register = self._register, None
            if register is not None:
                self._registrar = threading.get_ident()
        if register is not None:
            try:
                register(self)
            finally:
                self._ready.set()
        else:
            self._ready.wait()
        return self._route_table

    @routes.setter
    def routes(self, table: Any) -> None:
        self._route_table = table

    def __call__(self, event: dict[str, Any], context: Any) -> Any:
        """Handle a Lambda invocation; a `{proxy+}` request is first given its route and parameters."""
        observe.begin(
            getattr(context, "aws_request_id", None), apiRequestId=(event.get("requestContext") or {}).get("requestId")
        )
        resource = (event.get("requestContext") or {}).get("resourcePath") or ""
        if resource.endswith(PROXY):
            found = match(tuple(self.routes), event.get("path") or "/")
            if found is None:
                return {"statusCode": 404, "headers": errors.headers(), "body": errors.not_found_path_json()}
            template, params = found
            event = dict(
                event,
                resource=template,
                pathParameters=params or None,
                requestContext=dict(event["requestContext"], resourcePath=template),
            )
        return self._handle(event, context)

    def _handle(self, event: dict[str, Any], context: Any) -> Any:
        """Chalice's own `__call__`, with the `AnyAccept` handler in place of chalice's."""
        self.lambda_context = context
        handler = AnyAccept(
            self.routes, self.api, self.log, self.debug, middleware_handlers=self._get_middleware_handlers("http")
        )
        self.current_request = handler.create_request_object(event, context)
        return handler(event, context)
