"""What the web capability keeps of an erased contact (domain/contacts/erasure.py): its form
submissions stay counted, without the contact, its values, its address or the page it came from, and
the files uploaded with them leave the bucket. Its page hits are timeline events, gone with the
timeline (the pages keep their hit counts)."""

from chalicelib.domain.contacts import erasure
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.web import form_uploads, submissions
from chalicelib.store import port as store

FORGOTTEN: Doc = {
    "contactId": None,
    "ipAddress": None,
    "referer": None,
    "trackingId": None,
    "results": {},
    "files": {},
}


def _submissions(job: Doc) -> list[tuple[str, int]]:
    """(kind, id) of each submission of the erased contact, from its `form.submitted` events."""
    found = []
    for event in erasure.events(job, "form.submitted"):
        details = event.get("details") or {}
        form_id, submission_id = (details.get("form") or {}).get("id"), (details.get("submission") or {}).get("id")
        if form_id and submission_id:
            found.append((submissions.kind(form_id), int(submission_id)))
    return found


def forget_uploads(job: Doc) -> None:
    """Erasure step: the files uploaded with the contact's submissions, deleted from the bucket (one
    GetItem per submission, one DeleteObject per file). It runs before `anonymise_submissions`, which
    forgets their keys; deleting again is harmless, so a step cut short is simply run again."""
    for kind, submission_id in _submissions(job):
        found = store.get(kind, submission_id)
        if found is not None and found.get("files"):
            form_uploads.remove(found["files"].values())


def anonymise_submissions(job: Doc) -> None:
    """Erasure step: each submission of the contact (found through its `form.submitted` events) keeps
    its id, form, page and date: one GetItem and one UpdateItem each (none for one already done)."""
    for kind, submission_id in _submissions(job):
        found = store.get(kind, submission_id)
        if found is not None and found.get("contactId") is not None:
            store.put(kind, dict(found, **FORGOTTEN))
