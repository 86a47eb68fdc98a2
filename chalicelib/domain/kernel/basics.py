"""The resources every capability shares: tags and categories (users and roles are auth's:
`auth/declarations.py`)."""

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.aliases import AliasHooks
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.tag_names import TagHooks

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
RESOURCES = (TAG, CATEGORY)
