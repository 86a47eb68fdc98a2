"""What is special about users and roles: a user's password arrives as `plainPassword` and is
stored only as its argon2id hash; a role's `rawPermissions` are shown as given and checked with
the permissions they imply; a role held by users cannot be deleted; their search commands."""
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import cached, passwords, permissions, search
from chalicelib.domain.kernel.errors import ValidationError
from chalicelib.domain.kernel.resources import Hooks
from chalicelib.store import entities as store

MIN_PASSWORD = 6
PROFILE_REQUIRED = {"firstName": "First name is required.", "lastName": "Last name is required.",
                    "email": "The email entered is invalid.", "role": "A role must be chosen for this user."}


def _plain_password(value):
    """The password of a `plainPassword` ({password, confirm} or a string); a.Invalid when they
    differ or it is too short."""
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
    return password


class UserHooks(Hooks):
    """Users: `plainPassword` is hashed (required on create, never stored or shown in clear)."""

    def prepare(self, resource, doc, write):
        if write.ctx.user is not None:
            self._require_profile(doc, write)
        if "plainPassword" in write.payload and write.payload["plainPassword"] not in (None, "", {}):
            try:
                doc["passwordHash"] = passwords.hash_password(_plain_password(write.payload["plainPassword"]))
            except a.Invalid as error:
                write.errors["plainPassword"] = [str(error)]
        elif not doc.get("passwordHash"):
            write.errors["plainPassword"] = ["Password cannot be blank."]
        if doc.get("email") and "@" not in str(doc["email"]):
            write.errors["email"] = ["The email entered is invalid."]

    def taken(self, resource, field):
        return "Username is already in use. Please select another."  # Mautic's words

    @staticmethod
    def _require_profile(doc, write):
        """What Mautic's user form requires of a user written through the API (the command line
        and the first start may leave names and email empty); the username stays as it was."""
        if write.existing is not None:
            doc["username"] = write.existing.get("username")
        for name, message in PROFILE_REQUIRED.items():
            if doc.get(name) in (None, ""):
                write.errors[name] = [message]

    def command(self, resource, doc, command, ctx):
        if command.name == "is" and command.value.lower() in ("active", "inactive"):
            return bool(doc.get("isPublished", True)) == (command.value.lower() == "active")
        if command.name == "is" and command.value.lower() == "admin":
            role = _roles(ctx).get(doc.get("role"))
            return doc.get("role") is None or bool(role and role.get("isAdmin"))
        if command.name == "role":
            role = _roles(ctx).get(doc.get("role"))
            return bool(role) and (role.get("name") or "").lower() == command.value.lower()
        if command.name in ("email", "username", "position"):
            return search.like(doc.get(command.name), command.value, contains=not command.strict)
        if command.name == "name":
            full = f"{doc.get('firstName') or ''} {doc.get('lastName') or ''}".strip().lower()
            return command.value.lower().strip("%") in full
        return None


def _roles(ctx):
    return ctx.memo("roles-by-id", lambda: {r["id"]: r for r in cached.documents("role", ctx)})


class RoleHooks(Hooks):
    """Roles: what `rawPermissions` grant with what they imply (kept as `permissions`); a role held
    by users stays; `is:admin`."""

    def prepare(self, resource, doc, write):
        doc["permissions"] = {} if doc.get("isAdmin") else permissions.implied(doc.get("rawPermissions") or {})

    def before_delete(self, resource, doc, ctx):
        if any(user.get("role") == doc["id"] for user in store.iterate("user")):
            raise ValidationError({"role": ["This role is assigned to users; assign them another role first."]})

    def command(self, resource, doc, command, ctx):
        if command.name == "is" and command.value.lower() == "admin":
            return bool(doc.get("isAdmin"))
        return None
