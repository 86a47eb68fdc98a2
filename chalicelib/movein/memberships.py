"""Segments after they are copied: the members of static segments (no filters) added to their copies,
and the filters that name emails or other segments set again once those exist here (segments are
copied before the emails that send to them, and a segment may name one copied after it). Members of
filter segments are not copied: this service computes them."""

from __future__ import annotations

from chalicelib.movein import payloads, source
from chalicelib.movein.client import ApiFailure
from chalicelib.movein.payloads import Doc
from chalicelib.movein.run import Run, Timer, chunked

KIND = "membership"
# filters naming emails, or segments copied after the one that names them
LATE_FILTERS = frozenset({"lead_email_received", "lead_email_sent", "lead_email_read_count", "email_id", "leadlist"})


def copy_static(run: Run) -> None:
    """Add the members of every static source segment to its copy (adding twice changes nothing)."""
    with Timer(run, KIND):
        segments = run.mapping("segment")
        contacts = run.mapping("contact")
        for page in source.pages(run.source, "/segments", ("lists", "segments")):
            for segment in page:
                target = segments.get(segment["id"])
                if _filtered(segment) or (target is None and not run.dry_run):
                    continue
                search = {"search": f"segment:{segment.get('alias')}", "minimal": "true"}
                members = (
                    c["id"] for rows in source.pages(run.source, "/contacts", ("contacts",), search) for c in rows
                )
                for batch in chunked(members, source.PAGE):
                    _add(run, target, [contacts.get(c) for c in batch])


def _filtered(segment: Doc) -> bool:
    """True for a segment whose members its filters decide."""
    return bool(segment.get("filters"))


def _add(run: Run, target: int | None, ids: list[int | None]) -> None:
    """Add one batch of members to the copy of a segment."""
    if run.dry_run:
        run.report.count(KIND, "copied", len(ids))
        return
    known = [i for i in ids if i is not None]
    if len(known) < len(ids):
        run.report.count(KIND, "failed", len(ids) - len(known), reason="the contact was not copied")
    if not known:
        return
    try:
        run.target.call("POST", f"/segments/{target}/contacts/add", {"ids": known})
        run.report.count(KIND, "copied", len(known))
    except ApiFailure as failure:
        run.report.count(KIND, "failed", len(known), reason=str(failure))


def refilter(run: Run) -> None:
    """Set again the filters of segments that name emails or segments, now that all are copied."""
    if run.dry_run:
        return
    segments = run.mapping("segment")
    for page in source.pages(run.source, "/segments", ("lists", "segments")):
        for segment in page:
            target = segments.get(segment["id"])
            named = {str(f.get("field")) for f in _filters(segment)}
            if target is None or not named & LATE_FILTERS:
                continue
            try:
                run.target.call(
                    "PATCH", f"/segments/{target}/edit", {"filters": payloads.filters(segment["filters"], run.maps)}
                )
            except ApiFailure as failure:
                run.report.count("segment", "failed", reason=f"filters naming emails: {failure}")


def _filters(segment: Doc) -> list[Doc]:
    """A segment's filters as a list."""
    value = segment.get("filters") or []
    return [f for f in (value.values() if isinstance(value, dict) else value) if isinstance(f, dict)]
