"""The keys of the request cache (`Context.cache`, `Context.memo`), each defined once: what an
entry holds and who reads it are found here, and two modules that share an entry cannot spell it
differently (nor two that do not share one collide)."""

from collections.abc import Hashable
from typing import NamedTuple

from chalicelib.domain.kernel.types import JSON


class CacheKey(NamedTuple):
    """An entry of the request cache: what it holds (`space`), of what (`of`; None for one entry)."""

    space: str
    of: Hashable = None


# One entry per request.
NOW_DATETIME = CacheKey("now-datetime")  # ctx.now as a datetime (segments, journeys)
VERSIONS = CacheKey("versions")  # the versions of the cached kinds (kernel/cached.py)
ROLES_BY_ID = CacheKey("roles-by-id")  # {id: role} (auth/people.py)
CATEGORY_ALIASES = CacheKey("category-aliases")  # {category id: alias} (kernel/listing.py)
REVOKED_SUBJECTS = CacheKey("revoked-subjects")  # the latest revocations (auth/clients.py)
TAG_IDS = CacheKey("tag-ids")  # {tag name: id} (contacts)
TRIGGER_COLORS = CacheKey("trigger-colors")  # [(points, colour)] of the published triggers (contacts)
EMAIL_RUNS = CacheKey("email-runs")  # {email id: segment send progress} of a page of emails (messaging)
DYNAMIC_CONTENT_ITEMS = CacheKey("dwc-items")  # the published dynamic content (messaging)
POINT_GROUPS = CacheKey("point-groups")  # {id: point group} (points)
POINT_ACTIONS = CacheKey("point-actions")  # the published point actions (points)
DWC_SLOT = CacheKey("dwc-slot")  # the dynamic content slot a page asked for in this request (automations)
WEBHOOKS = CacheKey("webhooks")  # the published webhooks (webhooks)
ERASING = CacheKey("erasing")  # ids of the contacts this request deletes for good (contacts/erasure.py)
UPLOAD_PURGES = CacheKey("upload-purges")  # the upload purge jobs this request's form writes add (web/upload_purge.py)
JOURNEYS_EXTERNAL = CacheKey("journeys-external")  # the automation worker's claimed external actions


def ref(kind: str) -> CacheKey:
    """{id: document or None} of `kind` read by id in the request (kernel/service.py)."""
    return CacheKey("ref", kind)


def role(role_id: JSON) -> CacheKey:
    """The role document of `role_id` (kernel/access.py)."""
    return CacheKey("role", role_id)


def user_role(user_id: JSON) -> CacheKey:
    """The role id stored on user `user_id`, for credentials that do not carry it (kernel/access.py)."""
    return CacheKey("user-role", user_id)


def field_aliases(object_name: str) -> CacheKey:
    """The custom field aliases of `lead` or `company` (contacts)."""
    return CacheKey("aliases", object_name)


def fields(kind: str) -> CacheKey:
    """The field definitions of `kind`, ordered (contacts)."""
    return CacheKey("fields", kind)


def send_counts(channel: str) -> CacheKey:
    """{id: counts} of the send records of a page of `channel` documents (messaging)."""
    return CacheKey("send-counts", channel)


def document(kind: str, entity_id: JSON) -> CacheKey:
    """One document read for rendering (messaging tokens)."""
    return CacheKey("document", (kind, entity_id))


def points_timeline(contact_id: JSON) -> CacheKey:
    """The stored timeline events of a contact, read once for its point history and URL hits (points)."""
    return CacheKey("points-timeline", contact_id)


def points_history(contact_id: JSON) -> CacheKey:
    """The point history of a contact (points)."""
    return CacheKey("points-history", contact_id)


def rebuild(segment_id: JSON) -> CacheKey:
    """The rebuild queued by a segment's write, sent once stored (segments)."""
    return CacheKey("rebuild", segment_id)


def focus_stats(focus_id: JSON) -> CacheKey:
    """A focus item's views and clicks, read for a page of items (web)."""
    return CacheKey("focus-stats", focus_id)


def progress(segment_id: JSON) -> CacheKey:
    """A segment's rebuild progress, read for a page of segments (segments)."""
    return CacheKey("progress", segment_id)


def stages_named(name: str) -> CacheKey:
    """The stages whose name is `name`, case-folded (stages)."""
    return CacheKey("stages-named", name)
