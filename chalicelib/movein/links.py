"""A form field's parent (another field of the same form, whose id the copy gets on its create) and its
conditions, set once the copy is written."""

from __future__ import annotations

from typing import Any

from chalicelib.movein.payloads import Doc, items
from chalicelib.movein.run import Run


def form_fields(run: Run, doc: Doc, new_id: int) -> None:
    """The parent and conditions of the copied form's fields that show under another: fields paired
    with the copy's by alias (unique in a form); one read and one edit of the copy."""
    fields = items(doc.get("fields"))
    children = [f for f in fields if _id(f.get("parent")) is not None]
    if not children:
        return
    aliases = {int(f["id"]): f.get("alias") for f in fields}
    ours = {f.get("alias"): f["id"] for f in items(run.target.call("GET", f"/forms/{new_id}")["form"].get("fields"))}
    linked = []
    for field in children:
        parent, mine = ours.get(aliases.get(_id(field["parent"]) or 0)), ours.get(field.get("alias"))
        if parent is None or mine is None:
            run.report.count("form", "failed", reason=f"field {field.get('alias')}: its parent field was not copied")
            continue
        linked.append({"id": mine, "parent": parent, "conditions": field.get("conditions") or {}})
    run.target.call("PATCH", f"/forms/{new_id}/edit", {"fields": linked})


def _id(value: Any) -> int | None:
    """An id given as a number, digits or `{"id": ...}`; None for none."""
    value = value.get("id") if isinstance(value, dict) else value
    return int(value) if isinstance(value, int | str) and str(value).isdigit() and int(value) > 0 else None
