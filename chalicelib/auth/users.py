"""Users: the API's owners, who authenticate with their username and password."""

import time
from collections.abc import Iterable

from chalicelib import config
from chalicelib.auth import clients, passwords, settings
from chalicelib.auth.declarations import ROLE, USER
from chalicelib.auth.errors import AuthError
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import cached
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.types import Doc
from chalicelib.ports import window_counters
from chalicelib.store import port as store


def create_user(
    username: str,
    password: str,
    first_name: str | None = None,
    last_name: str | None = None,
    email: str | None = None,
    role: Doc | None = None,
) -> Doc:
    """Store a new administrator with an argon2id password hash; returns the user document."""
    from chalicelib.domain.kernel import service  # writes only: the request authorizer reads users

    ctx = Context()
    payload = {
        "username": username,
        "firstName": first_name,
        "lastName": last_name,
        "email": email,
        "plainPassword": password,
        "role": (role or administrator_role(ctx))["id"],
    }
    doc, _ = service.create(USER, payload, ctx)
    return doc


def administrator_role(ctx: Context) -> Doc:
    """The first role with `isAdmin`, created ("Administrator") when there is none."""
    from chalicelib.domain.kernel import service  # writes only: the request authorizer reads users

    found = next((role for role in cached.documents(ROLE.kind, ctx) if role.get("isAdmin")), None)
    if found is None:
        found, _ = service.create(
            ROLE, {"name": "Administrator", "description": "Full system access", "isAdmin": True}, ctx
        )
    return found


def role_named(name_or_id: str, ctx: Context) -> Doc | None:
    """The role of that id or name (case-insensitive), or None. `administrator` names the
    administrator role even before one exists (then it is created, as on a first start)."""
    roles = cached.documents(ROLE.kind, ctx)
    wanted = name_or_id.strip().casefold()
    found = next((r for r in roles if str(r["id"]) == wanted or str(r.get("name", "")).casefold() == wanted), None)
    if found is None and wanted == "administrator":
        return administrator_role(ctx)
    return found


def by_username(username: str) -> Doc | None:
    """The user document for a username (case-insensitive), or None. Two GetItems; none for a name
    longer than a username may be (a key that long is refused by DynamoDB)."""
    if len(username.strip()) > a.ALIAS_MAX:
        return None
    user_id = store.lookup(USER.kind, "username", username)
    return store.get(USER.kind, user_id) if user_id is not None else None


def change(username: str, ctx: Context, enabled: bool | None = None, password: str | None = None) -> Doc | None:
    """Enable or disable a user, or set a new password (argon2id). Disabling and a new password
    revoke the tokens issued to the user before. Returns the user document, or None."""
    from chalicelib.domain.kernel import service  # writes only: the request authorizer reads users

    user = by_username(username)
    if user is None:
        return None

    def build(doc: Doc) -> list[Doc]:
        if enabled is not None:
            doc["isPublished"] = enabled
        if password is not None:
            doc["passwordHash"] = passwords.hash_password(password)
        return []

    doc = service.update(USER, user, {}, ctx, build)
    if enabled is False or password is not None:
        revoke_tokens(doc, ctx)
    return doc


def revoke_tokens(user: Doc, ctx: Context) -> None:
    """Make every token issued to the user until now fail (OAuth2 access and refresh, OAuth1)."""
    current = settings.current(ctx)
    lifetimes = [
        int(current["refreshTokenDays"]) * 86400,
        int(current["accessTokenMinutes"]) * 60,
        config.active().OAUTH1_TOKEN_DAYS * 86400,
    ]
    clients.revoke_subject(ctx, f"user:{user['id']}", seconds=None if 0 in lifetimes else max(lifetimes))


def active() -> list[Doc]:
    """Published users in id order (one Query)."""
    return [u for u in store.iterate(USER.kind) if u.get("isPublished", True)]


def count() -> int:
    """How many users there are (the counter item, not a read of them)."""
    return store.count(USER.kind)


def _throttled(counters: Iterable[tuple[str, int]]) -> None:
    """AuthError 429 when a (username, address) pair or an address has failed too often in the
    current window."""
    for name, allowed in counters:
        failed, wait = window_counters.counted(name, config.active().SIGN_IN_WINDOW)
        if failed >= allowed:
            raise AuthError(
                429,
                f"Too many failed sign-in attempts. Try again in {wait} seconds.",
                "too_many_attempts",
                {"Retry-After": str(wait)},
            )


def _slowed(counter: str) -> None:
    """Wait SIGN_IN_DELAY seconds when the username failed SIGN_IN_FAILURES_PER_USER times in the
    window from any addresses: guessing from many addresses slows down, and the owner, wherever
    they sign in from, waits a moment instead of being refused."""
    failed, _ = window_counters.counted(counter, config.active().SIGN_IN_WINDOW)
    if failed >= config.active().SIGN_IN_FAILURES_PER_USER:
        time.sleep(config.active().SIGN_IN_DELAY)


def _counted(username: str) -> str:
    """The name failures are counted under: trimmed, lower case, and cut one past the longest
    username (every longer name is wrong alike, and a counter's key stays within DynamoDB's)."""
    return username.strip().lower()[: a.ALIAS_MAX + 1]


def _locks(name: str, source: str | None) -> list[tuple[str, int]]:
    """The failure counters that lock a sign-in out, with their allowances: the (username, address)
    pair's, and the address's when it is known."""
    locks = [(f"user-address:{source or '-'}/{name}", config.active().SIGN_IN_FAILURES_PER_USER_ADDRESS)]
    if source:
        locks.append((f"address:{source}", config.active().SIGN_IN_FAILURES_PER_ADDRESS))
    return locks


def refuse_locked(username: str, source: str | None) -> None:
    """AuthError 429 while the username at this address is locked out: checked before credentials
    remembered as verified are accepted, so a lockout answers the same for a right password."""
    _throttled(_locks(_counted(username), source))


def check_password(username: str, password: str, source: str | None = None) -> Doc | None:
    """The published user with these credentials, or None (argon2id verification; as slow for an
    unknown username). Failures count per (username, source address), per address and per
    username: past the allowance of the first two the attempt is refused with AuthError 429
    before any password is checked; past the username's it is only slowed (`_slowed`)."""
    name = _counted(username)
    locks = _locks(name, source)
    _throttled(locks)
    _slowed(f"user:{name}")
    user = by_username(username) if username else None
    if user is None or not user.get("isPublished", True):
        passwords.verify_nobody(password)
        user = None
    elif not passwords.verify(user.get("passwordHash"), password):
        user = None
    if user is None:
        for counter in [counter for counter, _ in locks] + [f"user:{name}"]:
            window_counters.count(counter, config.active().SIGN_IN_WINDOW)
    return user


def edit_user(user_id: int | str, payload: Doc, ctx: Context, replace: bool) -> tuple[Doc, bool]:
    """PATCH or PUT a user through the API (service.edit); a user disabled, given a new password or
    another role loses the tokens issued before (they carry the role). Returns (document, created)."""
    from chalicelib.domain.kernel import service  # writes only: the request authorizer reads users

    try:
        before = service.load(USER, user_id, ctx)  # remembered: the edit does not read it again
    except NotFound:
        before = None
    doc, created = service.edit(USER, user_id, payload, ctx, replace)
    if before is not None and (
        before.get("passwordHash") != doc.get("passwordHash")
        or before.get("role") != doc.get("role")
        or before.get("isPublished", True)
        and not doc.get("isPublished", True)
    ):
        revoke_tokens(doc, ctx)
    return doc, created


def delete_user(user_id: int | str, ctx: Context) -> Doc:
    """Delete a user and revoke every token issued to them. Returns the document as it was."""
    from chalicelib.domain.kernel import service  # writes only: the request authorizer reads users

    doc = service.delete(USER, user_id, ctx)
    revoke_tokens(doc, ctx)
    return doc
