"""OAuth2 grants (RFC 6749, RFC 7636, RFC 9700): authorization codes, refresh tokens, client credentials.

Storage (`store/tokens.py`, keys hashed with SHA-256, so a table dump holds nothing usable):
- `oauth2-code`: an authorization code, single use, 30 s (Mautic's lifetime). It carries the
  client, the user, the exact redirect_uri, the PKCE challenge and a new token family id.
- `oauth2-refresh`: a refresh token, single use (rotated on every refresh), `refreshTokenDays`.
  It carries the client, the user and the family.
A used code or refresh token stays in the table, marked used, until it expires: presenting it
again is a replay, and the whole family it belongs to is revoked (`clients.revoke_subject`), so
the access and refresh tokens issued from it stop working on every container's next request.

Errors are `AuthError`s rendered as `{"errors": [{"message", "code", "type"}]}` (compat section 2):
400 for every token endpoint failure (invalid_client too, as Mautic answers), 403 when the API
or OAuth2 (the instance runs OAuth1a) is disabled. Authorization errors are JSON 400s unless the
client and redirect_uri are valid: only then is the error sent to the client by redirect.
"""

import base64
import binascii
import re
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import unquote_plus, urlencode, urlsplit, urlunsplit

from chalicelib.auth import clients, oauth2, settings
from chalicelib.auth.declarations import USER
from chalicelib.auth.errors import AuthError, require_api
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.ports import tokens
from chalicelib.store import port as store

CODE_KIND = "oauth2-code"
REFRESH_KIND = "oauth2-refresh"
CODE_SECONDS = 30
TOKEN_LENGTH = 43  # characters of [A-Za-z0-9]: about 256 bits
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
PKCE_VALUE = r"^[A-Za-z0-9\-._~]{43,128}$"  # RFC 7636 4.1 / 4.2

INVALID_CLIENT = "The client credentials are invalid"
INVALID_CODE = "Code doesn't exist or is invalid for the client"
INVALID_REFRESH = "Invalid refresh token"
INVALID_GRANT_TYPE = "Invalid grant_type parameter or parameter missing"


def error(message: str, error_type: str, status: int = 400) -> AuthError:
    """A token/authorize endpoint error (never cached by the client or a proxy)."""
    return AuthError(status, message, error_type, dict(NO_STORE))


def check_enabled(ctx: Context) -> Doc:
    """403 unless the API is on and the instance uses OAuth2 (not OAuth1a)."""
    current = settings.current(ctx)
    require_api(current, dict(NO_STORE))
    if current["oauthMode"] != "2":
        raise error("OAuth2 is disabled: this instance uses OAuth1a (/oauth/v1).", "access_denied", 403)
    return current


def _param(params: JSON, name: str) -> str | None:
    """A single string parameter, or None; anything else (arrays) is a malformed request."""
    value = params.get(name) if isinstance(params, dict) else None
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise error(f'The "{name}" parameter is malformed.', "invalid_request")
    return value


def new_secret() -> str:
    """A random code, refresh token or family id of TOKEN_LENGTH characters."""
    from oauthlib.common import generate_token  # oauthlib loads on the first OAuth2 flow

    return generate_token(TOKEN_LENGTH)


def with_query(uri: str, params: Iterable[tuple[str, str | None]]) -> str:
    """`uri` with params appended to its query, the existing query kept byte for byte."""
    parts = urlsplit(uri)
    extra = urlencode([(k, v) for k, v in params if v is not None])
    query = f"{parts.query}&{extra}" if parts.query else extra
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


class Redirect(Exception):
    """An authorization error reported to the client at its (validated) redirect_uri."""

    def __init__(self, location: str) -> None:
        super().__init__(location)
        self.location = location


@dataclass(eq=False, repr=False)
class AuthorizationRequest:
    """A validated authorization request: client, exact redirect_uri, state and PKCE challenge."""

    client: dict
    redirect_uri: str
    state: str | None
    challenge: str | None
    challenge_method: str | None

    def hidden_fields(self) -> dict[str, str | None]:
        """What the login form posts back."""
        return {
            "client_id": self.client["publicId"],
            "redirect_uri": self.redirect_uri,
            "response_type": "code",
            "state": self.state,
            "code_challenge": self.challenge,
            "code_challenge_method": self.challenge_method,
        }

    def error_redirect(self, error_type: str, description: str) -> Redirect:
        """The redirect reporting `error_type` to the client, with the request's state."""
        return Redirect(
            with_query(
                self.redirect_uri, [("error", error_type), ("error_description", description), ("state", self.state)]
            )
        )


def authorization_request(ctx: Context, params: JSON) -> AuthorizationRequest:
    """Validate an authorize request's parameters.

    Unknown, revoked or non-OAuth2 client, or a redirect_uri that is not exactly one of the
    client's registered URIs: AuthError (a JSON 400, never a redirect). Other errors, once the
    redirect_uri is known to be the client's: Redirect with `error` and the unchanged `state`."""
    client, redirect_uri = _client_and_redirect_uri(ctx, params)
    request = AuthorizationRequest(client, redirect_uri, _param(params, "state"), None, None)
    if _param(params, "response_type") != "code":
        raise request.error_redirect("unsupported_response_type", "Invalid response type.")
    if _param(params, "scope") is not None:
        raise request.error_redirect("invalid_scope", "An unsupported scope was requested.")
    _check_challenge(request, params)
    return request


def _client_and_redirect_uri(ctx: Context, params: JSON) -> tuple[Doc, str]:
    """The live OAuth2 client of an authorize request and its redirect_uri, exactly one the client
    registered; AuthError (a JSON 400) otherwise."""
    client_id = _param(params, "client_id")
    if client_id is None:
        raise error("No client id supplied", "invalid_request")
    client = clients.by_public_id(ctx, client_id)
    if client is None or client.get("mode") != "2":
        raise error("Unknown client", "invalid_client")
    redirect_uri = _param(params, "redirect_uri")
    if redirect_uri is None:
        raise error("No redirect URL was supplied.", "invalid_request")
    # RFC 9700 2.1: exact string comparison, no prefix or pattern matching.
    if not any(
        secrets.compare_digest(redirect_uri.encode(), registered.encode())
        for registered in client.get("redirectUris") or []
    ):
        raise error("The redirect URI provided does not match registered URI(s).", "redirect_uri_mismatch")
    return client, redirect_uri


def _check_challenge(request: AuthorizationRequest, params: JSON) -> None:
    """Record the request's PKCE challenge (S256 only); a Redirect with the error otherwise."""
    challenge, method = _param(params, "code_challenge"), _param(params, "code_challenge_method")
    if challenge is None and method is not None:
        raise request.error_redirect("invalid_request", "Code challenge required.")
    if challenge is not None:
        if (method or "plain") != "S256":  # RFC 9700 2.1.1: plain offers no protection; refused
            raise request.error_redirect("invalid_request", "Transform algorithm not supported.")
        if not re.match(PKCE_VALUE, challenge):
            raise request.error_redirect("invalid_request", "The code challenge is malformed.")
        request.challenge, request.challenge_method = challenge, method


def issue_code(ctx: Context, request: AuthorizationRequest, user: Doc) -> str:
    """Store a new authorization code for `user`; returns the URL to redirect the browser to."""
    code = new_secret()
    tokens.put(
        CODE_KIND,
        code,
        {
            "client": request.client["publicId"],
            "user": user["id"],
            "redirectUri": request.redirect_uri,
            "challenge": request.challenge,
            "family": new_secret(),
        },
        CODE_SECONDS,
        only_new=True,
    )
    return with_query(request.redirect_uri, [("code", code), ("state", request.state)])


# --- token endpoint -------------------------------------------------------------------------


def _basic_credentials(authorization: str | None) -> tuple[str, str] | None:
    """(client_id, client_secret) from an HTTP Basic header (RFC 6749 2.3.1), or None."""
    scheme, _, encoded = (authorization or "").strip().partition(" ")
    if scheme.lower() != "basic" or not encoded.strip():
        return None  # the PHP client sends a dangling "Authorization: Bearer " header: ignored
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise error(INVALID_CLIENT, "invalid_client") from None
    client_id, sep, client_secret = decoded.partition(":")
    if not sep:
        raise error(INVALID_CLIENT, "invalid_client")
    return unquote_plus(client_id), unquote_plus(client_secret)


def authenticate_client(ctx: Context, params: JSON, authorization: str | None) -> Doc:
    """The OAuth2 client whose credentials came as parameters or by HTTP Basic (not both)."""
    client_id, client_secret = _param(params, "client_id"), _param(params, "client_secret")
    basic = _basic_credentials(authorization)
    if basic is not None:
        if client_secret is not None:
            raise error("Only one method may be used to authenticate the client.", "invalid_request")
        if client_id is not None and client_id != basic[0]:
            raise error(INVALID_CLIENT, "invalid_client")
        client_id, client_secret = basic
    client = clients.by_public_id(ctx, client_id) if client_id else None
    # verify_secret compares hashes in constant time; an unknown client fails the same way
    if client is None or client.get("mode") != "2" or not clients.verify_secret(client, client_secret):
        raise error(INVALID_CLIENT, "invalid_client")
    return client


def _live_user(user_id: int | None) -> Doc | None:
    """The published user of an id, or None."""
    user = store.get(USER.kind, user_id) if user_id is not None else None
    return user if user is not None and user.get("isPublished", True) else None


def _client_user(client: Doc) -> Doc:
    """The user a client_credentials token acts as: the one named when the client was created."""
    user = _live_user(client.get("userId"))
    if user is None:
        raise error("The client has no user to act for.", "unauthorized_client")
    return user


def _response(ctx: Context, client: Doc, user: Doc, family: str, refresh: bool = True) -> Doc:
    """The token response (compat 4.2), storing a new refresh token of the family when asked."""
    access_token, lifetime = oauth2.issue_access_token(ctx, client, user, family)
    body = {"access_token": access_token, "expires_in": lifetime, "token_type": "bearer", "scope": None}
    if refresh:
        refresh_token = new_secret()
        days = int(settings.current(ctx)["refreshTokenDays"])
        tokens.put(
            REFRESH_KIND,
            refresh_token,
            {"client": client["publicId"], "user": user["id"], "family": family, "issued": time.time()},
            days * 86400,
            only_new=True,
        )
        body["refresh_token"] = refresh_token
    return body


def revoke_family(ctx: Context, family: str) -> None:
    """Revoke a token family until its longest-lived token (a refresh token) has expired."""
    days = int(settings.current(ctx)["refreshTokenDays"])
    clients.revoke_subject(ctx, f"family:{family}", seconds=days * 86400)


def _authorization_code(ctx: Context, client: Doc, params: Doc) -> Doc:
    """The `authorization_code` grant: a single-use code, its redirect_uri and PKCE verifier."""
    code = _param(params, "code")
    if code is None:
        raise error('Missing parameter: "code" is required.', "invalid_request")
    data, _ = tokens.get(CODE_KIND, code)
    if data is None or data["client"] != client["publicId"]:
        raise error(INVALID_CODE, "invalid_grant")
    # One exchange attempt per code. A second one is a replay: revoke what the first issued.
    if not tokens.use(CODE_KIND, code):
        revoke_family(ctx, data["family"])
        raise error("The authorization code has already been used.", "invalid_grant")
    redirect_uri = _param(params, "redirect_uri")
    if redirect_uri is None or not secrets.compare_digest(redirect_uri.encode(), data["redirectUri"].encode()):
        raise error("The redirect URI is missing or do not match.", "invalid_grant")
    from oauthlib.oauth2.rfc6749.grant_types.authorization_code import code_challenge_method_s256

    verifier = _param(params, "code_verifier")
    if data.get("challenge"):
        if verifier is None:
            raise error("Code verifier required.", "invalid_grant")
        if not re.match(PKCE_VALUE, verifier) or not code_challenge_method_s256(verifier, data["challenge"]):
            raise error("The code verifier does not match the code challenge.", "invalid_grant")
    elif verifier is not None:  # RFC 9700 4.8.2: no PKCE downgrade
        raise error("A code verifier was sent but no code challenge was.", "invalid_grant")
    user = _live_user(data["user"])
    if user is None:
        raise error(INVALID_CODE, "invalid_grant")
    return _response(ctx, client, user, data["family"])


def _refresh_token(ctx: Context, client: Doc, params: Doc) -> Doc:
    """The `refresh_token` grant: a single-use refresh token rotated into a new one."""
    refresh_token = _param(params, "refresh_token")
    if refresh_token is None:
        raise error('Missing parameter: "refresh_token" is required.', "invalid_request")
    data, _ = tokens.get(REFRESH_KIND, refresh_token)  # unknown and expired look the same
    if (
        data is None
        or data["client"] != client["publicId"]
        or clients.revoked(ctx, f"family:{data['family']}")
        or clients.revoked_before(ctx, f"user:{data['user']}", data.get("issued"))
    ):
        raise error(INVALID_REFRESH, "invalid_grant")
    if not tokens.use(REFRESH_KIND, refresh_token):
        # An old refresh token came back: either the client or an attacker holds a copy. RFC 9700 4.14.2.
        revoke_family(ctx, data["family"])
        raise error("The refresh token has already been used.", "invalid_grant")
    user = _live_user(data["user"])
    if user is None:
        raise error(INVALID_REFRESH, "invalid_grant")
    return _response(ctx, client, user, data["family"])


def _client_credentials(ctx: Context, client: Doc, params: Doc) -> Doc:
    """The `client_credentials` grant: a token for the client's user, without a refresh token."""
    return _response(ctx, client, _client_user(client), new_secret(), refresh=False)


def token(ctx: Context, params: JSON, authorization: str | None = None) -> Doc:
    """Run a token request (parameters from the body, or the query on GET); returns the response body."""
    params = params if isinstance(params, dict) else {}
    grant_type = _param(params, "grant_type")
    if grant_type is None:
        raise error(INVALID_GRANT_TYPE, "invalid_request")
    if grant_type not in clients.GRANTS:
        raise error(INVALID_GRANT_TYPE, "unsupported_grant_type")
    client = authenticate_client(ctx, params, authorization)
    if grant_type not in clients.grants(client):
        raise error("The grant type is unauthorized for this client_id", "unauthorized_client")
    if _param(params, "scope") is not None:
        raise error("An unsupported scope was requested.", "invalid_scope")
    grant: Callable[[Context, Doc, Doc], Doc] = {
        "authorization_code": _authorization_code,
        "refresh_token": _refresh_token,
        "client_credentials": _client_credentials,
    }[grant_type]
    return grant(ctx, client, params)
