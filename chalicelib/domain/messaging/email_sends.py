"""Segment sends: an email to the contacts of its segments, fanned out over the `sends` queue.

`start` (POST /emails/<id>/send) first sends, in the request, to the first contacts of the segments
this email has not been sent to, for at most EMAIL_SEND_INLINE_SECONDS (and at most `batch`,
EMAIL_SEND_INLINE and `limit`: Mautic's answer counts what went out), then writes the run state
(`emailrun` / <email id>: a new generation, status `queued`, the contacts handled inline) and queues
a `plan` message. `plan` reads the members of the segments (`members#<segment>` index), leaves out
the contacts this email already reached and those the request handled, applies what is left of
`limit` and queues one `batch` message per EMAIL_SEND_BATCH contacts. A newer run makes the messages
of an older one no-ops.

The request's share and each batch go through `send_batches.py` (reads, claims, SES calls and writes
gathered per chunk of contacts). Each contact gets the email at most once, through its record
(`recipients.py`): claimed as
`sending` before SES is called, settled `sent`, `skipped` (do-not-contact, no address,
unpublished), `failed` (SES refused it) or `retry` (SES unavailable: the batch message fails and SQS
delivers it again; after five receives it waits in the dead-letter queue, its contacts still marked
`retry`) or `paused` (the reputation guard paused segment sends: counted as skipped, sent by a later
run); a contact its frequency rule caps is `deferred` (`deferred_sends.py`). Every batch counts its
outcomes once (a marker per batch).
"""

import time
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import cast

from chalicelib import config, observe
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import clock, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound, invalid
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import (
    deferred_sends,
    email_hooks,
    email_runs,
    frequency_caps,
    recipients,
    reputation,
    send_batches,
    sending,
)
from chalicelib.domain.messaging.declarations import EMAIL
from chalicelib.domain.messaging.email_channel import EMAIL as EMAIL_CHANNEL
from chalicelib.domain.messaging.records import RecipientRecord
from chalicelib.domain.segments import membership
from chalicelib.ports import outages, queues
from chalicelib.store import port as store
from chalicelib.store.port import EntityId


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


def is_list_email(email: Doc) -> bool:
    """Whether the email goes to segments (`emailType` list); a template email never does (Mautic's
    `sendEmailToLists` sends nothing for one)."""
    return email.get("emailType") == "list"


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
    if not is_list_email(email):
        raise invalid("emailType", "Only a segment (list) email is sent to segments; this one is a template email.")
    reputation.require_running()
    lists, limit, batch_size = _lists(payload, email), _positive(payload, "limit"), _positive(payload, "batch")
    generation = store.allocate_ids(email_runs.KIND)[0]
    deadline = time.monotonic() + config.active().EMAIL_SEND_INLINE_SECONDS
    inline = min(n for n in (batch_size, limit, config.active().EMAIL_SEND_INLINE) if n is not None)
    outcomes, handled = _send_inline(email, lists, generation, inline, deadline, ctx)
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
    queues.send(recipients.QUEUE, [{"type": "plan", "email": email["id"], "generation": generation}])
    return state, outcomes


def _send_inline(
    email: Doc, lists: Sequence[int], generation: int, size: int, deadline: float, ctx: Context
) -> tuple[Counter[str], list[int]]:
    """Send to up to `size` contacts not handled for this email yet, a chunk at a time until
    `deadline` (time.monotonic): their outcomes and ids. A contact SES or another worker makes wait,
    or AWS unavailable, ends the inline part: the rest is left to the fan-out (retried by SQS), so the
    request still answers. Time, not the segment's size, bounds what the request does: a chunk is one
    wave of messages in flight (EMAIL_SEND_CONCURRENCY), so the last one ends soon after the deadline."""
    outcomes: Counter[str] = Counter()
    handled: list[int] = []
    pending = _pending(email["id"], lists)
    run_ctx = Context(base_url=ctx.base_url)
    try:
        while len(handled) < size and time.monotonic() < deadline:
            chunk = list(islice(pending, min(config.active().EMAIL_SEND_CONCURRENCY, size - len(handled))))
            sent = send_batches.send(EMAIL_CHANNEL, email, chunk, ("segment", generation), run_ctx)
            outcomes.update(sent.outcomes.values())
            handled += list(sent.outcomes)
            if not chunk or sent.later is not None:
                break
    except Exception as error:
        if not outages.unavailable(error):
            raise
        observe.metrics({"Outcome": "deferred"}, EmailSends=1)  # its record, if any, settles in a batch
    return outcomes, handled


def _pending(email_id: int, lists: Sequence[int]) -> Iterator[int]:
    """The members of the segments without a record for this email (or one to retry), in order,
    reading the members indexes only as far as they are consumed (a BatchGetItem per 100 members)."""
    seen: set[int] = set()
    for segment in lists:
        rows = (row["id"] for row in store.iterate(membership.members_kind(segment)) if membership.is_member(row))
        while chunk := [c for c in islice(rows, 100) if c not in seen]:
            seen.update(chunk)
            records = store.batch_get(recipients.record_kind(email_id), chunk)
            yield from (c for c in chunk if (records.get(c) or {}).get("status") in (None, "retry"))


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
    reached = send_batches.records(recipients.record_kind(state["id"]), members)
    pending = [c for c in members if (reached.get(c) or {}).get("status") not in recipients.REACHED]
    return pending if state.get("limit") is None else pending[: max(0, state["limit"] - len(inline))]


def plan(email: int, generation: int) -> None:
    """Split the run's contacts into batches and queue them."""
    state = _current(email, generation, "queued")
    if state is None:
        return
    contacts = _recipients(state)
    size = max(1, config.active().EMAIL_SEND_BATCH)
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
    recipients.persisting(lambda: queues.send(recipients.QUEUE, messages))
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
        sent = send_batches.send(EMAIL_CHANNEL, doc, contacts, ("segment", generation), ctx)
        if sent.later is not None:
            raise sent.later  # SQS delivers the batch again: its contacts with a final record are skipped
        outcomes = Counter(sent.outcomes.values())
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


def send_once(email: Doc, contact_id: int, source: tuple[str, int], ctx: Context) -> str:
    """Send to one contact unless its record says it was reached; its outcome for the run's counts.
    `source`: ("segment", run generation) or ("broadcast", email id)."""
    ctx.now = clock.now_iso()
    record = cast(RecipientRecord | None, store.get(recipients.record_kind(email["id"]), contact_id))
    status = record.get("status") if record else None
    if status in recipients.OUTCOME:
        return recipients.OUTCOME[status]
    if status == "sending" and record is not None:
        return recipients.interrupted(email, record)
    if not is_list_email(email):
        return recipients.settle(email, record, contact_id, "skipped", "A template email is not sent to segments.")
    try:
        contact = service.load(CONTACT, contact_id)
    except NotFound:
        return recipients.settle(email, record, contact_id, "skipped", "The contact was deleted.")
    reason = sending.refusal(email, contact, False, ctx.now) or sending.category_refusal(email, contact)
    if reason:
        return recipients.settle(email, record, contact_id, "skipped", reason)
    time = frequency_caps.capped(contact, ctx.now)
    if time is not None:
        return deferred_sends.defer(email, record, contact, time, list(source), ctx)
    return recipients.deliver(email, record, contact, source, ctx, waiting="retry")


def _held(email: Doc, contact_id: int, reason: str) -> str:
    """A contact of a batch while the reputation guard pauses segment sends: its record says `paused`
    (not final: a run started after the resume sends to it), counted as skipped in this run."""
    record = cast(RecipientRecord | None, store.get(recipients.record_kind(email["id"]), contact_id))
    status = record.get("status") if record else None
    if status in recipients.OUTCOME:
        return recipients.OUTCOME[status]
    if status == "sending" and record is not None:
        return recipients.interrupted(email, record)
    recipients.settle(email, record, contact_id, "paused", f"Paused by the reputation guard: {reason}")
    return "skipped"


def after_trigger(doc: Doc, item: Doc, ctx: Context) -> bool:
    """A point trigger's `email.send` event: queue the email to the contact (sent once the change
    that fired it is stored). False when the event names no email."""
    try:
        email_id = a.as_int((item.get("properties") or {}).get("email"))
    except a.Invalid:
        return False
    queues.send(recipients.QUEUE, [{"type": "trigger", "email": email_id, "contact": doc["id"], "event": item["id"]}])
    return True


def fired(contact_id: int, event_id: JSON) -> bool:
    """Whether the point trigger event has fired for the contact in a stored change (its `point.gained` names it)."""
    return any(
        event_id in ((e.get("details") or {}).get("triggerEvents") or [])
        for e in store.iterate(f"timeline#{int(contact_id)}")
        if e.get("event") == "point.gained"
    )


def trigger(email: int, contact: int, event: JSON) -> None:
    """Send a point trigger's email once the trigger's firing is stored (else later); at most once."""
    if not fired(contact, event):
        raise recipients.SendLater(f"trigger event {event} is not stored on contact {contact} yet")
    if store.claim(f"trigger-email#{event}#{contact}"):
        try:
            sending.send_email(email, contact, Context(), source=("trigger", event))
        except NotFound:
            pass  # the email or the contact was deleted meanwhile
