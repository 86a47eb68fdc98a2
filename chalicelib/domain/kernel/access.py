"""Who may do what: the caller's role against the permission a resource declares.

The system (workers, public endpoints, the command line) acts without a user and may do
everything; so do administrators: users whose role `isAdmin` (the command line and the first start
give theirs the administrator role), and users stored before roles existed, who have none.
Everyone else holds the permissions of their role.
For a level with own/other permissions, a document is the caller's own when its permission user
(the contact's or company's owner, else whoever created it) is the caller.
"""

from collections.abc import Iterable, Iterator, Sequence
from enum import Enum, StrEnum
from typing import Final, Literal

from chalicelib.domain.kernel import cache_keys, cached, capability_hooks, permission_catalog
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import Forbidden, invalid
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.store import port as store


class _Any(Enum):
    """The type of `ANY` (a one-member enum, so a check `owner is ANY` narrows it away)."""

    ANY = "any"


ANY: Final = _Any.ANY  # no document: any of the own/other variants will do
PUBLISH_KEYS = ("isPublished", "publishUp", "publishDown")
NO_ROLE = -1  # the id of no role: a caller holding it is granted nothing


class Action(StrEnum):
    """What a caller does to a document: the permission names of a level are these, with `own` or
    `other` appended on an extended level (`viewown`); a StrEnum, so an action is its name where
    it is formatted or compared as a string."""

    VIEW = "view"
    EDIT = "edit"
    CREATE = "create"
    DELETE = "delete"
    PUBLISH = "publish"


def role(ctx: Context) -> Doc | None:
    """The caller's role document ({} for a role, or a user, that no longer exists), or None without one."""
    return _role_of(ctx.user, ctx)


def _role_of(user: Doc | None, ctx: Context) -> Doc | None:
    """The role document of `user` ({} for one that no longer exists), or None without one."""
    if user is None:
        return None
    role_id = user["role"] if "role" in user else _stored_role_id(user, ctx)
    if not role_id:
        return None
    return ctx.memo(
        cache_keys.role(role_id), lambda: next((r for r in cached.documents("role", ctx) if r["id"] == role_id), {})
    )


def _stored_role_id(user: Doc, ctx: Context) -> JSON:
    """The role of a caller whose credentials do not carry it (tokens issued before roles): read
    from the stored user, never assumed; a user that no longer exists holds NO_ROLE (fail closed)."""
    return ctx.memo(
        cache_keys.user_role(user["id"]), lambda: (store.get("user", int(user["id"])) or {"role": NO_ROLE}).get("role")
    )


def unrestricted(ctx: Context) -> bool:
    """True for the system and administrators."""
    if ctx.user is None:
        return True
    held = role(ctx)
    return held is None or bool(held.get("isAdmin"))


def has(ctx: Context, name: str) -> bool:
    """True when the caller holds `name` (`bundle:level:permission`)."""
    if unrestricted(ctx):
        return True
    held = role(ctx) or {}  # a restricted caller has a role
    return permission_catalog.granted(held.get("permissions") or {}, name)


def may(ctx: Context, level: str | None, action: Action, owner: int | None | Literal[_Any.ANY] = ANY) -> bool:
    """True when the caller may `action` (an `Action`: view, edit, create, delete, publish) at `level`
    (`bundle:level`) on a document whose permission user is `owner` (ANY: on some document).
    No level declared grants nothing to a restricted caller (fail closed)."""
    if unrestricted(ctx):
        return True
    if level is None:
        return False
    if action == Action.CREATE or not permission_catalog.extended(level):
        return has(ctx, f"{level}:{action}")
    if owner is ANY:
        return has(ctx, f"{level}:{action}own") or has(ctx, f"{level}:{action}other")
    return has(ctx, f"{level}:{action}{'own' if owner == ctx.user_id else 'other'}")


def owner_of(resource: Resource, doc: Doc, ctx: Context) -> JSON:
    """The permission user of a document of `resource`."""
    return resource.hooks.permission_user(doc, ctx)


def shared(resource: Resource) -> bool:
    """True for documents nobody owns (tags, addresses: no creator, not a contact's): Mautic checks
    the level's plain permission on them, any of its own/other variants."""
    return not resource.audit and resource.hooks.owner_indexed


def allowed(ctx: Context, resource: Resource, action: Action, doc: Doc | None = None) -> bool:
    """True when the caller may `action` on `doc` of `resource` (None: on some document of it)."""
    if unrestricted(ctx):
        return True
    owner = ANY if doc is None or shared(resource) else owner_of(resource, doc, ctx)
    if action == Action.VIEW and doc is not None and capability_hooks.seen_by_viewers(resource, doc):
        owner = ANY
    return may(ctx, resource.permission, action, owner)


def depends_on_owner(ctx: Context, resource: Resource, action: Action) -> bool:
    """True when the caller's right to `action` on a document of `resource` depends on whose it is
    (the role grants the `own` variant or the `other` one, not both)."""
    level = resource.permission
    if (
        level is None
        or unrestricted(ctx)
        or action == Action.CREATE
        or not permission_catalog.extended(level)
        or shared(resource)
    ):
        return False
    return has(ctx, f"{level}:{action}own") != has(ctx, f"{level}:{action}other")


def require(ctx: Context, resource: Resource, action: Action, doc: Doc | None = None) -> None:
    """Forbidden (403) unless `allowed`."""
    if not allowed(ctx, resource, action, doc):
        raise Forbidden()


def require_keeps(ctx: Context, resource: Resource, doc: Doc, existing: Doc | None = None) -> None:
    """Forbidden (403) when a write hands the document to another permission user (an owner given
    or changed, a note moved to another contact) the caller may not edit documents of: the result
    must be one the caller may edit whenever its owner is not what it was (the caller, for a new
    document)."""
    if resource.permission is None or unrestricted(ctx):
        return
    before = ctx.user_id if existing is None else owner_of(resource, existing, ctx)
    result = {**doc, "createdBy": ctx.user_id} if existing is None else doc  # as `_stamp` will create it
    if owner_of(resource, result, ctx) != before:
        require(ctx, resource, Action.EDIT, result)


def require_merge(ctx: Context, resource: Resource, winner: Doc, loser: Doc) -> None:
    """Forbidden (403) unless the caller may edit both documents a merge joins and delete the one
    that goes, whichever path found the second (an edit's unique value, a create's duplicate)."""
    require(ctx, resource, Action.EDIT, winner)
    require(ctx, resource, Action.EDIT, loser)
    require(ctx, resource, Action.DELETE, loser)


def require_any(ctx: Context, names: Iterable[str]) -> None:
    """Forbidden (403) unless the caller holds one of `names`."""
    if not any(has(ctx, name) for name in names):
        raise Forbidden()


def checked(user: Doc | None, names: Sequence[str], ctx: Context) -> dict[str, bool]:
    """{name: granted} of the `bundle:level:permission` names for `user` (an administrator is
    granted every name, as in Mautic); ValidationError on `permissions` for an unknown name."""
    held = _role_of(user, ctx)
    if held is None or held.get("isAdmin"):
        return dict.fromkeys(names, True)
    unknown = [name for name in names if not permission_catalog.known(name)]
    if unknown:
        raise invalid("permissions", f"{', '.join(unknown)}: not a bundle:level:permission of this service.")
    return {name: permission_catalog.granted(held.get("permissions") or {}, name) for name in names}


def visible_owner(ctx: Context, resource: Resource) -> int | None:
    """None when the caller may see every document of `resource`; the caller's id when only their
    own (Mautic's forced filter without `viewother`); Forbidden when none."""
    if unrestricted(ctx):
        return None
    require(ctx, resource, Action.VIEW)
    level = resource.permission
    if not permission_catalog.extended(level) or shared(resource) or has(ctx, f"{level}:viewother"):
        return None
    return ctx.user_id


def publishing(ctx: Context, resource: Resource, payload: Doc, existing: Doc | None) -> tuple[Doc, Doc]:
    """(payload, values to force): without the publishing keys when the caller may not publish
    (Mautic drops them silently); a new document is then created unpublished, an edited one
    keeps its publishing values."""
    level = resource.permission
    if not resource.audit or level is None or unrestricted(ctx) or not permission_catalog.offers(level, Action.PUBLISH):
        return payload, {}
    owner = ctx.user_id if existing is None else owner_of(resource, existing, ctx)
    if may(ctx, level, Action.PUBLISH, owner):
        return payload, {}
    kept = {key: value for key, value in payload.items() if key not in PUBLISH_KEYS}
    if existing is None:
        return kept, {"isPublished": False}
    return kept, {key: existing[key] for key in PUBLISH_KEYS if key in existing}


def owner_indexed(resource: Resource) -> bool:
    """True when documents of `resource` are indexed by their permission user (own/other levels)."""
    return (
        bool(resource.permission)
        and permission_catalog.extended(resource.permission)
        and resource.hooks.owner_indexed
        and not shared(resource)
    )


def _feed_of(resource: Resource, user_id: JSON) -> str:
    """The name of the feed of `user_id`'s documents of `resource`."""
    return f"owned#{resource.kind}#{int(user_id)}"


def owner_feed(resource: Resource, doc: Doc, ctx: Context) -> str | None:
    """The feed (store's FeedIndex) listing the documents of `resource` whose permission user is
    `doc`'s, or None (no such user, or a resource not indexed so)."""
    if not owner_indexed(resource):
        return None
    owner = owner_of(resource, doc, ctx)
    return _feed_of(resource, owner) if owner else None


def index_owner(resource: Resource, doc: Doc, ctx: Context) -> None:
    """Name the document's owner feed on it before it is stored (the item's feed attribute)."""
    feed = owner_feed(resource, doc, ctx)
    if feed:
        doc[store.FEED] = feed
    elif owner_indexed(resource):
        doc.pop(store.FEED, None)


def own_documents(resource: Resource, user_id: JSON, descending: bool) -> list[Doc]:
    """The documents of `resource` whose permission user is `user_id`, in id order: a Query of their
    feed and a BatchGetItem per 100 (O(their number), not the kind's)."""
    return list(store.feed(_feed_of(resource, user_id), descending=descending))


def reindex_owners(resources: Iterable[Resource]) -> int:
    """Put every stored document of `resources` in its owner feed (documents stored before the feed
    existed); returns how many moved. One Query per 1 MB of each kind, one UpdateItem per move."""
    moved = 0
    for resource in filter(owner_indexed, resources):
        ctx = Context()
        for doc in store.iterate(resource.kind):
            feed = owner_feed(resource, doc, ctx)
            if feed != doc.get(store.FEED):
                store.set_feed(resource.kind, doc["id"], feed)
                moved += 1
    return moved


def visible_documents(ctx: Context, resource: Resource, descending: bool = False) -> Iterator[Doc]:
    """The documents of `resource` the caller may view, lazily in id order: every one, or only their
    own (their owner feed: a Query and a BatchGetItem per 100, however many others there are);
    Forbidden (at once) without view."""
    owner = visible_owner(ctx, resource)
    if owner is None:
        return store.iterate(resource.kind, descending=descending)
    if owner_indexed(resource):
        return store.feed(_feed_of(resource, owner), descending=descending)
    return (doc for doc in store.iterate(resource.kind, descending=descending) if owner_of(resource, doc, ctx) == owner)


def viewable(ctx: Context, resource: Resource, doc: Doc | None) -> bool:
    """True when the caller may view `doc` of `resource`; a document that no longer exists (None) is
    nobody's, so only callers who see every document see what refers to it."""
    if doc is None:
        return visible_owner(ctx, resource) is None
    return allowed(ctx, resource, Action.VIEW, doc)
