"""A segment that others rely on stays: one another segment's `leadlist` filter names cannot be
unpublished nor deleted (Mautic's `SegmentInUseValidator` on unpublish; its segment list refuses the
delete, `mautic.lead.list.error.cannot.delete`). The automations that use a segment refuse the same
through their own subscriber (domain/automations/segment_usage.py)."""

from typing import Any

from chalicelib.domain.kernel import cached
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import Unprocessable
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.segments.filter_values import as_integer


def _named(item: Any) -> set[int]:
    """Segment ids a `leadlist` filter names, whatever its operator (Mautic reads `in` and `!in` alike)."""
    if not isinstance(item, dict) or "leadlist" not in (item.get("type"), item.get("field")):
        return set()
    properties = item.get("properties")
    value = properties.get("filter") if isinstance(properties, dict) else None
    values = value if isinstance(value, list) else [value]
    return {number for number in map(as_integer, values) if number is not None}


def dependents(segment_id: int, ctx: Context) -> list[str]:
    """Names of the other segments whose filters name `segment_id`, in id order."""
    return [
        doc.get("name") or ""
        for doc in cached.documents("segment", ctx)
        if doc["id"] != segment_id and any(segment_id in _named(item) for item in doc.get("filters") or [])
    ]


def taken_out(doc: Doc | None, existing: Doc) -> bool:
    """Whether a write takes a segment out of use: a delete (`doc` None), or a published one unpublished."""
    return doc is None or (existing.get("isPublished") is not False and doc.get("isPublished") is False)


def refuse_if_needed(doc: Doc | None, existing: Doc | None, ctx: Context) -> None:
    """422 when the write unpublishes or deletes a segment other segments filter on."""
    if existing is None or not taken_out(doc, existing):
        return
    names = dependents(existing["id"], ctx)
    if not names:
        return
    if doc is None:
        raise Unprocessable(
            {"leadlist": [f"Segment cannot be deleted, it is required by {', '.join(names)}."]},
            f"Segment cannot be deleted, it is required by {', '.join(names)}.",
        )
    raise Unprocessable(
        {
            "leadlist": [
                f"This segment is used in {','.join(names)}, please go back and check segments before unpublishing"
            ]
        }
    )
