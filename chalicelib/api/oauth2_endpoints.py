"""Public OAuth2 endpoints under /oauth (no /api authentication): authorize (login page) and token.

`GET /oauth/v2/authorize` validates the client and its exact redirect_uri and renders the login
page; the page posts back to `POST /oauth/v2/authorize`, which checks the CSRF token, then the
credentials, and redirects to the redirect_uri with a code and the unchanged state.
`POST /oauth/v2/token` runs the grants of `auth/oauth2_flows.py`: parameters from a JSON or
form body; client credentials as parameters or HTTP Basic. GET is refused with 405 (RFC 6749
3.2: secrets in a URL end up in logs), although Mautic accepts it.
"""

from chalicelib.api.request import ApiRequest
from chalicelib.api.routing import Answer, Reply, Routes
from chalicelib.auth import core, login
from chalicelib.auth import oauth2_flows as flows
from chalicelib.domain.kernel.context import Context

routes = Routes("oauth2_endpoints", authenticated=False)

AUTHORIZE = "/oauth/v2/authorize"
PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "Pragma": "no-cache",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}
BAD_LOGIN = "Invalid username or password."
BAD_CSRF = "The login form has expired or was not sent from this page. Reload the page and try again."


def _login_page(ctx: Context, authorization: flows.AuthorizationRequest, error: str | None = None) -> Reply:
    """The login page of a validated authorize request (its fields posted back)."""
    html, cookie = login.render(
        ctx, ctx.base_url + AUTHORIZE, authorization.hidden_fields(), authorization.client["name"], error
    )
    return Reply(html, 200, dict(PAGE_HEADERS, **{"Set-Cookie": cookie}), "text/html; charset=utf-8")


def _redirect(location: str) -> Reply:
    """A 302 to `location` that no cache keeps and no referer follows."""
    return Reply(
        "",
        302,
        {"Location": location, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"},
        "text/html; charset=utf-8",
    )


@routes.route(AUTHORIZE, "GET")
def authorize_page(request: ApiRequest, ctx: Context) -> Answer:
    """OAuth2 authorize: the login page for a valid client and redirect_uri."""
    flows.check_enabled(ctx)
    try:
        authorization = flows.authorization_request(ctx, request.query)
    except flows.Redirect as redirect:
        return _redirect(redirect.location)
    return _login_page(ctx, authorization)


@routes.route(AUTHORIZE, "POST")
def authorize_submit(request: ApiRequest, ctx: Context) -> Answer:
    """OAuth2 authorize, the login form posted: a redirect with a code and the state."""
    flows.check_enabled(ctx)
    form = request.body if isinstance(request.body, dict) else {}
    csrf = form.get("_csrf")
    if not isinstance(csrf, str) or not login.csrf_ok(ctx, request.headers.get("cookie"), csrf):
        raise flows.error(BAD_CSRF, "access_denied", 403)
    try:
        authorization = flows.authorization_request(ctx, form)
    except flows.Redirect as redirect:
        return _redirect(redirect.location)
    username, password = form.get("username"), form.get("password")
    valid = isinstance(username, str) and isinstance(password, str)
    user = login.check(username, password, core.source_address(request)) if valid else None
    if user is None:
        return _login_page(ctx, authorization, BAD_LOGIN)
    return _redirect(flows.issue_code(ctx, authorization, user))


@routes.route("/oauth/v2/token", "POST")
def token(request: ApiRequest, ctx: Context) -> Answer:
    """OAuth2 token endpoint: authorization_code, refresh_token and client_credentials grants."""
    flows.check_enabled(ctx)
    body = flows.token(ctx, request.body, request.headers.get("authorization"))
    return Reply(body, 200, dict(flows.NO_STORE))


blueprint = routes.blueprint()
