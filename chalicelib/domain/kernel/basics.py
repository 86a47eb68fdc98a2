"""The resources every capability shares: users, tags and categories."""

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import permission_catalog
from chalicelib.domain.kernel.aliases import AliasHooks
from chalicelib.domain.kernel.people import RoleHooks, UserHooks
from chalicelib.domain.kernel.resources import Resource, read_only
from chalicelib.domain.kernel.tag_names import TagHooks
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
        a.text("username", required=True),
        a.text("firstName"),
        a.text("lastName"),
        a.text("email"),
        a.text("position"),
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

TAG = Resource(
    kind="tag",
    prefix="tags",
    singular="tag",
    plural="tags",
    routes="taxonomy",
    audit=None,
    permission="lead:leads",
    attrs=(a.text("tag", required=True), a.text("description")),
    text_columns=("tag",),
    commands=frozenset({"ids"}),
    uniques=("tag",),
    hooks=TagHooks(),
)

CATEGORY = Resource(
    kind="category",
    prefix="categories",
    singular="category",
    plural="categories",
    routes="taxonomy",
    audit="A-",
    keyed_list=False,
    permission="category:categories",
    attrs=(
        a.text("title", required=True),
        a.text("alias"),
        a.text("description"),
        a.text("color"),
        a.text("bundle", required=True),
    ),
    text_columns=("title", "alias"),
    commands=frozenset({"ids", "is:published", "is:unpublished"}),
    uniques=("alias",),
    hooks=AliasHooks("title"),
)

# The resources this capability declares, registered by `domain/wiring.py`.
RESOURCES = (USER, ROLE, TAG, CATEGORY)
