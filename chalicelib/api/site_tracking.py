"""What a website embeds to track its visitors, as Mautic serves it: the script `/mtc.js`, its page
views `POST /mtc/event` and the visitor lookup `GET /mtc`, with Mautic's CORS rules (the origins of
CORS_VALID_DOMAINS, credentials allowed) and cookies a third-party page keeps (`SameSite=None;
Secure` over https). See docs/public-endpoints.md, "What websites embed"."""

from fnmatch import fnmatch

from chalicelib import config
from chalicelib.api.public import is_https, visit, visitor_cookies
from chalicelib.api.request import ApiRequest
from chalicelib.api.routing import Answer, Reply, Routes
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.web import tracking_script, visitors
from chalicelib.domain.web.hits import Visit

routes = Routes("site_tracking", authenticated=False)
CORS_HEADERS = {
    "Access-Control-Allow-Headers": "Origin, X-Requested-With, Content-Type, Authorization",
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Allow-Credentials": "true",
    "Access-Control-Max-Age": "36000",
}


def allowed_origin(request: ApiRequest) -> str | None:
    """The request's `Origin` when the service lets that site read its answers (Mautic's
    `CORSMiddleware`): any, with CORS_RESTRICT_DOMAINS off; else one matching CORS_VALID_DOMAINS."""
    origin = request.headers.get("origin")
    if not origin:
        return None
    if not config.active().CORS_RESTRICT_DOMAINS:
        return origin
    matches = any(fnmatch(origin.lower(), pattern.lower()) for pattern in config.active().CORS_VALID_DOMAINS)
    return origin if matches else None


def cors(request: ApiRequest) -> dict[str, str]:
    """The CORS headers of an answer to an allowed origin (none for another)."""
    origin = allowed_origin(request)
    return dict(CORS_HEADERS, **{"Access-Control-Allow-Origin": origin, "Vary": "Origin"}) if origin else {}


def _preflight(request: ApiRequest) -> Reply:
    """Mautic's answer to OPTIONS: 204, with the CORS headers for an allowed origin's preflight."""
    asked = request.headers.get("access-control-request-headers") is not None
    return Reply("", 204, cors(request) if asked else {}, "text/plain")


def _params(request: ApiRequest) -> dict[str, str]:
    """The page view's parameters: the query string and the form body (mtc.js posts the form)."""
    body = request.body if isinstance(request.body, dict) else {}
    merged = dict(request.query.items(), **body)
    return {key: value for key, value in merged.items() if isinstance(value, str)}


def _visitor(request: ApiRequest, ctx: Context) -> Visit:
    """The visitor of a tracking request: its visitor cookie, or the `mautic_device_id` mtc.js kept."""
    visitor = visit(request, ctx)
    params = _params(request)
    visitor.query = params
    visitor.private = visitor.private or tracking_script.opted_out(params)
    device = params.get(tracking_script.DEVICE_PARAM) or request.cookies().get("mautic_device_id")
    tracking_script.identify(visitor, None if visitor.private else device, ctx)
    return visitor


def _identity(contact_id: int | None, request: ApiRequest, ctx: Context, **extra: object) -> Reply:
    """Mautic's answer naming the tracked contact: `id`, and its device id as `sid` and `device_id` (here
    the signed visitor token), with the visitor cookies and the CORS headers."""
    token = visitors.token(contact_id, ctx) if contact_id is not None else None
    body = dict(extra, id=contact_id, sid=token, device_id=token)
    cookies = visitor_cookies(contact_id, ctx, cross_site=True, secure=is_https(request))
    return Reply(body, 200, dict(cors(request), **cookies, **{"Cache-Control": "no-store"}))


@routes.route("/mtc.js", "GET")
def script(request: ApiRequest, ctx: Context) -> Answer:
    """MauticJS for the service's base URL; tracks nobody (Mautic's `JsController`)."""
    return Reply(tracking_script.script(request.base_url()), 200, {}, "application/javascript")


@routes.route("/mtc/event", "POST", "OPTIONS")
def page_event(request: ApiRequest, ctx: Context) -> Answer:
    """A page view mtc.js sends (Mautic's `trackingAction`): recorded on the visitor's contact; the
    answer names it (`success`, `id`, `sid`, `device_id`, `events`)."""
    if request.method == "OPTIONS":
        return _preflight(request)
    visitor = _visitor(request, ctx)
    contact_id = tracking_script.page_view(visitor, ctx)
    return _identity(contact_id, request, ctx, success=1, events=[])


@routes.route("/mtc", "GET", "OPTIONS")
def tracked_contact(request: ApiRequest, ctx: Context) -> Answer:
    """The visitor's contact, recording nothing (Mautic's `getContactIdAction`, which mtc.js asks after
    a page view that went through the pixel)."""
    if request.method == "OPTIONS":
        return _preflight(request)
    visitor = _visitor(request, ctx)
    return _identity(None if visitor.private else visitor.contact_id, request, ctx)


blueprint = routes.blueprint()
