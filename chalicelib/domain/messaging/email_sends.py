"""Segment sends: an email to the contacts of its segments, fanned out over the `sends` queue.

`start` (POST /emails/<id>/send) first sends, in the request, to the first contacts of the segments
this email has not been sent to (at most `batch`, EMAIL_SEND_INLINE and `limit`: Mautic's answer
counts what went out), then writes the run state (`emailrun` / <email id>: a new generation, status
`queued`, the contacts handled inline) and queues a `plan` message. `plan` reads the members of the
segments (`members#<segment>` index), leaves out the contacts this email already reached and those
the request handled, applies what is left of `limit` and queues one `batch` message per
EMAIL_SEND_BATCH contacts. A newer run makes the messages of an older one no-ops.

Each contact gets the email at most once: its record (`emailsend#<email id>` / <contact id>) is
claimed as `sending` by a conditional write before SES is called, and settles as `sent`,
`skipped` (do-not-contact, no address, unpublished), `failed` (SES refused it) or `retry` (SES
unavailable: the batch message fails and SQS delivers it again; after five receives it waits in
the dead-letter queue, its contacts still marked `retry`) or `paused` (the reputation guard paused
segment sends: counted as skipped, sent by a later run). A record left `sending` by a crash is
`sent` if its send record exists, else, once it is older than STUCK_SECONDS, `unknown`: it may have
gone out, so it is never sent again. Every batch counts its outcomes once (a marker per batch).

Frequency caps (`frequency_caps.py`, Mautic's message queue): a segment send, or an automation's
marketing email (`send_marketing`), to a contact its own email rule caps is `deferred`: the record
names the due item that wakes it one DAY/WEEK/MONTH later (`deferred`, from the minute job), when it
is sent unless still capped; then it waits one more period after its due time, at most
MAX_ATTEMPTS tries from the queue in all, after which it is `skipped`, as Mautic gives up.
"""

import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from itertools import islice
from typing import NoReturn, cast

from chalicelib import aws, config, observe
from chalicelib.channels import mail
from chalicelib.domain.contacts import frequency_rules
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import clock, due_items, retries, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound, invalid
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import email_hooks, email_runs, email_stats, frequency_caps, reputation, sending
from chalicelib.domain.messaging.declarations import EMAIL
from chalicelib.domain.messaging.records import RecipientRecord, SendOutcome
from chalicelib.domain.segments import membership
from chalicelib.store import port as store
from chalicelib.store import queues
from chalicelib.store.port import EntityId

QUEUE = "sends"
PERSIST_TRIES = 3  # tries of a write no later retry repairs: `retry` records, a plan's batches
STUCK_SECONDS = 900  # longer than a worker may run: a `sending` record this old was interrupted
OUTCOME = {"sent": "sent", "skipped": "skipped", "failed": "failed", "unknown": "failed", "deferred": "deferred"}
MAX_ATTEMPTS = 3  # tries of a deferred send from the queue (Mautic's `email_attempts` default)
PAUSED_WAIT = timedelta(minutes=15)  # a deferred send due while the reputation guard pauses (Mautic's PT15M)
log = logging.getLogger(__name__)
REACHED = ("sent", "sending", "unknown", "deferred")  # contacts a new run leaves out


class SendLater(Exception):
    """The batch cannot finish now (SES unavailable, a contact held by another worker): SQS retries it."""


def record_kind(email_id: EntityId) -> str:
    """The kind of the per-contact records of one email's segment sends."""
    return f"emailsend#{int(email_id)}"


def _lists(payload: Doc, email: Doc) -> list[int]:
    if payload.get("lists") in (None, "", []):
        lists = list(email.get("lists") or [])
    else:
        try:
            lists = a.id_list(payload["lists"])
        except a.Invalid:
            raise invalid("lists", "This value should be a list of segment ids.") from None
        other = [str(i) for i in lists if i not in (email.get("lists") or [])]
        if other:
            raise invalid("lists", f"Segments {', '.join(other)} are not segments of this email.")
    if not lists:
        raise invalid("lists", "This email has no segments to send to.")
    return lists


def _positive(payload: Doc, name: str) -> int | None:
    if payload.get(name) in (None, ""):
        return None
    try:
        number = a.as_int(payload[name])
    except a.Invalid:
        number = 0
    if number <= 0:
        raise invalid(name, "This value should be a positive integer.")
    return number


def start(email_id: EntityId, payload: Doc, ctx: Context) -> tuple[Doc, Counter[str]]:
    """Send a published email to the first contacts of its segments in the request and queue the
    rest; the new run's state and the outcomes of the contacts sent to inline. Forbidden when the
    caller may not view one of the email's attachments."""
    email = service.load(EMAIL, email_id)
    email_hooks.require_viewable_assets(email.get("assetAttachments"), ctx)
    if not is_published(email, ctx.now):
        raise NotFound("This email is not published.")
    reputation.require_running()
    lists, limit, batch_size = _lists(payload, email), _positive(payload, "limit"), _positive(payload, "batch")
    generation = store.allocate_ids(email_runs.KIND)[0]
    inline = min(n for n in (batch_size, limit, config.EMAIL_SEND_INLINE) if n is not None)
    outcomes, handled = _send_inline(email, lists, generation, inline, ctx)
    state = {
        "id": email["id"],
        "generation": generation,
        "status": "queued",
        "lists": lists,
        "limit": limit,
        "inline": handled,
        "queued": len(handled),
        "batches": 0,
        "baseUrl": ctx.base_url,
        "queuedAt": ctx.now,
        "startedAt": None,
        "finishedAt": None,
    }
    store.put(email_runs.KIND, state)
    for outcome, count in outcomes.items():
        store.add(email_runs.counter(email["id"], generation, outcome), count)
    queues.send(QUEUE, [{"type": "plan", "email": email["id"], "generation": generation}])
    return state, outcomes


def _send_inline(
    email: Doc, lists: Sequence[int], generation: int, size: int, ctx: Context
) -> tuple[Counter[str], list[int]]:
    """Send to up to `size` contacts not handled for this email yet: their outcomes and ids. A
    contact SES or another worker makes wait, or whose send met AWS unavailable, ends the inline
    part: it and the rest are left to the fan-out (retried by SQS), so the request still answers."""
    outcomes: Counter[str] = Counter()
    handled: list[int] = []
    run_ctx = Context(base_url=ctx.base_url)
    try:
        for contact_id in _first_pending(email["id"], lists, size):
            outcomes[_send_once(email, contact_id, generation, run_ctx)] += 1
            handled.append(contact_id)
    except SendLater:
        pass  # that contact's record says `retry`: the run's batches send to it
    except Exception as error:
        if not aws.unavailable(error):
            raise
        observe.metrics({"Outcome": "deferred"}, EmailSends=1)  # its record, if any, settles in a batch
    return outcomes, handled


def _first_pending(email_id: int, lists: Sequence[int], size: int) -> list[int]:
    """Up to `size` members of the segments without a record for this email (or one to retry),
    reading the members indexes only as far as needed (a BatchGetItem per 100 members read)."""
    chosen: list[int] = []
    seen: set[int] = set()
    for segment in lists:
        rows = (row["id"] for row in store.iterate(membership.members_kind(segment)) if membership.is_member(row))
        while len(chosen) < size:
            chunk = [c for c in islice(rows, 100) if c not in seen]
            if not chunk:
                break
            seen.update(chunk)
            records = store.batch_get(record_kind(email_id), chunk)
            chosen += [c for c in chunk if (records.get(c) or {}).get("status") in (None, "retry")]
    return chosen[:size]


def _current(email_id: int, generation: int, status: str) -> Doc | None:
    state = store.get(email_runs.KIND, email_id)
    return state if state and state["generation"] == generation and state["status"] == status else None


def _recipients(state: Doc) -> list[int]:
    """The run's contacts not reached yet nor handled in its request, in id order, at most what is
    left of `limit`."""
    inline = set(state.get("inline") or [])
    members = sorted(
        {
            row["id"]
            for segment in state["lists"]
            for row in store.iterate(membership.members_kind(segment))
            if membership.is_member(row)
        }
        - inline
    )
    reached = store.batch_get(record_kind(state["id"]), members) if members else {}
    pending = [c for c in members if (reached.get(c) or {}).get("status") not in REACHED]
    return pending if state.get("limit") is None else pending[: max(0, state["limit"] - len(inline))]


def plan(email: int, generation: int) -> None:
    """Split the run's contacts into batches and queue them."""
    state = _current(email, generation, "queued")
    if state is None:
        return
    contacts = _recipients(state)
    size = max(1, config.EMAIL_SEND_BATCH)
    chunks = [contacts[i : i + size] for i in range(0, len(contacts), size)]
    state.update(
        status="sending",
        queued=len(state.get("inline") or []) + len(contacts),
        batches=len(chunks),
        startedAt=clock.now_iso(),
    )
    try:
        store.replace(email_runs.KIND, state)
    except store.Stale:
        return  # a newer run took over
    messages = [
        {"type": "batch", "email": email, "generation": generation, "number": n, "contacts": chunk}
        for n, chunk in enumerate(chunks)
    ]
    # the run says `sending` now, so a retried `plan` is a no-op: its batches must be queued here
    # (queued twice at worst: a batch counts once and each contact is claimed once)
    _persisting(lambda: queues.send(QUEUE, messages))
    if not chunks:
        _finish(email, generation)


def batch(email: int, generation: int, number: int, contacts: Sequence[int]) -> None:
    """Send the run's email to a batch of contacts (each at most once); count the batch once."""
    state = _current(email, generation, "sending")
    doc = store.get(EMAIL.kind, email) if state else None
    if state is None or doc is None:
        return
    ctx = Context(base_url=state.get("baseUrl") or "")
    held = reputation.paused()
    if held is not None:
        outcomes = Counter(_held(doc, contact_id, str(held.get("reason"))) for contact_id in contacts)
    else:
        outcomes = Counter(_send_once(doc, contact_id, generation, ctx) for contact_id in contacts)
    if not store.claim(f"emailbatch#{email}#{generation}#{number}"):
        return
    for outcome, count in outcomes.items():
        store.add(email_runs.counter(email, generation, outcome), count)
    if store.add(email_runs.counter(email, generation, "batches")) >= state["batches"]:
        _finish(email, generation)


def _finish(email: int, generation: int) -> None:
    state = _current(email, generation, "sending")
    if state is not None:
        state.update(status="done", finishedAt=clock.now_iso())
        try:
            store.replace(email_runs.KIND, state)
        except store.Stale:
            pass  # a newer run took over


def _send_once(email: Doc, contact_id: int, generation: int, ctx: Context) -> str:
    """Send to one contact unless its record says it was reached; its outcome for the run's counts."""
    ctx.now = clock.now_iso()
    record = cast(RecipientRecord | None, store.get(record_kind(email["id"]), contact_id))
    status = record.get("status") if record else None
    if status in OUTCOME:
        return OUTCOME[status]
    if status == "sending" and record is not None:
        return _interrupted(email, record)
    try:
        contact = service.load(CONTACT, contact_id)
    except NotFound:
        return _settle(email, record, contact_id, "skipped", "The contact was deleted.")
    reason = sending.refusal(email, contact, False, ctx.now)
    if reason:
        return _settle(email, record, contact_id, "skipped", reason)
    time = frequency_caps.capped(contact, ctx.now)
    if time is not None:
        return _defer(email, record, contact, time, ["segment", generation], ctx)
    prepared = sending.prepare(email, contact, ctx)
    record = _claim(email, record, contact_id, prepared.stat_id)
    try:
        message_id = sending.deliver(prepared)
    except mail.Rejected as error:
        sending.refused(email["id"], contact_id, error, ctx)
        return _settle(email, record, contact_id, "failed", str(error))
    except Exception as error:
        if not isinstance(error, mail.Unavailable) and not aws.unavailable(error):
            raise
        _retry_later(email, record, contact_id, error)
    return _sent(email, record, prepared, message_id, ("segment", generation), ctx)


def _retry_later(email: Doc, record: RecipientRecord, contact_id: int, error: Exception) -> NoReturn:
    """The message did not go out (SES, or the send rate's counter, unavailable): the record says
    `retry`, so a batch sends to it, and SQS retries this one. That write is tried a few times: a
    record left `sending` would never be sent again (docs/reliability.md)."""
    _persisting(lambda: _settle(email, record, contact_id, "retry", str(error)))
    raise SendLater(str(error)) from None


def _persisting(operation: Callable[[], object]) -> None:
    """operation(), tried again (PERSIST_TRIES in all, short jittered pauses) while AWS is
    unavailable: for the writes whose loss no later retry can repair."""
    for attempt in range(PERSIST_TRIES):
        try:
            operation()
            return
        except Exception as failure:
            if not aws.unavailable(failure) or attempt == PERSIST_TRIES - 1:
                raise
            time.sleep(retries.backoff(attempt + 3))


def _sent(
    email: Doc,
    record: RecipientRecord,
    prepared: sending.Prepared,
    message_id: str,
    source: sending.Source,
    ctx: Context,
) -> str:
    """Store the send record of a message SES accepted and settle the contact `sent`. If AWS fails
    the send record, the contact is still settled `sent` (it got the email: it must not get it
    again), without its send record, and the failure logged."""
    try:
        sending.record_sent(prepared, message_id, source, ctx)
    except Exception as error:
        if not aws.unavailable(error):
            raise
        log.warning("email %s sent to contact %s, its send record not stored: %s", email["id"], record["id"], error)
        return _settle(email, record, record["id"], "sent", f"Sent; its send record was not stored: {error}")
    return _settle(email, record, record["id"], "sent", None)


def _held(email: Doc, contact_id: int, reason: str) -> str:
    """A contact of a batch while the reputation guard pauses segment sends: its record says `paused`
    (not final: a run started after the resume sends to it), counted as skipped in this run."""
    record = cast(RecipientRecord | None, store.get(record_kind(email["id"]), contact_id))
    status = record.get("status") if record else None
    if status in OUTCOME:
        return OUTCOME[status]
    if status == "sending" and record is not None:
        return _interrupted(email, record)
    _settle(email, record, contact_id, "paused", f"Paused by the reputation guard: {reason}")
    return "skipped"


def _interrupted(email: Doc, record: RecipientRecord) -> str:
    """A record left `sending`: sent if its send record exists; unknown (never resent) once stuck."""
    if record["statId"] is not None and email_stats.get("email", email["id"], record["statId"]) is not None:
        return _settle(email, record, record["id"], "sent", None)
    if clock.parse(record["updatedAt"]) > clock.now() - timedelta(seconds=STUCK_SECONDS):
        raise SendLater(f"contact {record['id']} is being sent to by another worker")
    return _settle(email, record, record["id"], "unknown", "Interrupted while sending; not sent again.")


def _write(email: Doc, record: RecipientRecord | None, doc: RecipientRecord) -> RecipientRecord:
    """Create or conditionally replace a contact's record; SendLater when another worker got there first."""
    try:
        if record is None:
            store.create(record_kind(email["id"]), cast(Doc, doc))
        else:
            doc["_rev"] = record["_rev"]
            store.replace(record_kind(email["id"]), cast(Doc, doc))
    except (store.Conflict, store.Stale):
        raise SendLater(f"contact {doc['id']} changed under this worker") from None
    return doc


def _claim(email: Doc, record: RecipientRecord | None, contact_id: int, stat_id: int) -> RecipientRecord:
    attempts = int((record.get("attempts") if record else 0) or 0) + 1
    kept = {k: v for k, v in (record or {}).items() if k != "_rev"}  # a deferred send's due item, source
    claimed = dict(kept, id=contact_id, status="sending", statId=stat_id, attempts=attempts, reason=None)
    return _write(email, record, cast(RecipientRecord, dict(claimed, updatedAt=clock.now_iso())))


def _settle(email: Doc, record: RecipientRecord | None, contact_id: int, status: str, reason: str | None) -> str:
    base = {k: v for k, v in (record or {"attempts": 0, "statId": None}).items() if k != "_rev"}
    settled = dict(base, id=contact_id, status=status, reason=reason, updatedAt=clock.now_iso())
    _write(email, record, cast(RecipientRecord, settled))
    observe.metrics({"Outcome": status}, EmailSends=1)  # sent, failed, skipped, retry, unknown
    return OUTCOME.get(status, status)


def after_trigger(doc: Doc, item: Doc, ctx: Context) -> bool:
    """A point trigger's `email.send` event: queue the email to the contact (sent once the change
    that fired it is stored). False when the event names no email."""
    try:
        email_id = a.as_int((item.get("properties") or {}).get("email"))
    except a.Invalid:
        return False
    queues.send(QUEUE, [{"type": "trigger", "email": email_id, "contact": doc["id"], "event": item["id"]}])
    return True


def _fired(contact_id: int, event_id: JSON) -> bool:
    return any(
        event_id in ((e.get("details") or {}).get("triggerEvents") or [])
        for e in store.iterate(f"timeline#{int(contact_id)}")
        if e.get("event") == "point.gained"
    )


def trigger(email: int, contact: int, event: JSON) -> None:
    """Send a point trigger's email once the trigger's firing is stored (else later); at most once."""
    if not _fired(contact, event):
        raise SendLater(f"trigger event {event} is not stored on contact {contact} yet")
    if store.claim(f"trigger-email#{event}#{contact}"):
        try:
            sending.send_email(email, contact, Context(), source=("trigger", event))
        except NotFound:
            pass  # the email or the contact was deleted meanwhile


# --- frequency caps: deferred sends --------------------------------------------------------------


def _defer(
    email: Doc,
    record: RecipientRecord | None,
    contact: Doc,
    time: str,
    source: list[JSON],
    ctx: Context,
    attempts: int = 0,
    after: str | None = None,
) -> str:
    """A capped contact: its send waits one `time` after now (or after its last due time: Mautic's
    reschedule)."""
    at = frequency_rules.shifted(clock.parse(after or ctx.now), time)
    number, per = frequency_rules.cap(contact) or (0, time)
    return _wait(email, record, contact, at, f"Frequency cap: {number} email(s) per {per}", source, ctx, attempts)


def _wait(
    email: Doc,
    record: RecipientRecord | None,
    contact: Doc,
    at: datetime,
    why: str,
    source: list[JSON],
    ctx: Context,
    attempts: int,
) -> str:
    """The contact's send waits until `at`: a due item and `message.queue` event, then the record says
    `deferred` and names the item. If the record changed meanwhile (SendLater), the item is an orphan
    its wake-up drops."""
    item = frequency_caps.defer(email, contact["id"], at, source, attempts, ctx)
    base = {k: v for k, v in (record or {"attempts": 0, "statId": None}).items() if k != "_rev"}
    reason = f"{why}; due {item['dueAt']}"
    doc = dict(base, id=contact["id"], status="deferred", reason=reason, updatedAt=clock.now_iso())
    doc.update(due=item["id"], dueAt=item["dueAt"], source=source, queueAttempts=attempts, baseUrl=ctx.base_url)
    _write(email, record, cast(RecipientRecord, doc))
    observe.metrics({"Outcome": "deferred"}, EmailSends=1)
    return "deferred"


def send_marketing(email_id: EntityId, contact_id: EntityId, ctx: Context, source: sending.Source) -> SendOutcome:
    """An automation's marketing email (its `email_type`): sent now, unless the contact's cap holds
    it back; then deferred as a segment send's contact is (the event passes, as in Mautic)."""

    def hold(email: Doc, contact: Doc) -> SendOutcome | None:
        time = frequency_caps.capped(contact, ctx.now)
        if time is None:
            return None
        record = cast(RecipientRecord | None, store.get(record_kind(email["id"]), contact["id"]))
        status = record.get("status") if record else None
        if status == "deferred":
            return {"success": True, "deferred": True}  # queued already (Mautic's `findMessage`)
        if status in REACHED:
            return {"success": False, "reason": "The contact already received this marketing email."}
        _defer(email, record, contact, time, list(source or []), ctx)
        return {"success": True, "deferred": True}

    return sending.send_email(email_id, contact_id, ctx, source=source, hold=hold)


def wake(items: Sequence[Doc], now: datetime) -> None:
    """Queue the deferred sends of these due items (the minute job's), each delayed until its time."""
    by_delay: dict[int, list[Doc]] = {}
    for item in items:
        delay = int(min(max(due_items.due_at(item["id"]) - now.timestamp(), 0), queues.MAX_DELAY))
        by_delay.setdefault(delay, []).append({"type": "deferred", "contact": item["contact"], "due": item["id"]})
    for delay, bodies in by_delay.items():
        queues.send(QUEUE, bodies, delay=delay)


def deferred(contact: int, due: int) -> None:
    """A deferred send fell due: sent at most once, unless the contact is still capped (deferred
    again) or may not be sent to (skipped); its due item goes once the record moved on. A record
    that names another item, or none, makes this one an orphan: dropped."""
    item = store.get(due_items.due_kind(contact), due)
    if item is None:
        return
    email = store.get(EMAIL.kind, item["email"])
    record = cast(RecipientRecord | None, store.get(record_kind(item["email"]), contact))
    if email is not None and record is not None and record.get("due") == due:
        if record["status"] == "sending":
            _interrupted(email, record)  # sent, never resent, or SendLater while a worker holds it
        elif record["status"] == "deferred":
            _send_deferred(email, record)
    frequency_caps.drop(contact, due)


def _send_deferred(email: Doc, record: RecipientRecord) -> None:
    ctx = Context(base_url=str(record.get("baseUrl") or ""))
    ctx.now = clock.now_iso()
    try:
        contact = service.load(CONTACT, record["id"])
    except NotFound:
        _settle(email, record, record["id"], "skipped", "The contact was deleted.")
        return
    reason = sending.refusal(email, contact, False, ctx.now)
    if reason:
        _settle(email, record, record["id"], "skipped", reason)
        return
    held = reputation.paused()
    if held is not None:  # as the guard holds segment sends: tried again later, no attempt counted
        at, why = clock.parse(ctx.now) + PAUSED_WAIT, f"Paused by the reputation guard: {held.get('reason')}"
        tries = int(record.get("queueAttempts") or 0)
        _wait(email, record, contact, at, why, list(record.get("source") or []), ctx, tries)
        return
    time = frequency_caps.capped(contact, ctx.now)
    attempts = int(record.get("queueAttempts") or 0) + 1
    if time is not None and attempts >= MAX_ATTEMPTS:
        _settle(email, record, record["id"], "skipped", f"Frequency cap: not sent after {attempts} attempts.")
    elif time is not None:
        _defer(email, record, contact, time, list(record.get("source") or []), ctx, attempts, record.get("dueAt"))
    else:
        _deliver_deferred(email, record, contact, ctx)


def _deliver_deferred(email: Doc, record: RecipientRecord, contact: Doc, ctx: Context) -> None:
    """Claim, send and settle as a segment send's contact; AWS unavailable puts the record back to
    `deferred` (its due item kept: SQS, then the minute job's sweep, wake it again)."""
    prepared = sending.prepare(email, contact, ctx)
    claimed = _claim(email, record, record["id"], prepared.stat_id)
    try:
        message_id = sending.deliver(prepared)
    except mail.Rejected as error:
        sending.refused(email["id"], record["id"], error, ctx)
        _settle(email, claimed, record["id"], "failed", str(error))
        return
    except Exception as error:
        if not isinstance(error, mail.Unavailable) and not aws.unavailable(error):
            raise
        failure = str(error)
        _persisting(lambda: _settle(email, claimed, record["id"], "deferred", failure))
        raise SendLater(failure) from None
    _sent(email, claimed, prepared, message_id, record.get("source") or None, ctx)
