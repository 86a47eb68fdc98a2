"""What is special about users and roles: a user's password arrives as `plainPassword` and is
stored only as its argon2id hash; a role's `rawPermissions` are shown as given and checked with
the permissions they imply; a role held by users cannot be deleted; their search commands.

No escalation: a restricted caller (not an administrator) may not make or edit an administrator
role, edit or delete an administrator, give an administrator role, change their own role, grant
a permission they do not hold (in a role's permissions or through the role a user is given), or
change the password, email or username of a user whose role grants a permission they do not hold
(they could sign in as that user); the write is Forbidden before anything is stored."""

from collections.abc import Mapping, Sequence

from chalicelib.auth import passwords
from chalicelib.domain.kernel import access, cache_keys, cached, permission_catalog, search
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.capability_hooks import Listed
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import Forbidden, ValidationError
from chalicelib.domain.kernel.resources import Write
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.store import port as store

Permissions = Mapping[str, Sequence[str]]  # {bundle:level: [permissions]}

MIN_PASSWORD = 6
WEAK_PASSWORD = (
    "Please enter a stronger password. Your password must use a combination of upper and lower case, "
    "special characters and numbers."
)  # Mautic's `mautic.user.user.password.weak`
PROFILE_REQUIRED = {
    "firstName": "First name is required.",
    "lastName": "Last name is required.",
    "email": "The email entered is invalid.",
    "role": "A role must be chosen for this user.",
}


def plain_password(value: JSON, strong: bool = False) -> str:
    """The password of a `plainPassword` ({password, confirm} or a string); a.Invalid when they
    differ, it is too short, or (`strong`) weak by `passwords.strong`."""
    if isinstance(value, dict):
        password, confirm = value.get("password"), value.get("confirm", value.get("password"))
    else:
        password = confirm = value
    if not isinstance(password, str) or not password:
        raise a.Invalid("Password cannot be blank.")
    if password != confirm:
        raise a.Invalid("Passwords do not match.")
    if len(password) < MIN_PASSWORD:
        raise a.Invalid(f"Password must be at least {MIN_PASSWORD} characters.")
    if strong and not passwords.strong(password):
        raise a.Invalid(WEAK_PASSWORD)
    return password


def _password_hash(value: JSON, strong: bool) -> str:
    """The hash to store for a `plainPassword`: a `passwords.Hashed` (the first start's administrator
    given as a hash) as it is, else the checked password hashed."""
    if isinstance(value, passwords.Hashed):
        return str(value)
    return passwords.hash_password(plain_password(value, strong=strong))


class UserHooks(Listed):
    """Users: `plainPassword` is hashed (required on create, never stored or shown in clear); one written
    through the API must be strong (Mautic's user form; the command line and the first start are not)."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """Check what a restricted caller may not do, the profile and the password (hashed)."""
        if write.ctx.user is not None:
            _guard_user(doc, write)
            self._require_profile(doc, write)
        if "plainPassword" in write.payload and write.payload["plainPassword"] not in (None, "", {}):
            try:
                doc["passwordHash"] = _password_hash(write.payload["plainPassword"], strong=write.ctx.user is not None)
            except a.Invalid as error:
                write.errors["plainPassword"] = [str(error)]
        elif not doc.get("passwordHash"):
            write.errors["plainPassword"] = ["Password cannot be blank."]
        if doc.get("email") and "@" not in str(doc["email"]):
            write.errors["email"] = ["The email entered is invalid."]

    def taken(self, field: str) -> str:
        """Mautic's message for a username in use."""
        return "Username is already in use. Please select another."  # Mautic's words

    @staticmethod
    def _require_profile(doc: Doc, write: Write) -> None:
        """What Mautic's user form requires of a user written through the API (the command line
        and the first start may leave names and email empty); the username stays as it was."""
        if write.existing is not None:
            doc["username"] = write.existing.get("username")
        for name, message in PROFILE_REQUIRED.items():
            if doc.get(name) in (None, ""):
                write.errors[name] = [message]

    def command(self, doc: Doc, command: search.Command, ctx: Context) -> bool | None:
        """`is:active|inactive|admin`, `role:`, `email:`, `username:`, `position:`, `name:`."""
        if command.name == "is" and command.value.lower() in ("active", "inactive"):
            return bool(doc.get("isPublished", True)) == (command.value.lower() == "active")
        if command.name == "is" and command.value.lower() == "admin":
            return administrator(doc, ctx)
        if command.name == "role":
            role = _roles(ctx).get(doc.get("role"))
            return role is not None and bool(role) and (role.get("name") or "").lower() == command.value.lower()
        if command.name in ("email", "username", "position"):
            return search.like(doc.get(command.name), command.value, contains=not command.strict)
        if command.name == "name":
            full = f"{doc.get('firstName') or ''} {doc.get('lastName') or ''}".strip().lower()
            return command.value.lower().strip("%") in full
        return None

    def before_delete(self, doc: Doc, ctx: Context) -> None:
        """Only an unrestricted caller deletes an administrator."""
        if not access.unrestricted(ctx) and administrator(doc, ctx):
            raise Forbidden()


def _roles(ctx: Context) -> dict[JSON, Doc]:
    """{id: role} of every role, once per request."""
    return ctx.memo(cache_keys.ROLES_BY_ID, lambda: {r["id"]: r for r in cached.documents("role", ctx)})


def administrator(user: Doc, ctx: Context) -> bool:
    """True for a user whose role `isAdmin`, or who has none (stored before roles existed)."""
    role = _roles(ctx).get(user.get("role"))
    return user.get("role") is None or bool(role and role.get("isAdmin"))


def _guard_user(doc: Doc, write: Write) -> None:
    """Forbidden when a restricted caller edits an administrator, changes their own role, or gives a
    role that is an administrator's or grants more than they hold."""
    ctx, existing = write.ctx, write.existing
    if access.unrestricted(ctx):
        return
    if existing is not None and administrator(existing, ctx):
        raise Forbidden()
    if existing is not None and _credentials_changed(doc, write) and not _holds_all_of(ctx, existing):
        raise Forbidden()
    if existing is not None and existing.get("role") == doc.get("role"):
        return
    if existing is not None and existing["id"] == ctx.user_id:
        raise Forbidden()
    role = _roles(ctx).get(doc.get("role"))
    if role is not None and (role.get("isAdmin") or not _grantable(ctx, role.get("permissions") or {})):
        raise Forbidden()


CREDENTIALS = ("email", "username")  # with the password: what signs a user in or resets their password


def _credentials_changed(doc: Doc, write: Write) -> bool:
    """True when the write sets a password or changes the email or username of the existing user."""
    existing = write.existing or {}
    if write.payload.get("plainPassword") not in (None, "", {}):
        return True
    return any(doc.get(name) != existing.get(name) for name in CREDENTIALS)


def _holds_all_of(ctx: Context, user: Doc) -> bool:
    """True when the caller holds every permission the user's role grants, as for giving that role."""
    role = _roles(ctx).get(user.get("role")) or {}
    return not role.get("isAdmin") and _grantable(ctx, role.get("permissions") or {})


def _grantable(ctx: Context, granted: Permissions, before: Permissions | None = None) -> bool:
    """True when the caller holds every permission of `granted` ({level: [permissions]}) that `before`
    did not grant already (`full`: every permission of the level)."""
    before = before or {}
    return all(
        _holds(ctx, level, permission)
        for level, held in granted.items()
        for permission in held
        if permission not in (before.get(level) or ())
    )


def _holds(ctx: Context, level: str, permission: str) -> bool:
    """True when the caller holds `permission` of `level` (`full`: every other one of the level)."""
    if access.has(ctx, f"{level}:{permission}"):
        return True
    others = [p for p in permission_catalog.CATALOG[level] if p != "full"]
    return permission == "full" and bool(others) and all(access.has(ctx, f"{level}:{p}") for p in others)


class RoleHooks(Listed):
    """Roles: what `rawPermissions` grant with what they imply (kept as `permissions`); a role held
    by users stays; `is:admin`."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """Keep what `rawPermissions` imply as `permissions`; refuse an escalation."""
        doc["permissions"] = {} if doc.get("isAdmin") else permission_catalog.implied(doc.get("rawPermissions") or {})
        _guard_role(doc, write)

    def before_delete(self, doc: Doc, ctx: Context) -> None:
        """Only an unrestricted caller deletes an administrator role; a role users hold stays."""
        if not access.unrestricted(ctx) and doc.get("isAdmin"):
            raise Forbidden()
        if any(user.get("role") == doc["id"] for user in store.iterate("user")):
            raise ValidationError({"role": ["This role is assigned to users; assign them another role first."]})

    def command(self, doc: Doc, command: search.Command, ctx: Context) -> bool | None:
        """`is:admin`."""
        if command.name == "is" and command.value.lower() == "admin":
            return bool(doc.get("isAdmin"))
        return None


def _guard_role(doc: Doc, write: Write) -> None:
    """Forbidden when a restricted caller writes an administrator role (or makes one) or adds to a
    role a permission they do not hold; what the role granted before may stay."""
    ctx, existing = write.ctx, write.existing or {}
    if access.unrestricted(ctx):
        return
    if (
        doc.get("isAdmin")
        or existing.get("isAdmin")
        or not _grantable(ctx, doc["permissions"], existing.get("permissions"))
    ):
        raise Forbidden()
