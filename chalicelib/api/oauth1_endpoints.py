"""Public OAuth 1a endpoints under /oauth/v1 (no /api authentication; see `auth/oauth1.py`).

- `POST /oauth/v1/request_token`: signed with the consumer secret only; form-encoded answer
  `oauth_token=..&oauth_token_secret=..&oauth_expires_in=3600&oauth_callback_confirmed=1`.
- `GET /oauth/v1/authorize?oauth_token=..[&oauth_callback=..]`: the shared login page.
  `POST` (the form): CSRF (403), credentials (the page again with an error), then a 302 to the
  callback with `oauth_token` and `oauth_verifier`, or a page showing the verifier for `oob`.
- `POST /oauth/v1/access_token`: signed with the request token and `oauth_verifier`;
  form-encoded answer `oauth_token=..&oauth_token_secret=..`.
- `POST /oauth/v1/deauthorize`: signed with an access token, which stops working at once;
  answers `{"success": 1}`.
Errors are the JSON error document with the OAuth1 error code as `type`.
"""

from html import escape

from chalicelib.api.request import ApiRequest
from chalicelib.api.routing import Answer, Reply, Routes
from chalicelib.auth import core, login, oauth1
from chalicelib.auth.errors import AuthError
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Doc

routes = Routes("oauth1_endpoints", authenticated=False)

AUTHORIZE = "/oauth/v1/authorize"
TOKEN_TYPE = "application/x-www-form-urlencoded"
HTML = "text/html; charset=utf-8"
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
PAGE_HEADERS = dict(
    NO_STORE,
    **{
        "X-Frame-Options": "DENY",
        "Content-Security-Policy": "frame-ancestors 'none'",
        "Referrer-Policy": "no-referrer",
    },
)

VERIFIER_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Authorized</title></head>
<body><main><h1>Authorized</h1>
<p>Enter this verification code in {client}:</p>
<p><code id="oauth_verifier">{verifier}</code></p>
</main></body></html>
"""


@routes.route("/oauth/v1/request_token", "POST")
def request_token(request: ApiRequest, ctx: Context) -> Answer:
    """OAuth 1a step 1: a request token for a signed consumer."""
    oauth1.require_mode(ctx)
    return Reply(oauth1.issue_request_token(request, ctx), 200, dict(NO_STORE), TOKEN_TYPE)


@routes.route("/oauth/v1/access_token", "POST")
def access_token(request: ApiRequest, ctx: Context) -> Answer:
    """OAuth 1a step 3: the access token for an authorized request token and its verifier."""
    oauth1.require_mode(ctx)
    return Reply(oauth1.issue_access_token(request, ctx), 200, dict(NO_STORE), TOKEN_TYPE)


def _page(ctx: Context, consumer: Doc, token: str | None, callback: str | None, error: str | None = None) -> Reply:
    """The login page of the authorize step, posting the request token and callback back."""
    html, cookie = login.render(
        ctx, ctx.base_url + AUTHORIZE, {"oauth_token": token, "oauth_callback": callback}, consumer["name"], error
    )
    return Reply(html, 200, dict(PAGE_HEADERS, **{"Set-Cookie": cookie}), HTML)


def _text(value: JSON) -> str | None:
    """A parameter that must be a string, or None."""
    return value if isinstance(value, str) else None


@routes.route(AUTHORIZE, "GET")
def authorize_page(request: ApiRequest, ctx: Context) -> Answer:
    """OAuth 1a step 2: the login page for a live request token."""
    oauth1.require_mode(ctx)
    token, callback = _text(request.query.get("oauth_token")), _text(request.query.get("oauth_callback"))
    consumer, _, _ = oauth1.pending_authorization(ctx, token, callback)
    return _page(ctx, consumer, token, callback)


@routes.route(AUTHORIZE, "POST")
def authorize_submit(request: ApiRequest, ctx: Context) -> Answer:
    """OAuth 1a step 2, the login form posted: the verifier by callback or on a page."""
    oauth1.require_mode(ctx)
    form = request.body if request.content_type == TOKEN_TYPE and isinstance(request.body, dict) else {}
    if not login.csrf_ok(ctx, request.headers.get("cookie"), _text(form.get("_csrf"))):
        raise AuthError(
            403, "The login form has expired or was not sent by this site. Reload it and try again.", "csrf_invalid"
        )
    token, given = _text(form.get("oauth_token")), _text(form.get("oauth_callback")) or None
    consumer, data, callback = oauth1.pending_authorization(ctx, token, given)
    assert token is not None  # pending_authorization refuses a missing token
    user = login.check(_text(form.get("username")), _text(form.get("password")), core.source_address(request))
    if user is None:
        return _page(ctx, consumer, token, given, "Invalid username or password.")
    verifier = oauth1.authorize(ctx, token, data, user)
    if callback == oauth1.OOB:
        page = VERIFIER_PAGE.format(client=escape(consumer["name"]), verifier=escape(verifier))
        return Reply(page, 200, dict(PAGE_HEADERS), HTML)
    return Reply("", 302, dict(NO_STORE, Location=oauth1.with_verifier(callback, token, verifier)), HTML)


@routes.route("/oauth/v1/deauthorize", "POST")
def deauthorize(request: ApiRequest, ctx: Context) -> Answer:
    """Give up the access token the request is signed with."""
    oauth1.deauthorize_signed(request, ctx)
    return {"success": 1}


blueprint = routes.blueprint()
