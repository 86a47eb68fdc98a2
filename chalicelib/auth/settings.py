"""API settings an administrator controls, and the instance's signing key.

One document (kind `setting`, id 1), cached in process and re-checked by version on every
request. The environment gives the initial values (`API_ENABLED`, `BASIC_AUTH_ENABLED`: on in
the local stage, off elsewhere); what an administrator sets is stored and wins.
"""

import secrets

from chalicelib import config
from chalicelib.domain.kernel import cached
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.store import port as store

KIND = "setting"
PUBLIC = ("apiEnabled", "basicAuthEnabled", "oauthMode", "accessTokenMinutes", "refreshTokenDays")


_ensured: list[bool] = []


def defaults() -> Doc:
    """The settings before an administrator changed any: from the environment."""
    return {
        "apiEnabled": config.active().API_ENABLED,
        "basicAuthEnabled": config.active().BASIC_AUTH_ENABLED,
        "oauthMode": "2",
        "accessTokenMinutes": 60,
        "refreshTokenDays": 14,
    }


def ensure() -> None:
    """Create the settings document with a fresh signing key on the first start."""
    if store.get(KIND, 1) is None:
        try:
            store.create(KIND, {"id": 1, **defaults(), "signingKey": secrets.token_urlsafe(48)}, versioned=True)
        except store.Conflict:
            pass  # a concurrent first start created it


def ensure_once() -> None:
    """`ensure`, once per process: what the request authorizer needs of the first start (the other
    seeds, fields and reports, are the API function's, `bootstrap.ensure_ready`)."""
    if not _ensured:
        ensure()
        _ensured.append(True)


def _document(ctx: Context) -> Doc:
    docs = cached.documents(KIND, ctx)
    if docs:
        return docs[0]
    ensure()
    doc = store.get(KIND, 1)
    assert doc is not None  # ensure() created it, or a concurrent first start did
    return doc


def current(ctx: Context) -> Doc:
    """The public settings (no secrets)."""
    doc = _document(ctx)
    return {name: doc.get(name, defaults()[name]) for name in PUBLIC}


def version(ctx: Context) -> int:
    """The write version of the settings as this request sees them (no read of its own)."""
    return cached.version(KIND, ctx)


def signing_key(ctx: Context) -> str:
    """The instance's master secret: the keys of access tokens, login forms, click links and visitor
    tokens derive from it (`kernel/keys.py`); OAuth1 consumer and token secrets are HMACs of it."""
    return _document(ctx)["signingKey"]


def update(ctx: Context, changes: Doc) -> Doc:
    """Store changed settings; returns the public settings."""
    unknown = set(changes) - set(PUBLIC)
    if unknown:
        raise ValueError(f"unknown settings: {', '.join(sorted(unknown))}")
    if changes.get("oauthMode", "2") not in ("2", "1a"):
        raise ValueError("oauthMode must be 2 or 1a")
    doc = dict(_document(ctx), **changes)
    store.replace(KIND, doc, versioned=True)
    return {name: doc.get(name) for name in PUBLIC}
