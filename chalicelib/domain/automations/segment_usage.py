"""A segment an automation starts from stays published and stored: unpublishing or deleting it is a 422
naming the automations (Mautic's `SegmentUsedInCampaignsValidator`, `mautic.lead.lists.used_in_campaigns`).
A subscriber of the segment's writes, so segments need not know automations."""

from chalicelib.domain.kernel import cached
from chalicelib.domain.kernel.errors import Unprocessable
from chalicelib.domain.kernel.subscribers import Change
from chalicelib.domain.kernel.types import Events, Items
from chalicelib.domain.segments.dependents import taken_out


def users(segment_id: int, change: Change) -> list[str]:
    """Names of the automations whose source segments include `segment_id`, in id order."""
    return [
        doc.get("name") or ""
        for doc in cached.documents("automation", change.ctx)
        if segment_id in (doc.get("lists") or [])
    ]


def _message(names: list[str], deleting: bool) -> str:
    quoted = ", ".join(f'"{name}"' for name in names)
    if deleting:
        return f"Segment cannot be deleted, it is used in the following campaigns: {quoted}."
    if len(names) == 1:
        return f"This segment is used in {quoted} campaign. Please check it before unpublishing."
    return f"This segment is used in the following campaigns: {quoted}. Please check them before unpublishing."


def on_segment_write(change: Change) -> tuple[Items, Events]:
    """Refuse (422) the unpublish or delete of a segment an automation uses; otherwise nothing to add."""
    existing = change.existing
    if existing is not None and taken_out(change.doc, existing):
        names = users(existing["id"], change)
        if names:
            message = _message(names, change.doc is None)
            raise Unprocessable({"isPublished": [message]}, None if change.doc is not None else message)
    return [], []
