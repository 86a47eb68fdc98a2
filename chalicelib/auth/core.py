"""Who is calling: one decision for every `/api` request, locally and on AWS.

Order: the API switch (403), then exactly one credential place (header, `access_token` in the
query, or `access_token` in a form body; more than one is a 400), then the scheme: Basic
(users' passwords), Bearer (OAuth2 access tokens, `auth/oauth2.py`) or OAuth (OAuth1a
signatures, `auth/oauth1.py`). Basic credentials verified with argon2id are remembered in
process for a minute, keyed by a SHA-256 of the header, unless the user's tokens were revoked since;
failures are never remembered. Remembered credentials still answer 429 while their address is locked
out; the lockout counters they are checked against are read at most once per `VERSIONS_TTL` per
container and credentials (a failure in this container, of Basic or of the OAuth login form, forgets every
such check at once), so a client sending them at any rate reads each counter item about once a second
per container, not once per request (docs/capacity.md), and a lockout made elsewhere applies here within that second.
"""

import base64
import binascii
import hashlib
import time

from chalicelib import config
from chalicelib.auth import clients, settings
from chalicelib.auth.errors import BEARER_CHALLENGE, NO_CREDENTIALS, AuthError, require_api
from chalicelib.auth.protocols import Request
from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc

CACHE_SECONDS = 60
PUBLIC_USER = ("id", "username", "firstName", "lastName", "email", "role")
_verified: dict[str, tuple[Doc, float]] = {}  # SHA-256 of the header: (user, verified at: wall-clock seconds)
_unlocked: dict[tuple[str, str | None], float] = {}  # (header's SHA-256, address): lockout last read open at
UNLOCKED_KEPT = 10_000  # checks remembered before they are all forgotten (one per credentials and address)
_failures = [0]  # sign-in failures in this container: a check read before the last one is not remembered


def forget_verified() -> None:
    """Forget the Basic credentials verified in this process, and their lockout checks (tests that
    restore older users)."""
    _verified.clear()
    _unlocked.clear()


def forget_lockout_checks() -> None:
    """A sign-in failed in this container (Basic or the OAuth login form, `auth/login.py`): it may have
    locked an address out, so remembered credentials read their lockout counters again at once (also
    those a request is reading meanwhile)."""
    _failures[0] += 1
    _unlocked.clear()


def remember_verified(encoded: str, user: Doc) -> None:
    """Trust the Basic credentials `encoded` as verified for `user` now: tests that restore the first
    start verify its administrator once per session, not once per test (argon2id takes ~0.1-1 s)."""
    _verified[hashlib.sha256(encoded.encode()).hexdigest()] = (user, time.time())


def authenticate(request: Request, ctx: Context) -> Doc:
    """The user document for the request's credentials, or AuthError (400/401/403)."""
    current = settings.current(ctx)
    require_api(current)
    header = (request.headers.get("authorization") or "").strip()
    scheme, _, credentials = header.partition(" ")
    query_token = request.query.get("access_token")
    body_token = request.form_field("access_token")
    if sum(1 for place in (header, query_token, body_token) if place) > 1:
        raise AuthError(
            400, "Only one method may be used to authenticate at a time (Auth header, GET or POST).", "invalid_request"
        )
    if scheme.lower() == "basic":
        return _basic(credentials.strip(), current, source_address(request), ctx)
    if scheme == "OAuth":
        from chalicelib.auth import oauth1

        return oauth1.authenticate(request, ctx, current)
    token = credentials.strip() if scheme == "Bearer" else (query_token or body_token)
    if token:
        from chalicelib.auth import oauth2

        return oauth2.authenticate(token, ctx, current)
    raise AuthError(401, NO_CREDENTIALS, headers=dict(BEARER_CHALLENGE))


def public_user(user: Doc) -> Doc:
    """The fields of a user the API trusts from the authorizer (never the password hash)."""
    return {name: user[name] for name in PUBLIC_USER if name in user}


def source_address(request: Request) -> str | None:
    """The caller's address as the gateway saw it (never a client-supplied X-Forwarded-For)."""
    return ((request.raw.context or {}).get("identity") or {}).get("sourceIp")


def _basic(encoded: str, current: Doc, source: str | None, ctx: Context) -> Doc:
    """The user of Basic credentials, remembered for CACHE_SECONDS once verified."""
    if not current["basicAuthEnabled"]:
        raise AuthError(
            403,
            "Basic Auth disabled. You need to enable HTTP basic auth in the API settings of Mautic's Configuration.",
        )
    from chalicelib.auth import users  # the user records and their declarations: Basic's alone (off in production)

    try:
        username, _, password = base64.b64decode(encoded, validate=True).decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        username = password = ""
    key = hashlib.sha256(encoded.encode()).hexdigest()
    cached = _verified.get(key)
    if (
        cached
        and clock.fresh(cached[1], CACHE_SECONDS, time.time())
        and not clients.revoked_before(ctx, f"user:{cached[0]['id']}", cached[1])
    ):
        _refuse_locked(username, source, key)
        return cached[0]
    user = users.check_password(username, password, source)
    if user is None:
        forget_lockout_checks()
        raise AuthError(401, "Authorization denied, invalid credentials.")
    _verified[key] = (user, time.time())
    return user


def _refuse_locked(username: str, source: str | None, key: str) -> None:
    """AuthError 429 while remembered credentials' username and address are locked out, their
    counters read unless this container found them open within `VERSIONS_TTL`."""
    from chalicelib.auth import users

    now = time.time()
    if now - _unlocked.get((key, source), float("-inf")) < config.active().VERSIONS_TTL:
        return
    failures = _failures[0]
    users.refuse_locked(username, source)
    if len(_unlocked) >= UNLOCKED_KEPT:
        _unlocked.clear()
    if _failures[0] == failures:  # no failure here since the read: what it found still holds
        _unlocked[(key, source)] = now
