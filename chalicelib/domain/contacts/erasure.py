"""Erasure: a contact deleted for good (API delete, batch delete, an automation's delete action; not a
merge's loser, whose data moves to the survivor) leaves nothing that identifies the person.

The delete answers at once. Its transaction also writes an `erasure` job item (`erasure`/<contact id>,
holding the deleted document) and, when the contact had do-not-contact entries, the hashed
`suppression` of its address; the job is queued after the commit on the `erasure` queue. The worker
(`run`) goes through the steps of the subscriber table's `erase` list in order (each capability
anonymises what it keeps: send records, submissions...; then the contact's notes and timeline; the
last step announces `lead_post_delete`), recording each step done on the job item, so a repeated or
resumed message does no step twice; the job item goes last. A minute job queues again the jobs
whose message was lost. docs/privacy.md says what is removed and what is kept anonymised.

A suppression entry (`suppression`/<60 bits of the address's SHA-256>, the whole hash and the
channels with their reasons) keeps the person unsubscribed: a contact created later with that
address (or given it) gets the same do-not-contact entries back.
"""

import hashlib
from collections.abc import Sequence
from datetime import timedelta

from chalicelib.domain.contacts import contact_actions
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.kernel import batching, cache_keys, clock, registry, service, subscribers, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.types import JSON, Doc, Events
from chalicelib.ports import queues
from chalicelib.store import port as store
from chalicelib.store.port import Derived, EntityId

KIND = "erasure"  # the erasure jobs, by contact id
SUPPRESSION = "suppression"  # hashed addresses of erased contacts that asked not to be contacted
QUEUE = "erasure"
LOST_AFTER = timedelta(minutes=5)
SUPPRESSED = "Do not contact: the address of an erased contact"


def mark(contact_id: EntityId, ctx: Context) -> None:
    """Note that this request deletes the contact for good (its delete writes an erasure job)."""
    erased: set[int] = ctx.memo(cache_keys.ERASING, set)
    erased.add(int(contact_id))


def erasing(contact_id: EntityId, ctx: Context) -> bool:
    """Whether this request deletes the contact for good (not a merge's loser)."""
    erased: set[int] = ctx.memo(cache_keys.ERASING, set)
    return int(contact_id) in erased


def address_hash(email: str) -> str:
    """The SHA-256 (hex) of a lower-cased address."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


def _suppression_id(digest: str) -> int:
    return int(digest[:15], 16)


def _email(doc: Contact | Doc) -> str | None:
    value = (doc.get("values") or {}).get("email")
    return str(value) if value else None


def job_items(existing: Doc, ctx: Context) -> list[Derived]:
    """The items a contact's erasing delete writes in its transaction: the job, and the suppression of
    its address when it had do-not-contact entries (merged with an earlier one of that address)."""
    job = {"id": existing["id"], "contact": {k: v for k, v in existing.items() if not k.startswith("_")}}
    items: list[Derived] = [(KIND, existing["id"], dict(job, queuedAt=ctx.now, baseUrl=ctx.base_url, done=[]))]
    email, entries = _email(existing), existing.get("doNotContact") or []
    if email and entries:
        digest = address_hash(email)
        earlier = store.get(SUPPRESSION, _suppression_id(digest))
        channels = dict(earlier["channels"]) if earlier and earlier.get("hash") == digest else {}
        channels.update({e["channel"]: e.get("reason") or 3 for e in entries})
        items.append((SUPPRESSION, _suppression_id(digest), {"hash": digest, "channels": channels}))
    return items


def _read_ahead(payloads: Sequence[JSON]) -> dict[int, Doc | None]:
    """The suppressions of the addresses a batch's payloads carry: {id: suppression or None}, one
    BatchGetItem per 100 addresses."""
    emails = {
        str(p["email"]) for p in payloads if isinstance(p, dict) and isinstance(p.get("email"), str) and p["email"]
    }
    ids = {_suppression_id(address_hash(email)) for email in emails}
    found = store.batch_get(SUPPRESSION, ids) if ids else {}
    return {i: found.get(i) for i in ids}


def _suppression(digest: str) -> Doc | None:
    """The suppression of an address hash: read ahead by a batch, else one GetItem."""
    key = _suppression_id(digest)
    ahead = batching.read_ahead(SUPPRESSION, _read_ahead) or {}
    found = ahead[key] if key in ahead else store.get(SUPPRESSION, key)
    return found if found is not None and found.get("hash") == digest else None


def suppressed(doc: Contact, existing: Doc | None, ctx: Context) -> Events:
    """A contact given an address whose owner was erased while not contactable gets the same
    do-not-contact entries back (one GetItem, only when the address changes; a batch reads its
    addresses' in one go); their events."""
    email = _email(doc)
    if not email or (existing is not None and _email(existing) == email):
        return []
    found = _suppression(address_hash(email))
    if found is None:
        return []
    doc["doNotContact"] = [dict(e) for e in doc.get("doNotContact") or []]
    have = {e["channel"] for e in doc["doNotContact"]}
    return [
        contact_actions.set_dnc(doc, channel, int(reason), SUPPRESSED, None, ctx, allocate=False)
        for channel, reason in found["channels"].items()
        if channel not in have
    ]


def queue(contact_id: EntityId) -> None:
    """After the delete's commit: queue its erasure job. Never raises: if SQS fails, the job item
    stays stored and the minute job queues it."""
    queues.send_stored(QUEUE, [(KIND, int(contact_id), None)], KIND, "erase")


def run(contact_id: EntityId) -> None:
    """Carry out the erasure job of a contact: the steps not yet done, in order, each recorded on the
    job item once done (1 UpdateItem), then the job item removed. No job: nothing left to do."""
    contact = int(contact_id)
    job = store.get(KIND, contact)
    if job is None:
        return
    done = list(job.get("done") or [])
    for name, step in subscribers.erase_steps():
        if name in done:
            continue
        step(job)
        done.append(name)
        job = dict(job, done=done)
        store.put(KIND, job)
    store.remove(KIND, contact)


def events(job: Doc, *types: str) -> list[Doc]:
    """The erased contact's timeline events of these types (read by the steps that run before
    `forget_timeline`: what they anonymise is found through the events that name it)."""
    return [e for e in store.iterate(timeline.kind(job["id"])) if e.get("event") in types]


def forget_notes(job: Doc) -> None:
    """Erasure step: the contact's notes and their index (`notes#<id>`), deleted as the API would."""
    note = registry.resource("note")
    ctx = Context()
    for row in list(store.iterate(f"notes#{int(job['id'])}")):
        try:
            service.delete(note, row["id"], ctx)
        except NotFound:  # deleted by an earlier run: only its index row was left
            store.remove(f"notes#{int(job['id'])}", row["id"])


def forget_timeline(job: Doc) -> None:
    """Erasure step: every event of the contact's timeline (and so its entries in the all-contacts feed)."""
    kind = timeline.kind(job["id"])
    for event in list(store.iterate(kind)):
        store.remove(kind, event["id"])


def resend_lost() -> None:
    """Every minute: queue again the erasure jobs still stored a while after they were queued."""
    cutoff = clock.iso(clock.now() - LOST_AFTER)
    stale = [job["id"] for job in store.iterate(KIND) if (job.get("queuedAt") or "") < cutoff]
    if stale:
        queues.send(QUEUE, [{"type": "erase", "id": contact_id} for contact_id in stale])
