"""What the web capability keeps of an erased contact (domain/contacts/erasure.py): its form
submissions stay counted, without the contact, its values, its address or the page it came from.
Its page hits are timeline events, gone with the timeline (the pages keep their hit counts)."""

from chalicelib.domain.contacts import erasure
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.web import submissions
from chalicelib.store import port as store

FORGOTTEN: Doc = {"contactId": None, "ipAddress": None, "referer": None, "trackingId": None, "results": {}}


def anonymise_submissions(job: Doc) -> None:
    """Erasure step: each submission of the contact (found through its `form.submitted` events) keeps
    its id, form, page and date: one GetItem and one UpdateItem each (none for one already done)."""
    for event in erasure.events(job, "form.submitted"):
        details = event.get("details") or {}
        form_id, submission_id = (details.get("form") or {}).get("id"), (details.get("submission") or {}).get("id")
        if not form_id or not submission_id:
            continue
        kind = submissions.kind(form_id)
        found = store.get(kind, submission_id)
        if found is not None and found.get("contactId") is not None:
            store.put(kind, dict(found, **FORGOTTEN))
