"""Public password reset pages at Mautic's paths (no /api authentication; auth/resets.py has the rules):

- `GET /passwordreset`: a form asking for a username or email; `POST /passwordreset` (`identifier`)
  sends the reset email when it names a user, and answers the same either way;
- `GET /passwordresetconfirm?token=...`: the form choosing a new password (the token checked first);
  `POST /passwordresetconfirm` (`token`, `password`, `confirm`) sets it and spends the token.

A form-encoded post (the pages') answers an HTML page, a refusal shown on it (status 200, as the login
page and Mautic's forms: only errors in JSON are 4xx here); a JSON post answers JSON (`{"message"}`, or the
400 error document naming the field). The pages are never cached,
framed or sent as a Referer (the token is in the URL)."""

from html import escape
from typing import Any

from chalicelib.api.oauth2_endpoints import PAGE_HEADERS
from chalicelib.api.request import ApiRequest
from chalicelib.api.routing import Answer, Reply, Routes
from chalicelib.auth import core, resets
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import ValidationError, invalid

routes = Routes("password_reset", authenticated=False)

REQUEST_PATH = "/passwordreset"
SENT = (
    "If this user exists, an email with a link to reset the password is on its way to the address in their "
    "profile. If it does not arrive within a few minutes, check the spam folder or ask an administrator."
)  # Mautic's `mautic.user.user.notice.passwordreset`, for a link instead of a new password
DONE = "Your password is set. You may now log in as {username}."
IDENTIFIER_REQUIRED = "A username or email is required to reset your password."  # Mautic's notblank message
PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>{title}</h1>{message}{form}</main></body></html>
"""
REQUEST_FORM = """<p>Enter either your username or email to reset your password. Instructions will be sent to the
email in your profile.</p>
<form method="post" action="{action}">
<p><label for="identifier">Username or email</label> <input id="identifier" name="identifier"
 autocomplete="username" required></p>
<p><button type="submit">Reset password</button></p>
</form>"""
CONFIRM_FORM = """<form method="post" action="{action}">
<input type="hidden" name="token" value="{token}">
<p><label for="password">New password</label> <input id="password" name="password" type="password"
 autocomplete="new-password" required minlength="6"></p>
<p><label for="confirm">Confirm password</label> <input id="confirm" name="confirm" type="password"
 autocomplete="new-password" required minlength="6"></p>
<p><button type="submit">Set password</button></p>
</form>"""


def _page(title: str, message: str = "", form: str = "", alert: bool = False) -> Reply:
    """An HTML page of these forms: no cache, no frame, no Referer."""
    shown = f'<p role="{"alert" if alert else "status"}">{escape(message)}</p>' if message else ""
    html = PAGE.format(title=escape(title), message=shown, form=form)
    return Reply(html, 200, dict(PAGE_HEADERS), "text/html; charset=utf-8")


def _fields(request: ApiRequest) -> dict[str, Any]:
    """The posted fields (form-encoded or JSON), an empty dict for anything else."""
    return request.body if isinstance(request.body, dict) else {}


def _text(fields: dict[str, Any], name: str) -> str:
    """A posted text field, '' when absent or not text."""
    value = fields.get(name)
    return value if isinstance(value, str) else ""


def _as_json(request: ApiRequest) -> bool:
    """Whether the post is an API client's (JSON), answered in JSON."""
    return request.content_type != "application/x-www-form-urlencoded"


@routes.route(REQUEST_PATH, "GET")
def request_page(request: ApiRequest, ctx: Context) -> Answer:
    """The form asking for a username or email."""
    return _page("Reset password", form=REQUEST_FORM.format(action=escape(ctx.base_url + REQUEST_PATH)))


@routes.route(REQUEST_PATH, "POST")
def request_reset(request: ApiRequest, ctx: Context) -> Answer:
    """Send the reset email if `identifier` names a user; the same answer whether it does or not."""
    fields = _fields(request)
    identifier = _text(fields, "identifier").strip()
    if not identifier:
        if _as_json(request):
            raise invalid("identifier", IDENTIFIER_REQUIRED)
        form = REQUEST_FORM.format(action=escape(ctx.base_url + REQUEST_PATH))
        return _page("Reset password", IDENTIFIER_REQUIRED, form, alert=True)
    resets.request(identifier, ctx, core.source_address(request))
    return {"message": SENT} if _as_json(request) else _page("Reset password", SENT)


@routes.route(resets.CONFIRM_PATH, "GET")
def confirm_page(request: ApiRequest, ctx: Context) -> Answer:
    """The form choosing a new password, for a token that may still set one; the reason otherwise."""
    token = request.query.get("token")
    token = token if isinstance(token, str) else ""
    try:
        resets.check(token)
    except ValidationError as error:
        return _page("Choose your password", _reason(error), alert=True)
    return _page("Choose your password", form=_confirm_form(ctx, token))


@routes.route(resets.CONFIRM_PATH, "POST")
def confirm(request: ApiRequest, ctx: Context) -> Answer:
    """Set the new password and spend the token."""
    fields = _fields(request)
    token = _text(fields, "token")
    try:
        user = resets.confirm(token, fields.get("password"), fields.get("confirm"), ctx)
    except ValidationError as error:
        if _as_json(request):
            raise
        form = "" if "token" in error.fields else _confirm_form(ctx, token)
        return _page("Choose your password", _reason(error), form, alert=True)
    message = DONE.format(username=user.get("username"))
    return {"message": message} if _as_json(request) else _page("Choose your password", message)


def _confirm_form(ctx: Context, token: str) -> str:
    """The new-password form carrying the token."""
    return CONFIRM_FORM.format(action=escape(ctx.base_url + resets.CONFIRM_PATH), token=escape(token))


def _reason(error: ValidationError) -> str:
    """The first message of a refusal."""
    return next((message for messages in error.fields.values() for message in messages), error.message)


blueprint = routes.blueprint()
