"""The resources every capability shares: users, tags and categories."""
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import permission_catalog
from chalicelib.domain.kernel.aliases import AliasHooks
from chalicelib.domain.kernel.people import RoleHooks, UserHooks
from chalicelib.domain.kernel.resources import Resource, read_only, ref


t, dt = a.text, a.datetime_


USER = Resource(
    "user", "users", "user", "users", audit="A-", keyed_list=False, permission="user:users",
    attrs=(t("username", required=True), t("firstName"), t("lastName"), t("email"), t("position"),
           t("timezone"), t("locale"), read_only(dt("lastLogin")), read_only(dt("lastActive")), t("signature"),
           ref("role", "role"), a.Attr("passwordHash", a.as_string, writable=False, hidden=True)),
    text_columns=("username", "firstName", "lastName", "email"), uniques=("username",),
    commands=frozenset({"ids"}), summary=("id", "username", "firstName", "lastName"), hooks=UserHooks())

ROLE = Resource(
    "role", "roles", "role", "roles", audit="A-", keyed_list=False, permission="user:roles",
    attrs=(t("name", required=True), t("description"), a.boolean("isAdmin"),
           a.Attr("rawPermissions", permission_catalog.canonical, default={}),
           a.Attr("permissions", a.as_object, default={}, writable=False, hidden=True)),
    text_columns=("name", "description"), commands=frozenset({"ids"}),
    summary=("id", "name", "description", "isAdmin", "rawPermissions"), hooks=RoleHooks())

TAG = Resource(
    "tag", "tags", "tag", "tags", audit=None, permission="lead:leads",
    attrs=(t("tag", required=True), t("description")), text_columns=("tag",), commands=frozenset({"ids"}),
    uniques=("tag",))

CATEGORY = Resource(
    "category", "categories", "category", "categories", audit="A-", keyed_list=False, permission="category:categories",
    attrs=(t("title", required=True), t("alias"), t("description"), t("color"), t("bundle", required=True)),
    text_columns=("title", "alias"), commands=frozenset({"ids", "is:published", "is:unpublished"}),
    uniques=("alias",), hooks=AliasHooks("title"))
