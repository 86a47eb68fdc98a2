"""References that can only be set once what they name is copied: a form field's parent (another field
of the same form, whose id the copy gets on its create) with its conditions, and an email's
unsubscribe form and preference centre (forms and pages are copied after emails)."""

from __future__ import annotations

import hashlib
from typing import Any

from chalicelib.movein import copier
from chalicelib.movein.client import ApiFailure
from chalicelib.movein.kinds import KINDS, items
from chalicelib.movein.payloads import Doc
from chalicelib.movein.run import Run, Timer

EMAIL_LINKS = {"unsubscribeForm": "form", "preferenceCenter": "page"}


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


def emails(run: Run) -> None:
    """Set each copied email's unsubscribe form and preference centre, once forms and pages are here;
    the mapping `emaillink` keeps what was set, so a rerun sets only what changed."""
    if run.dry_run:
        return
    kind = next(k for k in KINDS if k.name == "email")
    with Timer(run, "emaillink"):
        done, copies = run.mapping("emaillink"), run.mapping("email")
        for doc in copier.listed(run, kind):
            body = {
                key: run.mapping(target).get(doc[key]) if doc.get(key) else None for key, target in EMAIL_LINKS.items()
            }
            new_id = copies.get(doc["id"])
            digest = hashlib.sha256(repr(sorted(body.items())).encode()).hexdigest()[:16]
            seen = done.entries.get(int(doc["id"]))
            if new_id is None or (seen is None and not any(body.values())) or (seen and seen[1] == digest):
                continue
            _link(run, int(doc["id"]), new_id, body, digest)


def _link(run: Run, source_id: int, new_id: int, body: Doc, digest: str) -> None:
    """One email's links set on its copy, and remembered."""
    try:
        run.target.call("PATCH", f"/emails/{new_id}/edit", body)
    except ApiFailure as failure:
        run.report.count("emaillink", "failed", reason=str(failure))
        return
    run.remember("emaillink", [(source_id, new_id, digest)])
    run.report.count("emaillink", "copied")


def _id(value: Any) -> int | None:
    """An id given as a number, digits or `{"id": ...}`; None for none."""
    value = value.get("id") if isinstance(value, dict) else value
    return int(value) if isinstance(value, int | str) and str(value).isdigit() and int(value) > 0 else None
