"""Point groups (Mautic 5): named scores a contact has beside its points (domain/points/group_scores.py).

A group is a small cached kind (every container reads it from memory, checked by the versions read
of the request). Deleting a group deletes the point actions and point triggers naming it, as
Mautic's foreign keys do (ON DELETE CASCADE); the contacts' scores in it are never shown again and
leave the stored contact on its next group-score write (group ids are never reused).
"""

from chalicelib.domain.kernel import cached, registry, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.resources import Hooks, Write
from chalicelib.domain.kernel.types import Doc

NAMING_KINDS = ("point", "trigger")  # the kinds whose documents may name a group


class PointGroupHooks(Hooks):
    """Point groups: a new one's description is "" unless given; deleting one deletes what names it."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """Mautic's `Group` starts with an empty description (`PointGroupsApiControllerTest`); a PUT
        without one clears it to null, as its form does."""
        if write.existing is None and doc.get("description") is None:
            doc["description"] = ""

    def stored(self, doc: Doc | None, existing: Doc | None, ctx: Context) -> None:
        """After a delete: delete the point actions and triggers that named the group."""
        if doc is None:
            assert existing is not None  # a delete names the document it removes
            for kind in NAMING_KINDS:
                _delete_naming(kind, existing["id"], ctx)


def _delete_naming(kind: str, group_id: int, ctx: Context) -> None:
    for item in [d for d in cached.documents(kind, ctx) if d.get("group") == group_id]:
        try:
            service.delete(registry.resource(kind), item["id"], ctx)
        except NotFound:
            pass  # deleted meanwhile
