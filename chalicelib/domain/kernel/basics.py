"""The resources every capability shares: users, tags and categories."""
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.aliases import AliasHooks
from chalicelib.domain.kernel.resources import Resource, read_only


t, dt = a.text, a.datetime_


USER = Resource(
    "user", "users", "user", "users", audit="A-", keyed_list=False,
    attrs=(t("username", required=True), t("firstName"), t("lastName"), t("email"), t("position"),
           t("timezone"), t("locale"), read_only(dt("lastLogin")), read_only(dt("lastActive")), t("signature"),
           a.Attr("passwordHash", a.as_string, writable=False, hidden=True)),
    text_columns=("username", "firstName", "lastName", "email"), uniques=("username",),
    summary=("id", "username", "firstName", "lastName"))

TAG = Resource(
    "tag", "tags", "tag", "tags", audit=None,
    attrs=(t("tag", required=True), t("description")), text_columns=("tag",), commands=frozenset({"ids"}),
    uniques=("tag",))

CATEGORY = Resource(
    "category", "categories", "category", "categories", audit="A-", keyed_list=False,
    attrs=(t("title", required=True), t("alias"), t("description"), t("color"), t("bundle", required=True)),
    text_columns=("title", "alias"), commands=frozenset({"ids", "is:published", "is:unpublished"}),
    uniques=("alias",), hooks=AliasHooks("title"))
