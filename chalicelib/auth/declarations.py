"""Users and roles, the resources of who may call the API (Mautic's UserBundle `User` and `Role`): auth
owns them, with their hooks (`auth/people.py`) and passwords (`auth/passwords.py`); `bootstrap.assemble()`
registers them beside the domain's."""

from chalicelib.auth.people import RoleHooks, UserHooks
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import permission_catalog
from chalicelib.domain.kernel.resources import Resource, read_only
from chalicelib.domain.kernel.types import JSON

INVALID_ROLE = "This value is not valid."


def role_id(value: JSON) -> int:
    """A user's role: its id only; an object (`{"id": 2}`) or anything else is Mautic's "not valid"
    (`UserApiControllerFunctionalTest::testRoleUpdateByApiGivesErrorResponseWithInvalidRequestFormat`)."""
    if isinstance(value, (dict, list, bool)):
        raise a.Invalid(INVALID_ROLE)
    try:
        return a.as_id(value)
    except a.Invalid:
        raise a.Invalid(INVALID_ROLE) from None


USER = Resource(
    kind="user",
    prefix="users",
    singular="user",
    plural="users",
    audit="A-",
    keyed_list=False,
    permission="user:users",
    attrs=(
        a.text("username", required=True, max_length=a.ALIAS_MAX),  # Mautic's VARCHAR(191) columns (User)
        a.text("firstName", max_length=a.ALIAS_MAX),
        a.text("lastName", max_length=a.ALIAS_MAX),
        a.text("email", max_length=a.ALIAS_MAX),
        a.text("position", max_length=a.ALIAS_MAX),
        a.text("timezone"),
        a.text("locale"),
        read_only(a.datetime_("lastLogin")),
        read_only(a.datetime_("lastActive")),
        a.text("signature"),
        a.Attr("role", role_id, ref="role"),
        a.Attr("passwordHash", a.as_string, writable=False, hidden=True),
    ),
    text_columns=("username", "firstName", "lastName", "email"),
    uniques=("username",),
    commands=frozenset({"ids"}),
    summary=("id", "username", "firstName", "lastName"),
    hooks=UserHooks(),
)

ROLE = Resource(
    kind="role",
    prefix="roles",
    singular="role",
    plural="roles",
    routes="users",
    audit="A-",
    keyed_list=False,
    permission="user:roles",
    attrs=(
        a.text("name", required=True),
        a.text("description"),
        a.boolean("isAdmin"),
        a.Attr("rawPermissions", permission_catalog.canonical, default={}),
        a.Attr("permissions", a.as_object, default={}, writable=False, hidden=True),
    ),
    text_columns=("name", "description"),
    commands=frozenset({"ids"}),
    summary=("id", "name", "description", "isAdmin", "rawPermissions"),
    hooks=RoleHooks(),
)

# The resources auth declares, registered by `bootstrap.assemble()`.
RESOURCES = (USER, ROLE)
