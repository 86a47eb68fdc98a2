"""OAuth2 access tokens: signed JWTs (HS256, a key derived from the instance signing key for them
alone, `kernel/keys.py`) checked without a read.

A token names its user, client and token family. Revoking the client or the family (refresh
token reuse, code reuse) puts it on the cached revocation list, which every request checks; so
does revoking the user (disabled, new password, `cli users revoke`), for the tokens issued
before.
"""

import secrets
import time

from chalicelib.auth import clients, settings
from chalicelib.auth.errors import AuthError
from chalicelib.domain.kernel import keys
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc

ISSUER = "mautic"
KEY_PURPOSE = "oauth2-access-token"
USER_CLAIMS = ("username", "firstName", "lastName", "role")


def issue_access_token(ctx: Context, client: Doc, user: Doc, family: str) -> tuple[str, int]:
    """A signed access token for `user` via `client`; returns (token, lifetime in seconds)."""
    import jwt  # PyJWT loads on the first OAuth2 request

    lifetime = int(settings.current(ctx)["accessTokenMinutes"]) * 60
    now = time.time()
    claims = {
        "iss": ISSUER,
        "sub": str(user["id"]),
        "cid": client["publicId"],
        "fam": family,
        "usr": {k: user.get(k) for k in USER_CLAIMS},
        "iat": int(now),
        "imu": int(now * 1_000_000),  # issued, in microseconds: a user revocation ends what it precedes
        "exp": int(now) + lifetime,
        "jti": secrets.token_urlsafe(12),
    }
    return jwt.encode(claims, keys.derived(KEY_PURPOSE, ctx), algorithm="HS256"), lifetime


def _invalid() -> AuthError:
    """The one answer for a token that is malformed, forged, revoked or of a revoked client."""
    return AuthError(401, "The access token provided is invalid.", "invalid_grant")


def _issued(claims: Doc) -> float:
    """When the token was issued (Unix seconds). Microseconds (`imu`) tell a token issued in the same
    millisecond after a revocation from one issued before it, which milliseconds (`ims`, tokens issued
    before `imu`) took for revoked; a millisecond token is read as before."""
    if "imu" in claims:
        return float(claims["imu"]) / 1_000_000
    return float(claims.get("ims", 0)) / 1000


def authenticate(token: str, ctx: Context, current: Doc) -> Doc:
    """The user an access token stands for, or AuthError (401)."""
    import jwt

    if current["oauthMode"] != "2":
        raise _invalid()
    try:
        claims = jwt.decode(
            token,
            keys.derived(KEY_PURPOSE, ctx),
            algorithms=["HS256"],
            issuer=ISSUER,
            options={"require": ["exp", "sub", "cid", "fam"]},
        )
    except jwt.ExpiredSignatureError:
        raise AuthError(401, "The access token provided has expired.", "invalid_grant") from None
    except jwt.InvalidTokenError:
        raise _invalid() from None
    if (
        clients.by_public_id(ctx, claims["cid"]) is None
        or clients.revoked(ctx, f"client:{claims['cid']}", f"family:{claims['fam']}")
        or clients.revoked_before(ctx, f"user:{claims['sub']}", _issued(claims))
    ):
        raise _invalid()
    ctx.client = claims["cid"]
    return {"id": int(claims["sub"]), **(claims.get("usr") or {}), "clientId": claims["cid"]}
