"""The files of a deleted form or of a removed `file` field leave the bucket (issue 32; Mautic deletes a
deleted form's upload folder): the form's delete or edit writes an `uploadpurge` job item in its
transaction, queued on the `segments` queue after the commit. The job deletes every version of the
files under `form/<form id>/` (those of the removed fields only, for an edit: the field id is the third
folder of a key, domain/web/form_uploads.py), then takes them out of the form's submissions (their
`files` and the results of those fields), keeping its place; it stops after `BUDGET` seconds and queues
itself again, and a minute job queues again a job still stored 5 minutes after it was queued
(docs/public-endpoints.md, "File uploads").
"""

import time
from collections.abc import Callable
from datetime import timedelta

from chalicelib.domain.kernel import cache_keys, clock
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.web import form_uploads
from chalicelib.ports import files as bucket
from chalicelib.ports import queues
from chalicelib.store import port as store
from chalicelib.store.port import Derived, EntityId

KIND = "uploadpurge"  # jobs, ids from their own counter: {form, fields: {field id: alias}, all, queuedAt, after}
QUEUE, STEP = "segments", "upload-purge"
BUDGET = 10.0  # seconds one delivery works before it queues the rest
RESEND_SECONDS = 300
PAGE = 100  # submissions between two records of the job's place
TIMER = time.monotonic


def _file_fields(form: Doc | None) -> dict[str, str]:
    """{field id: alias} of a form's `file` fields."""
    return {str(f.get("id")): f.get("alias") or "" for f in (form or {}).get("fields") or [] if f.get("type") == "file"}


def jobs(doc: Doc | None, existing: Doc | None, ctx: Context) -> list[Derived]:
    """The purge job a form write adds to its transaction: a delete's (every file of the form) when the
    form had `file` fields, an edit's when it removes some (or makes them another type); else none.
    Costs 1 UpdateItem (the job's id) when there is one."""
    if existing is None:
        return []
    gone = _file_fields(existing)
    if doc is not None:
        gone = {i: alias for i, alias in gone.items() if i not in _file_fields(doc)}
    if not gone:
        return []
    job = {"form": existing["id"], "fields": gone, "all": doc is None, "queuedAt": ctx.now, "after": 0}
    derived: list[Derived] = [(KIND, store.allocate_ids(KIND)[0], job)]
    ctx.cache.setdefault(cache_keys.UPLOAD_PURGES, []).extend(derived)
    return derived


def queue(ctx: Context) -> None:
    """After the commit: queue the jobs this request's form writes added (a job of a write that did not
    commit finds no item and does nothing). Never raises: the minute job queues what SQS refused."""
    queues.send_stored(QUEUE, ctx.cache.pop(cache_keys.UPLOAD_PURGES, []), KIND, STEP)


def _wanted(job: Doc) -> Callable[[str], bool]:
    fields = set(job.get("fields") or {})
    return lambda key: bool(job.get("all")) or (key.split("/") + ["", "", "", ""])[3] in fields


def _strip(kind: str, submission: Doc, job: Doc) -> None:
    """Take the purged files out of one submission: its `files` and the results of those fields
    (1 PutItem; and 1 DeleteItem of its `submissionfiles` item when no file is left); none when it names none."""
    wanted = _wanted(job)
    files = submission.get("files") or {}
    dropped = {alias for alias, key in files.items() if wanted(str(key))}
    dropped |= {alias for alias in (job.get("fields") or {}).values() if alias in files}
    if not dropped:
        return
    kept = {alias: key for alias, key in files.items() if alias not in dropped}
    results = {k: v for k, v in (submission.get("results") or {}).items() if k not in dropped}
    store.put(kind, dict(submission, files=kept, results=results))
    if not kept:
        store.remove(form_uploads.LOOKUP, submission["id"])


def _again(job: Doc) -> None:
    """Keep the job's place and queue it once more."""
    store.put(KIND, dict(job, queuedAt=clock.iso(clock.now())))
    queues.send(QUEUE, [{"type": STEP, "id": job["id"]}])


def _submissions_done(job: Doc, deadline: float) -> bool:
    """Strip the form's submissions from the job's place on (`submission#<form>`, domain/web/submissions.py:
    1 Query per MB); False when the time ran out (the place is in `job`)."""
    kind = f"submission#{int(job['form'])}"
    for count, submission in enumerate(store.iterate(kind, between=(int(job["after"]) + 1, 2**62)), start=1):
        _strip(kind, submission, job)
        job["after"] = submission["id"]
        if count % PAGE == 0 and TIMER() > deadline:
            return False
    return True


def run(id: EntityId) -> None:  # `id`: the message's key
    """The `segments` worker's `upload-purge` step: the files first (every version), then the submissions
    from the job's place, then the job is deleted (a message repeated after that finds none)."""
    stored = store.get(KIND, id)
    if stored is None:
        return
    job = {k: v for k, v in stored.items() if not k.startswith("_")}
    deadline = TIMER() + BUDGET
    if not job.get("filesGone"):
        if not bucket.purge_under(f"{form_uploads.PREFIX}/{int(job['form'])}/", _wanted(job), BUDGET):
            _again(job)
            return
        job["filesGone"] = True
        store.put(KIND, job)
    if not _submissions_done(job, deadline):
        _again(job)
        return
    store.remove(KIND, job["id"])


def resend_lost() -> None:
    """Every minute (1 Query of the jobs): queue again the jobs still stored a while after they were queued."""
    cutoff = clock.iso(clock.now() - timedelta(seconds=RESEND_SECONDS))
    stale = [job["id"] for job in store.iterate(KIND) if (job.get("queuedAt") or "") < cutoff]
    if stale:
        queues.send(QUEUE, [{"type": STEP, "id": job_id} for job_id in stale])
