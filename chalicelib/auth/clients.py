"""API credentials: OAuth2 clients and OAuth1a consumers, and the revocation list.

A client's public id is `<id>_<random>` (Mautic's format). OAuth2 secrets are random and kept
only as a SHA-256 hash. An OAuth1a consumer secret must be known to check HMAC signatures, so
it is never stored: it is derived from the instance signing key and the consumer key.
Revoking a client or a token family adds a revocation entry; both lists are cached kinds, so
every container sees a revocation on its next request without a read per token.
"""

import hashlib
import hmac
import secrets
import time
from collections.abc import Iterable
from datetime import timedelta
from urllib.parse import urlsplit

from chalicelib.auth import settings
from chalicelib.domain.kernel import cache_keys, cached, clock
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.store import port as store

KIND = "apiclient"
REVOCATIONS = "revocation"


def _hash(secret: str) -> str:
    """The SHA-256 hex digest kept in place of a secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


def consumer_secret(ctx: Context, public_id: str) -> str:
    """The OAuth1a consumer secret of a consumer key (derived, never stored)."""
    key = settings.signing_key(ctx).encode()
    return hmac.new(key, f"consumer:{public_id}".encode(), hashlib.sha256).hexdigest()


GRANTS = ("authorization_code", "refresh_token", "client_credentials")
DEFAULT_GRANTS = ("authorization_code", "refresh_token")


def create(
    ctx: Context,
    name: str,
    redirect_uris: Iterable[str] = (),
    mode: str = "2",
    creator_id: int | None = None,
    grants: Iterable[str] = DEFAULT_GRANTS,
    user_id: int | None = None,
) -> tuple[Doc, str]:
    """A new client; returns (client document, secret). The secret is shown only here. An OAuth2
    client may use only its `grants`; `client_credentials` needs `user_id`, the user its tokens act as."""
    if "client_credentials" in grants and user_id is None:
        raise ValueError("a client with the client_credentials grant needs the user its tokens act as")
    if mode == "2":
        for uri in redirect_uris:
            _check_redirect_uri(uri)
    entity_id = store.allocate_ids(KIND)[0]
    public_id = f"{entity_id}_{secrets.token_urlsafe(24)}"
    doc = {
        "id": entity_id,
        "name": name,
        "publicId": public_id,
        "redirectUris": list(redirect_uris),
        "mode": mode,
        "revoked": False,
        "createdBy": creator_id,
        "dateAdded": ctx.now,
        "grants": list(grants),
        "userId": user_id,
    }
    secret = consumer_secret(ctx, public_id) if mode == "1a" else secrets.token_urlsafe(32)
    if mode == "2":
        doc["secretHash"] = _hash(secret)
    store.create(KIND, doc, {"publicId": public_id}, versioned=True)
    return doc, secret


def _check_redirect_uri(uri: str) -> None:
    """An OAuth2 redirect URI is https, or http on a loopback host, without a fragment (RFC 9700
    2.1, 4.1.3); ValueError otherwise."""
    parts = urlsplit(uri)
    loopback = parts.hostname in ("localhost", "127.0.0.1", "::1")
    if parts.fragment or not parts.hostname or not (parts.scheme == "https" or (parts.scheme == "http" and loopback)):
        raise ValueError(f"redirect URI {uri!r} must be https (or http on a loopback host) without a fragment")


def all_clients(ctx: Context) -> list[Doc]:
    """Every client, revoked ones included, from the in-process cache of the kind."""
    return cached.documents(KIND, ctx)


def by_public_id(ctx: Context, public_id: str) -> Doc | None:
    """The live (not revoked) client with this public id, or None."""
    return next((c for c in all_clients(ctx) if c["publicId"] == public_id and not c.get("revoked")), None)


def verify_secret(client: Doc, secret: str | None) -> bool:
    """Constant-time check of an OAuth2 client secret."""
    return bool(client.get("secretHash")) and hmac.compare_digest(client["secretHash"], _hash(secret or ""))


def revoke(ctx: Context, entity_id: int | str) -> Doc | None:
    """Revoke a client: its tokens stop working on every container's next request."""
    doc = store.get(KIND, entity_id)
    if doc is None:
        return None
    doc["revoked"] = True
    store.replace(KIND, doc, versioned=True)
    revoke_subject(ctx, f"client:{doc['publicId']}")
    return doc


def revoke_subject(ctx: Context, subject: str, seconds: int | None = None) -> None:
    """Add `client:<public id>`, `family:<id>` or `user:<id>` to the revocation list, for good or,
    with `seconds`, until everything it could cover has expired. Expired entries are dropped."""
    until = clock.iso(clock.now() + timedelta(seconds=seconds)) if seconds else None
    for old in cached.documents(REVOCATIONS, ctx):
        if old.get("until") and old["until"] <= ctx.now:
            store.delete(REVOCATIONS, old["id"], versioned=True)
    entity_id = store.allocate_ids(REVOCATIONS)[0]
    store.create(
        REVOCATIONS,
        {"id": entity_id, "subject": subject, "dateAdded": ctx.now, "at": time.time(), "until": until},
        versioned=True,
    )


def _latest_revocations(ctx: Context) -> dict[str, float]:
    """{subject: when it was last revoked (Unix seconds)} of the revocations in force."""
    latest: dict[str, float] = {}
    for revocation in cached.documents(REVOCATIONS, ctx):
        if not revocation.get("until") or revocation["until"] > ctx.now:
            latest[revocation["subject"]] = max(latest.get(revocation["subject"], 0), revocation.get("at", 0))
    return latest


def revoked(ctx: Context, *subjects: str) -> bool:
    """True when any of the subjects is revoked."""
    listed = ctx.memo(cache_keys.REVOKED_SUBJECTS, lambda: _latest_revocations(ctx))
    return any(subject in listed for subject in subjects)


def revocations_version(ctx: Context) -> int:
    """The write version of the revocation list as this request sees it (no read of its own)."""
    return cached.version(REVOCATIONS, ctx)


def revoked_before(ctx: Context, subject: str, issued: float | None) -> bool:
    """True when `subject` was revoked at or after `issued` (Unix seconds; None: long ago): what a
    user revocation does to the tokens issued before it."""
    revoked_at = ctx.memo(cache_keys.REVOKED_SUBJECTS, lambda: _latest_revocations(ctx)).get(subject)
    return revoked_at is not None and (issued or 0) <= revoked_at


def public(client: Doc) -> Doc:
    """What `clients list` shows: never a secret or its hash."""
    return {
        "id": client["id"],
        "name": client["name"],
        "clientId": client["publicId"],
        "mode": client["mode"],
        "redirectUris": client.get("redirectUris") or [],
        "revoked": client.get("revoked", False),
        "grants": grants(client),
        "userId": client.get("userId"),
        "dateAdded": client.get("dateAdded"),
    }


def grants(client: Doc) -> list[str]:
    """The OAuth2 grants a client may use (clients stored before grants existed: the default ones)."""
    return list(client.get("grants") or DEFAULT_GRANTS)
