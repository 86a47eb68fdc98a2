"""An email's unsubscribe form and preference centre, set on its copy once forms and pages are copied
(they are copied after emails)."""

from __future__ import annotations

import hashlib

from chalicelib.movein import copier
from chalicelib.movein.client import ApiFailure
from chalicelib.movein.kinds import KINDS
from chalicelib.movein.payloads import Doc
from chalicelib.movein.run import Run, Timer

EMAIL_LINKS = {"unsubscribeForm": "form", "preferenceCenter": "page"}


def copy(run: Run) -> None:
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
