"""Keys derived from the instance's signing key, one per purpose (HMAC-SHA256 of the purpose under
the stored `signingKey`, a random 256-bit secret, the expand step of HKDF, RFC 5869), so a value
signed for one purpose is worthless for another: OAuth2 access tokens, login-form CSRF nonces,
click links, visitor tokens."""

import hashlib
import hmac

from chalicelib.domain.kernel import cached
from chalicelib.domain.kernel.context import Context


def derived(purpose: str, ctx: Context) -> bytes:
    """The key of `purpose` (bytes)."""
    docs = cached.documents("setting", ctx)
    master = str((docs[0] if docs else {}).get("signingKey") or "").encode()
    return hmac.new(master, f"purpose:{purpose}".encode(), hashlib.sha256).digest()


def sign(purpose: str, value: str, ctx: Context) -> str:
    """A URL- and cookie-safe signature of `value` for `purpose`."""
    return hmac.new(derived(purpose, ctx), value.encode(), hashlib.sha256).hexdigest()[:32]


def signed(purpose: str, value: str, signature: object, ctx: Context) -> bool:
    """Whether `signature` is the signature of `value` for `purpose` (constant-time)."""
    return hmac.compare_digest(sign(purpose, value, ctx), str(signature or ""))
