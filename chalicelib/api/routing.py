"""Routes of a resource family: one Chalice view per path that dispatches on the method.

Every path answers every method, so a wrong method is our JSON 405 (also behind API Gateway,
which would otherwise answer 403). The dispatcher takes the caller of `/api` calls from the
authorizer's decision (`api/authorizer.py`) or authenticates them itself, parses the
request, maps failures to the error document and stamps `Mautic-Version` on every response.
"""

import json
import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any, TypeAlias

from chalice import Blueprint, Response
from chalice.app import Request

from chalicelib import aws, bootstrap, config, observe
from chalicelib.api import answer_limits, body_limits, idempotency, rate_limits, route_needs
from chalicelib.api.authorizer import caller
from chalicelib.api.errors import UNAVAILABLE, UNEXPECTED, ApiError
from chalicelib.api.errors import body as error_body
from chalicelib.api.errors import headers as base_headers
from chalicelib.api.request import ApiRequest
from chalicelib.auth.errors import AuthError
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import DomainError, NotFound
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.types import JSON
from chalicelib.ports import outages
from chalicelib.records import record
from chalicelib.store.common import TooLarge

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})  # run again after AWS unavailable: they write nothing
log = logging.getLogger(__name__)


@dataclass(eq=False, repr=False)
class Reply:
    """A handler's answer: JSON body, status and extra headers."""

    body: JSON
    status: int = 200
    headers: dict[str, Any] = dc_field(default_factory=dict)  # a value may be a list (several Set-Cookie)
    content_type: str = "application/json"  # a str/bytes body is sent as is with this type


@record
class Contract:
    """What the API document says of a route beyond its path and methods: the standard operation
    (`list`, `get`, `create`, `edit`, `delete`, `batch`) of a registry resource. For `batch`,
    `actions` maps each action of the `{action}` segment to its methods."""

    operation: str
    resource: Resource
    actions: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (action, its methods)


Answer: TypeAlias = Reply | JSON  # what a handler returns: a Reply, or a JSON body answered 200
Handler: TypeAlias = Callable[..., Answer]  # handler(request: ApiRequest, ctx: Context, **path parameters)
Needs: TypeAlias = tuple[route_needs.Need | route_needs.Holds, ...]  # all required (api/route_needs.py)


class Routes:
    """Collects (path, method) handlers of one family and installs them on a Blueprint."""

    def __init__(self, name: str, authenticated: bool = True) -> None:
        self.name = name
        self.authenticated = authenticated
        self.table: dict[str, dict[str, Handler]] = {}  # path -> {method: handler}
        self.contracts: dict[str, Contract] = {}  # path -> Contract, for the API document
        self.needs: dict[str, dict[str, Needs]] = {}  # path -> {method: what the caller's role needs}
        self.media: dict[str, str] = {}  # path -> the media type of a file it answers (not JSON), for the document

    def route(
        self,
        path: str,
        *methods: str,
        contract: Contract | None = None,
        access: Needs | None = None,
        media: str | None = None,
    ) -> Callable[[Handler], Handler]:
        """Register a handler of `path` for `methods`; an authenticated route declares its `access`, a
        route answering a file its `media` type (`*/*`: the file's own)."""
        if self.authenticated and access is None:
            raise ValueError(f"{path} declares no access (api/route_needs.py)")

        def register(handler: Handler) -> Handler:
            for method in methods:
                if method in self.table.setdefault(path, {}):
                    raise ValueError(f"{method} {path} is registered twice")
                self.table[path][method] = handler
                self.needs.setdefault(path, {})[method] = access or route_needs.OPEN
            if contract is not None:
                self.contracts[path] = contract
            if media is not None:
                self.media[path] = media
            return handler

        return register

    def blueprint(self) -> Blueprint:
        """A Chalice Blueprint with one all-methods view per collected path."""
        bp = Blueprint(f"chalicelib.api.{self.name}")
        for path, handlers in self.table.items():
            bp.route(path, methods=METHODS, content_types=["*/*"])(self._view(bp, handlers, self.needs[path]))
        return bp

    def _view(
        self, bp: Blueprint, handlers: Mapping[str, Handler], needs: Mapping[str, Needs]
    ) -> Callable[..., Response]:
        """The Chalice view of one path: dispatches the current request with its path parameters."""

        def view(**params: str) -> Response:
            return dispatch(bp.current_request, handlers, params, self.authenticated, needs)

        return view


def dispatch(
    request: Request,
    handlers: Mapping[str, Handler],
    params: dict[str, str],
    authenticated: bool,
    needs: Mapping[str, Needs],
) -> Response:
    """Run the handler for the request's method and render its reply or failure. After
    authentication, the caller's rate limits are counted (their headers go on every answer), the
    route's needs are checked, and an `Idempotency-Key` may replay a first answer. A run that met
    AWS unavailable is run again whole (REQUEST_TRIES in all) when that is safe: `_may_run_again`."""
    for attempt in range(max(1, config.active().REQUEST_TRIES)):
        progress = Progress()
        try:
            response = _dispatch_once(request, handlers, params, authenticated, needs, progress)
        except Exception as error:  # noqa: BLE001 - every failure must still be a JSON error
            if attempt + 1 < config.active().REQUEST_TRIES and _may_run_again(request, error, progress):
                time.sleep(random.uniform(0, config.active().REQUEST_RETRY_PAUSE * 2**attempt))  # noqa: S311 - jitter
                continue
            response = failure(request, error)
        response.headers.update(progress.limit_headers)
        return response
    raise AssertionError("unreachable: the last try answers")


@dataclass(eq=False, repr=False)
class Progress:
    """How far one run of a request got: whether its handler started (a write may have been
    applied from then on), and the caller's rate-limit headers."""

    handler_started: bool = False
    writes_before: int = 0  # aws.writes() when the handler started
    authenticated: bool = False  # an /api route: its GET, HEAD and OPTIONS only read
    limit_headers: dict[str, str] = dc_field(default_factory=dict)


def _may_run_again(request: Request, error: BaseException, progress: Progress) -> bool:
    """Whether a failed run may run again: AWS was unavailable (not a bug nor a refusal), and
    - its handler had not started (authentication, rate limits, the route's needs and the
      idempotency claim write nothing of the request's own), or
    - no write call of the handler may have been applied (`aws.writes`: every write call AWS did
      not refuse with a 4xx counts, a timed-out one included), so running it again writes once, or
    - it is a read of the API (GET, HEAD, OPTIONS only read; not the public tracking routes, whose
      GET records a hit: they are not run again at all).
    A write of which one call may have been applied is never run again (docs/reliability.md)."""
    if not outages.unavailable(error):
        return False
    if not progress.handler_started or aws.writes() == progress.writes_before:
        return True
    return request.method in SAFE_METHODS and progress.authenticated


def _dispatch_once(
    request: Request,
    handlers: Mapping[str, Handler],
    params: dict[str, str],
    authenticated: bool,
    needs: Mapping[str, Needs],
    progress: Progress,
) -> Response:
    """One run of the request (`dispatch`); raises what a run may retry, answers the rest."""
    handler = handlers.get(request.method)
    if handler is None:
        raise ApiError(
            405, f"Method {request.method} is not allowed here.", headers={"Allow": ", ".join(sorted(handlers))}
        )
    body_limits.check(request, authenticated)  # before anything reads or parses the body
    bootstrap.ensure_ready()
    api_request = ApiRequest(request)
    ctx = Context(base_url=api_request.base_url())
    if not authenticated:  # tracking pixels, redirects, forms: a GET may record a hit, so no run again
        progress.handler_started = True
        return _answer(request, lambda: handler(api_request, ctx, **params), ctx)
    progress.authenticated = True
    ctx.user = caller(api_request, ctx)
    observe.identify({"user": ctx.user.get("id"), "client": ctx.client})
    progress.limit_headers = rate_limits.admit(ctx)
    recheck = _check_first(needs[request.method], params, ctx, request.method)

    def run() -> Answer:
        if not progress.handler_started:  # (a conflict runs it again: its first writes still count)
            progress.handler_started, progress.writes_before = True, aws.writes()
        if recheck:
            route_needs.check(needs[request.method], params, ctx, request.method)
        return handler(api_request, ctx, **params)

    return idempotency.guarded(api_request, ctx, lambda: _answer(request, run, ctx, progress))


def _check_first(needs: Needs, params: Mapping[str, str], ctx: Context, method: str) -> bool:
    """Check the route's needs before an `Idempotency-Key` may replay a first answer, so a caller
    who lost the right replays nothing (Forbidden). True when the document a need names is gone
    (the first run may have deleted it): its replay answers, and a run checks again (404)."""
    try:
        route_needs.check(needs, params, ctx, method)
    except NotFound:
        return True
    return False


def _answer(request: Request, run: Callable[[], Answer], ctx: Context, progress: Progress | None = None) -> Response:
    """The handler's reply as a Response, its failure as the error document; AWS unavailable is
    raised when `dispatch` may run the request again (`progress` given: an API route)."""
    try:
        reply = service.retrying(run, ctx)
    except Exception as error:  # noqa: BLE001 - every failure of a handler becomes its JSON error
        if progress is not None and _may_run_again(request, error, progress):
            raise
        return failure(request, error)
    if not isinstance(reply, Reply):
        reply = Reply(reply)
    if isinstance(reply.body, (str, bytes)):
        headers = dict(base_headers(), **reply.headers)
        headers["Content-Type"] = reply.content_type
        return Response(body=reply.body, status_code=reply.status, headers=headers)
    response = render(reply.status, reply.body, reply.headers)
    try:
        answer_limits.check(response.body)
    except ApiError as error:  # past what Lambda may answer: a 400 that says so, never API Gateway's 502
        return failure(request, error)
    return response


def failure(request: Request, error: BaseException) -> Response:
    """The error document of a failure (500 for the unexpected, logged)."""
    if isinstance(error, DomainError):
        return render(error.status, error_body(error.status, error.message, error.details), error.headers)
    if isinstance(error, AuthError):
        return render(
            error.status,
            error_body(error.status, error.message, error_type=error.type, with_details=False),
            error.headers,
        )
    if isinstance(error, ApiError):
        return render(
            error.status,
            error_body(error.status, error.message, error.details, error.type, error.with_details),
            error.headers,
        )
    if isinstance(error, TooLarge):  # a document over what an item may hold (store/documents.py): nothing written
        return render(413, error_body(413, str(error), {"body": [str(error)]}))
    if outages.unavailable(error):
        log.warning("dependency unavailable on %s %s: %s", request.method, request.path, error)
        return unavailable()
    log.error("unhandled error on %s %s", request.method, request.path, exc_info=error)
    return render(500, error_body(500, UNEXPECTED))


def unavailable() -> Response:
    """The 503 of a request whose AWS dependency stayed throttled or failing past the SDK's retries:
    nothing was half-written (writes are single items or transactions), so the client may retry
    after Retry-After (docs/reliability.md)."""
    return render(503, error_body(503, UNAVAILABLE), {"Retry-After": str(config.active().RETRY_AFTER_SECONDS)})


def render(status: int, payload: JSON, extra_headers: Mapping[str, Any] | None = None) -> Response:
    """A JSON response with the service headers; internal keys (a leading `_`) never leave. A key starting
    with `_` is written `"_` in JSON, so a text without one has none: only then is the payload walked
    (a list page of 30 contacts holds ~20,000 values; walking them took a quarter of its time)."""
    headers: dict[str, Any] = base_headers()
    headers.update(extra_headers or {})
    text = json.dumps(payload, separators=(",", ":"))
    if '"_' in text:
        text = json.dumps(public(payload), separators=(",", ":"))
    return Response(body=text, status_code=status, headers=headers)


def public(value: JSON) -> JSON:
    """`value` without the internal keys (`_rev`...: a leading underscore) of any object in it."""
    if isinstance(value, dict):
        return {key: public(item) for key, item in value.items() if not str(key).startswith("_")}
    if isinstance(value, (list, tuple)):
        return [public(item) for item in value]
    return value
