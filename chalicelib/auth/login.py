"""The login page of the authorize flows (OAuth2 and OAuth1a): HTML form, CSRF, credentials.

CSRF uses a double-submit token: a random value in an HttpOnly, SameSite=Strict cookie and its
HMAC (instance signing key) in a hidden form field; a post must carry both, matching.
"""

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from html import escape

from chalicelib.auth import core, users
from chalicelib.domain.kernel import keys
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc

COOKIE = "mautic_login_csrf"

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Log in</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Log in</h1>
<p>{client} asks to use the API in your name.</p>{error}
<form method="post" action="{action}">
{hidden}<input type="hidden" name="_csrf" value="{csrf}">
<p><label for="username">Username</label> <input id="username" name="username" autocomplete="username" required></p>
<p><label for="password">Password</label> <input id="password" name="password" type="password"
 autocomplete="current-password" required></p>
<p><button type="submit">Log in</button></p>
</form></main></body></html>
"""


def _sign(ctx: Context, value: str) -> str:
    """The HMAC of a CSRF nonce (a key derived for the login form)."""
    return hmac.new(keys.derived("login-form", ctx), value.encode(), hashlib.sha256).hexdigest()


def render(
    ctx: Context, action: str, hidden: Mapping[str, object], client_name: str, error: str | None = None
) -> tuple[str, str]:
    """(html, Set-Cookie header value) of the login form posting `hidden` fields back to `action`.

    The cookie is `Secure` when the form posts to an https URL."""
    nonce = secrets.token_urlsafe(24)
    fields = "".join(
        f'<input type="hidden" name="{escape(str(k))}" value="{escape(str(v))}">\n'
        for k, v in hidden.items()
        if v is not None
    )
    message = f'<p role="alert">{escape(error)}</p>' if error else ""
    html = PAGE.format(
        client=escape(client_name), error=message, action=escape(action), hidden=fields, csrf=_sign(ctx, nonce)
    )
    secure = "; Secure" if action.startswith("https://") else ""
    cookie = f"{COOKIE}={nonce}; Path=/; HttpOnly; SameSite=Strict; Max-Age=1800{secure}"
    return html, cookie


def csrf_ok(ctx: Context, cookie_header: str | None, field_value: object) -> bool:
    """Whether the posted `_csrf` field matches the CSRF cookie."""
    cookies = dict(part.strip().split("=", 1) for part in (cookie_header or "").split(";") if "=" in part)
    nonce = cookies.get(COOKIE)
    if not nonce or not field_value:
        return False
    return hmac.compare_digest(_sign(ctx, nonce), str(field_value))


def check(username: str | None, password: str | None, source: str | None) -> Doc | None:
    """The user with these credentials, or None; AuthError 429 after too many failures."""
    user = users.check_password(username or "", password or "", source)
    if user is None:
        core.forget_lockout_checks()
    return user
