"""OAuth 1a (RFC 5849, HMAC-SHA1 only): request tokens, authorization, access tokens, signed calls.

Active only when the instance's OAuth mode is `1a`. Consumers are API clients created in mode
`1a` (`auth/clients.py`): the consumer key is the client's public id and the consumer secret is
derived from the instance signing key, never stored.

What is stored (the token store keeps every key as a SHA-256 hash, `store/tokens.py`):
- `oauth1-request#<hash of token>`: consumer key, callback, expiry (3600 s TTL); after the user
  logs in also the user (public fields) and a SHA-256 of the verifier. Single use: the
  access-token exchange marks it used with a conditional update.
- `oauth1-access#<hash of token>`: consumer key, user (public fields) and issue time; it expires
  after OAUTH1_TOKEN_DAYS (90 by default, 0 for never). Deleting the item (`deauthorize`) or
  revoking the consumer (`client:<key>`) or the user (`user:<id>`: the tokens issued before) on
  the cached revocation list makes it fail.
- `oauth1-nonce#<hash of consumer key + nonce>`: written with a does-not-exist condition, kept
  until the request's timestamp leaves the +-600 s window (at least 15 minutes).
Token secrets are not stored: like consumer secrets they are an HMAC of the signing key and
the token, so the server can always recompute them and a table dump reveals none.

Signatures are checked with oauthlib's signature code (parameter normalisation, base string,
HMAC-SHA1, constant-time comparison). The base string covers the method, the URL the client
called (`ApiRequest.url()`), the Authorization header parameters, the query and the body of a
form-encoded request. Two parameter collections are accepted:
- RFC 5849 (requests-oauthlib, oauthlib and most libraries): every pair as sent, repeated
  names repeated, bracket names kept as they are (`ids%5B%5D=1`);
- the spec's (Mautic's server and its PHP api-library): header, query and body parameters
  merged by name, PHP bracket parameters flattened into their top-level name repeated per
  value (`ids=1&ids=2`, never `ids[0]=1`). That form is lossy by design (`a[x]=1&a[y]=2` and
  `a[x]=2&a[y]=1` sign alike), which is why RFC 5849 clients should be preferred.

DynamoDB calls per signed `/api` request: the versions of the cached kinds (one BatchGetItem,
shared with settings, clients and the revocation list), one GetItem for the access token and
one conditional PutItem for the nonce.
"""

import hashlib
import hmac
import secrets
import time
from collections.abc import Iterable
from typing import overload
from urllib.parse import urlencode, urlsplit, urlunsplit

from chalicelib import config
from chalicelib.auth import clients, settings
from chalicelib.auth.errors import AuthError, require_api
from chalicelib.auth.protocols import Request
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.ports import tokens

WINDOW = 600  # seconds a timestamp may differ from the server's clock
NONCE_SECONDS = 15 * 60
REQUEST_TOKEN_SECONDS = 3600
REQUEST_KIND, ACCESS_KIND, NONCE_KIND = "oauth1-request", "oauth1-access", "oauth1-nonce"
HMAC_SHA1 = "HMAC-SHA1"
OOB = "oob"
FORM = "application/x-www-form-urlencoded"
USER_FIELDS = ("username", "firstName", "lastName", "email", "role")
REQUIRED = ("oauth_consumer_key", "oauth_signature_method", "oauth_signature", "oauth_timestamp", "oauth_nonce")

ERRORS = {
    "parameter_absent": (400, "A required OAuth parameter is missing: {}."),
    "parameter_rejected": (400, "{}"),
    "version_rejected": (400, "Only OAuth version 1.0 is supported."),
    "timestamp_refused": (400, f"The timestamp is refused: it must be within {WINDOW} seconds of the server's time."),
    "nonce_used": (400, "The nonce has already been used."),
    "signature_method_rejected": (400, "Only the HMAC-SHA1 signature method is supported."),
    "consumer_key_unknown": (401, "The consumer key is unknown or revoked."),
    "token_rejected": (401, "The token is invalid, expired, already used or deauthorized."),
    "signature_invalid": (401, "The signature is invalid."),
}
CHALLENGE = {"WWW-Authenticate": 'OAuth realm="Service"'}
Pairs = list[tuple[str, str]]  # (name, value) parameters in the order sent


def error(code: str, detail: str = "") -> AuthError:
    """The AuthError of an OAuth1 error code (status and message of compat section 4.6)."""
    status, message = ERRORS[code]
    return AuthError(status, message.format(detail), code, dict(CHALLENGE) if status == 401 else None)


# ---- settings -------------------------------------------------------------------------------


def require_mode(ctx: Context) -> None:
    """For the /oauth/v1 endpoints: the API is on and the instance uses OAuth 1a (403 otherwise)."""
    current = settings.current(ctx)
    require_api(current)
    if current["oauthMode"] != "1a":
        raise AuthError(403, "OAuth 1a is disabled: this instance uses OAuth 2.", "access_denied")


def _secret(ctx: Context, kind: str, token: str) -> str:
    """The secret of a request or access token: derived from the signing key, never stored."""
    return hmac.new(settings.signing_key(ctx).encode(), f"{kind}:{token}".encode(), hashlib.sha256).hexdigest()


def _digest(value: str) -> str:
    """The SHA-256 hex digest kept in place of a verifier."""
    return hashlib.sha256(value.encode()).hexdigest()


# ---- signed requests ------------------------------------------------------------------------


def _header_params(request: Request) -> Pairs:
    """The Authorization header's parameters, percent-decoded (realm dropped)."""
    from oauthlib.oauth1.rfc5849 import utils  # oauthlib loads on the first OAuth1a request

    header = (request.headers.get("authorization") or "").strip()
    if not header.startswith("OAuth "):
        raise error("parameter_absent", "Authorization: OAuth header")
    try:
        pairs = utils.parse_authorization_header(header)
    except ValueError:
        raise error("parameter_rejected", "The Authorization header is malformed.") from None
    return [(name, utils.unescape(value)) for name, value in pairs if name != "realm"]


def _query_pairs(request: Request) -> Pairs:
    """The query string's pairs as sent (repeated names repeated)."""
    params = request.raw.query_params  # chalice's MultiDict, or None without a query
    if not params:
        return []
    return [(name, value) for name in params for value in params.getlist(name)]


def _body_pairs(request: Request) -> Pairs:
    """The pairs of a form-encoded body as sent; [] for any other body (JSON is not signed)."""
    from oauthlib.common import urldecode

    if request.content_type != FORM:
        return []
    raw = request.raw.raw_body or b""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        return urldecode(text)
    except (UnicodeDecodeError, ValueError):
        raise error("parameter_rejected", "The form-encoded body is malformed.") from None


def _flatten(name: str, value: JSON) -> Pairs:
    """(name, leaf) pairs of a PHP-parsed value: nested values repeat the top-level name."""
    if isinstance(value, dict):
        return [pair for child in value.values() for pair in _flatten(name, child)]
    if isinstance(value, list):
        return [pair for child in value for pair in _flatten(name, child)]
    return [(name, "" if value is None else str(value))]


def _collections(request: Request, header: Pairs, query: Pairs, body: Pairs) -> list[Pairs]:
    """The candidate parameter lists of the base string (RFC 5849 first, then the spec's)."""
    rfc = [pair for pair in header if pair[0] != "oauth_signature"] + query + body
    merged = dict(header)
    merged.update(request.query)
    if body:
        merged.update(request.body)
    spec = [pair for name, value in merged.items() if name != "oauth_signature" for pair in _flatten(name, value)]
    return [rfc] if spec == rfc else [rfc, spec]


def _signature_ok(request: Request, header: Pairs, oauth: dict[str, str], secrets_pair: tuple[str, str | None]) -> bool:
    """Whether the signature matches one of the candidate parameter collections."""
    from oauthlib.common import Request as SignedRequest
    from oauthlib.oauth1.rfc5849 import signature

    query, body = _query_pairs(request), _body_pairs(request)
    for name, value in query + body:
        # The PHP api-library repeats `oauth_verifier` in the body; any other place is refused.
        if name.startswith("oauth_") and oauth.get(name) != value:
            raise error("parameter_rejected", "OAuth parameters are accepted only in the Authorization header.")
    url = request.url()
    for params in _collections(request, header, query, body):
        candidate = SignedRequest(url, request.method)
        candidate.params = params
        candidate.signature = oauth["oauth_signature"]
        if signature.verify_hmac_sha1(candidate, *secrets_pair):
            return True
    return False


def _check_parameters(oauth: dict[str, str], required: Iterable[str], now: float) -> None:
    """The first checks of `verify`: required parameters, signature method, version, timestamp."""
    for name in REQUIRED + tuple(required):
        if not oauth.get(name):
            raise error("parameter_absent", name)
    if oauth["oauth_signature_method"] != HMAC_SHA1:
        raise error("signature_method_rejected")
    if oauth.get("oauth_version", "1.0") != "1.0":
        raise error("version_rejected")
    stamp = oauth["oauth_timestamp"]
    if not (stamp.isascii() and stamp.isdigit()) or abs(now - int(stamp)) > WINDOW:
        raise error("timestamp_refused")


def _token(ctx: Context, token_kind: str, oauth: dict[str, str]) -> tuple[Doc, str]:
    """(data, secret) of the live, unused token of `token_kind` the request names for its consumer."""
    data, used = tokens.get(token_kind, oauth["oauth_token"])
    if data is None or used or data.get("consumer") != oauth["oauth_consumer_key"]:
        raise error("token_rejected")
    return data, _secret(ctx, token_kind, oauth["oauth_token"])


@overload
def verify(
    request: Request, ctx: Context, token_kind: None = None, required: Iterable[str] = ()
) -> tuple[Doc, None, dict[str, str]]: ...


@overload
def verify(
    request: Request, ctx: Context, token_kind: str, required: Iterable[str] = ()
) -> tuple[Doc, Doc, dict[str, str]]: ...


def verify(
    request: Request, ctx: Context, token_kind: str | None = None, required: Iterable[str] = ()
) -> tuple[Doc, Doc | None, dict[str, str]]:
    """Check a signed request; returns (consumer, token data or None, oauth parameters).

    Order: parameters, signature method, version, timestamp, consumer, token, signature,
    nonce; the first failure is raised as an AuthError with its OAuth1 error code.
    """
    header = _header_params(request)
    oauth = dict(header)
    now = time.time()
    _check_parameters(oauth, required, now)
    stamp = oauth["oauth_timestamp"]
    key = oauth["oauth_consumer_key"]
    consumer = clients.by_public_id(ctx, key)
    if consumer is None or consumer.get("mode") != "1a" or clients.revoked(ctx, f"client:{key}"):
        raise error("consumer_key_unknown")
    data, token_secret = _token(ctx, token_kind, oauth) if token_kind else (None, None)
    if not _signature_ok(request, header, oauth, (clients.consumer_secret(ctx, key), token_secret)):
        raise error("signature_invalid")
    keep = max(NONCE_SECONDS, int(stamp) + WINDOW - int(now) + 1)
    if not tokens.put(NONCE_KIND, f"{key}\n{oauth['oauth_nonce']}", {"timestamp": int(stamp)}, keep, only_new=True):
        raise error("nonce_used")
    return consumer, data, oauth


def authenticate(request: Request, ctx: Context, current: Doc) -> Doc:
    """The user of an OAuth1-signed /api request, or AuthError (400/401)."""
    if current["oauthMode"] != "1a":
        raise AuthError(401, "OAuth 1a is disabled: this instance uses OAuth 2.", "access_denied", dict(CHALLENGE))
    _, data, oauth = verify(request, ctx, ACCESS_KIND, ("oauth_token",))
    user = data["user"]
    if clients.revoked_before(ctx, f"user:{user['id']}", data.get("issued")):
        raise error("token_rejected")
    ctx.client = oauth["oauth_consumer_key"]
    return dict(user, clientId=data["consumer"])


# ---- callbacks ------------------------------------------------------------------------------


def _without_query(url: str) -> str:
    """The URL without its query and fragment."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def callback_allowed(consumer: Doc, callback: str, bound: str | None = None) -> bool:
    """Whether a callback may receive the verifier: `oob`; a registered callback of the consumer
    (exactly, or with a query string the client added); without registered callbacks, any
    http(s) URL at request-token time (`bound` None) and only the bound one afterwards."""
    if callback == OOB:
        return True
    parts = urlsplit(callback)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.fragment:
        return False
    registered = consumer.get("redirectUris") or []
    if registered:
        return callback in registered or bool(parts.query and _without_query(callback) in registered)
    return bound is None or callback == bound


def with_verifier(callback: str, token: str, verifier: str) -> str:
    """The callback URL with `oauth_token` and `oauth_verifier` added to its query."""
    parts = urlsplit(callback)
    query = "&".join(filter(None, [parts.query, urlencode({"oauth_token": token, "oauth_verifier": verifier})]))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


# ---- the flow -------------------------------------------------------------------------------


def issue_request_token(request: Request, ctx: Context) -> str:
    """Step 1 (`POST /oauth/v1/request_token`): the form-encoded response body."""
    consumer, _, oauth = verify(request, ctx)
    registered = consumer.get("redirectUris") or []
    callback = oauth.get("oauth_callback") or (registered[0] if registered else OOB)
    if not callback_allowed(consumer, callback):
        raise error("parameter_rejected", "oauth_callback is not a callback registered for this consumer.")
    token = secrets.token_urlsafe(32)
    tokens.put(
        REQUEST_KIND,
        token,
        {"consumer": consumer["publicId"], "callback": callback, "expires": int(time.time()) + REQUEST_TOKEN_SECONDS},
        REQUEST_TOKEN_SECONDS,
    )
    return urlencode(
        {
            "oauth_token": token,
            "oauth_token_secret": _secret(ctx, REQUEST_KIND, token),
            "oauth_expires_in": REQUEST_TOKEN_SECONDS,
            "oauth_callback_confirmed": 1,
        }
    )


def pending_authorization(ctx: Context, token: str | None, callback: str | None = None) -> tuple[Doc, Doc, str]:
    """Step 2: (consumer, request token data, effective callback) for a request token that is
    live and not yet authorized; AuthError otherwise (401 token_rejected, 400 bad callback)."""
    data, used = tokens.get(REQUEST_KIND, token) if token else (None, False)
    if data is None or used or data.get("user"):
        raise error("token_rejected")
    consumer = clients.by_public_id(ctx, data["consumer"])
    if consumer is None or clients.revoked(ctx, f"client:{data['consumer']}"):
        raise error("consumer_key_unknown")
    if callback and not callback_allowed(consumer, callback, data["callback"]):
        raise error("parameter_rejected", "oauth_callback is not a callback registered for this consumer.")
    return consumer, data, callback or data["callback"]


def authorize(ctx: Context, token: str, data: Doc, user: Doc) -> str:
    """Step 2, after the user logged in: bind the user to the request token; returns the verifier."""
    verifier = secrets.token_urlsafe(24)
    remaining = data["expires"] - int(time.time())
    if remaining <= 0:
        raise error("token_rejected")
    public = {"id": user["id"], **{name: user.get(name) for name in USER_FIELDS}}
    tokens.put(REQUEST_KIND, token, dict(data, user=public, verifier=_digest(verifier)), remaining)
    return verifier


def issue_access_token(request: Request, ctx: Context) -> str:
    """Step 3 (`POST /oauth/v1/access_token`): the form-encoded response body."""
    consumer, data, oauth = verify(request, ctx, REQUEST_KIND, ("oauth_token", "oauth_verifier"))
    if not data.get("user") or not hmac.compare_digest(data.get("verifier", ""), _digest(oauth["oauth_verifier"])):
        raise error("token_rejected")
    if not tokens.use(REQUEST_KIND, oauth["oauth_token"]):  # one exchange per request token
        raise error("token_rejected")
    token = secrets.token_urlsafe(32)
    tokens.put(
        ACCESS_KIND,
        token,
        {"consumer": consumer["publicId"], "user": data["user"], "dateAdded": ctx.now, "issued": time.time()},
        config.active().OAUTH1_TOKEN_DAYS * 86400 or None,
    )
    return urlencode({"oauth_token": token, "oauth_token_secret": _secret(ctx, ACCESS_KIND, token)})


def deauthorize_signed(request: Request, ctx: Context) -> bool:
    """The client (for its user) gives up the access token the request is signed with."""
    require_mode(ctx)
    _, _, oauth = verify(request, ctx, ACCESS_KIND, ("oauth_token",))
    return deauthorize(ctx, oauth["oauth_token"])


def deauthorize(ctx: Context, token: str | None, user_id: int | None = None) -> bool:
    """Deauthorize an access token (of `user_id` when given); True when there was one to remove."""
    data, _ = tokens.get(ACCESS_KIND, token or "")
    if data is None or (user_id is not None and data["user"]["id"] != user_id):
        return False
    tokens.delete(ACCESS_KIND, token or "")
    return True
