"""Who is calling: checks the API switch and the credentials of an `/api` request.

Basic credentials are verified with argon2id once, then remembered in process for a short
time (keyed by a SHA-256 of the header, never the password) so a client's steady stream of
requests does not pay the hash on each one.
"""
import base64
import binascii
import hashlib
import time

from chalicelib import config
from chalicelib.auth import passwords, users

CACHE_SECONDS = 60
_verified = {}


class AuthError(Exception):
    """The request may not proceed: status, message, error type and response headers."""

    def __init__(self, status, message, error_type="access_denied", headers=None):
        super().__init__(message)
        self.status, self.message, self.type, self.headers = status, message, error_type, headers or {}



def authenticate(headers):
    """The user document for the request's credentials, or AuthError (401/403)."""
    if not config.API_ENABLED:
        raise AuthError(403, "API disabled. You need to enable the API in the API settings of Mautic's Configuration.",
                      "api_disabled")
    header = headers.get("authorization") or ""
    if header[:6].lower() == "basic ":
        return _basic(header[6:].strip())
    if header.startswith("Bearer ") and header[7:].strip():
        raise AuthError(401, "The access token provided is invalid.", "invalid_grant")
    raise AuthError(401, "API authorization denied.", headers={"WWW-Authenticate": 'Basic realm="Mautic API"'})


def _basic(encoded):
    if not config.BASIC_AUTH_ENABLED:
        raise AuthError(403, "Basic Auth disabled. You need to enable HTTP basic auth in the API settings "
                           "of Mautic's Configuration.")
    key = hashlib.sha256(encoded.encode()).hexdigest()
    cached = _verified.get(key)
    if cached and cached[0] > time.monotonic():
        return cached[1]
    try:
        username, _, password = base64.b64decode(encoded, validate=True).decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        username = password = ""
    user = users.by_username(username) if username else None
    if user is None or not user.get("isPublished", True) or not passwords.verify(user.get("passwordHash"), password):
        raise AuthError(401, "Authorization denied, invalid credentials.")
    _verified[key] = (time.monotonic() + CACHE_SECONDS, user)
    return user

