"""One email to many contacts at once (a segment send's batches and its request's share, broadcasts):
`email_sends.send_once`'s checks and outcomes, with the AWS calls gathered per chunk of contacts
(docs/storage.md "Segment sends in batches").

Per chunk (CHUNK contacts): their send records (`emailsend#<email>`) and contact documents in one
BatchGetItem each; the send rate's numbers for the chunk in one UpdateItem; then, EMAIL_SEND_CONCURRENCY
at a time, each contact's claim (`sending`, a conditional PutItem, before SES) and SES's call; then the
sent messages' send records, SES message-id notes and `sent` records in BatchWriteItems (25 items a
call, a unit per KB each), the email's sentCount and the reputation guard's count added once for the
chunk, and each contact's `email.sent` event and points (`sent_events.py`: in BatchWriteItems for the
contacts the event leaves unchanged, else in the contact's own write, in the pool).

A contact whose record is final is skipped without SES (a retried batch resumes where it stopped);
one left `sending` is settled as `recipients.interrupted` says. Deleted contacts, do-not-contact,
frequency caps and SES refusals take the one-contact paths of `recipients`. A contact SES or another
worker makes wait ends the send after its chunk, the chunk's other contacts settled (SendLater).
"""

import dataclasses
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from chalicelib import config, observe
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import (
    deferred_sends,
    email_stats,
    frequency_caps,
    recipients,
    reputation,
    sending,
    sent_events,
)
from chalicelib.domain.messaging.records import RecipientRecord
from chalicelib.domain.messaging.send_pool import pooled
from chalicelib.ports import mail, outages, window_counters
from chalicelib.store import port as store

CHUNK = 25  # contacts per chunk: their writes fill three BatchWriteItems, sent at once
BATCH_WRITE = 25  # items per BatchWriteItem (DynamoDB's most)


@dataclass
class Delivery:
    """One contact's message in flight: its record as read, as claimed, and what SES answered."""

    contact_id: int
    prepared: sending.Prepared
    record: RecipientRecord | None
    claimed: RecipientRecord | None = None
    message_id: str | None = None
    error: Exception | None = None


@dataclass
class Sent:
    """What `send` did: the outcome of each contact handled, and the SendLater that stopped it (None
    when every contact was handled)."""

    outcomes: dict[int, str] = dataclasses.field(default_factory=dict)
    later: recipients.SendLater | None = None


def records(email_id: int, contacts: Sequence[int]) -> dict[int, Doc]:
    """The contacts' records for an email: a BatchGetItem per 100, EMAIL_SEND_CONCURRENCY at once (a
    plan of a million members: 10,000 calls in about 625 round trips, not 10,000)."""
    chunks = [list(contacts[i : i + 100]) for i in range(0, len(contacts), 100)]
    found: dict[int, Doc] = {}
    for part in pooled(lambda ids: store.batch_get(recipients.record_kind(email_id), ids), chunks):
        found.update(part)
    return found


def send(email: Doc, contact_ids: Sequence[int], source: tuple[str, int], ctx: Context) -> Sent:
    """Send the email to the contacts, each at most once, a chunk at a time; stops after a chunk
    that met SendLater (the contacts left have no outcome: the batch's next delivery sends them)."""
    sent = Sent()
    for start in range(0, len(contact_ids), CHUNK):
        _chunk(email, list(contact_ids[start : start + CHUNK]), source, ctx, sent)
        if sent.later is not None:
            break
    return sent


def _chunk(email: Doc, ids: list[int], source: tuple[str, int], ctx: Context, sent: Sent) -> None:
    """One chunk: the records and contacts read together, the exceptions settled one by one, the rest delivered."""
    ctx.now = clock.now_iso()
    records = cast(dict[int, RecipientRecord], store.batch_get(recipients.record_kind(email["id"]), ids))
    fresh = [c for c in ids if _known(email, records.get(c), c, sent) is None]
    contacts = store.batch_get(CONTACT.kind, fresh) if fresh else {}
    ready = [c for c in fresh if _checked(email, records.get(c), contacts.get(c), c, source, ctx, sent) is None]
    if ready:
        _deliver(email, [(c, records.get(c), contacts[c]) for c in ready], source, ctx, sent)


def _later(sent: Sent, contact_id: int, run: Callable[[], str]) -> str | None:
    """run()'s outcome, noted for the contact; "later" when it raised SendLater (noted on `sent`)."""
    try:
        outcome = run()
    except recipients.SendLater as later:
        sent.later = later
        return "later"
    sent.outcomes[contact_id] = outcome
    return outcome


def _known(email: Doc, record: RecipientRecord | None, contact_id: int, sent: Sent) -> str | None:
    """The outcome of a contact already handled by its record (final, or left `sending`), else None."""
    status = record.get("status") if record else None
    if status in recipients.OUTCOME:
        sent.outcomes[contact_id] = recipients.OUTCOME[str(status)]
        return sent.outcomes[contact_id]
    if status == "sending" and record is not None:
        return _later(sent, contact_id, lambda: recipients.interrupted(email, record))
    return None


def _checked(
    email: Doc,
    record: RecipientRecord | None,
    contact: Doc | None,
    contact_id: int,
    source: tuple[str, int],
    ctx: Context,
    sent: Sent,
) -> str | None:
    """The outcome of a contact the email may not go to now (skipped, or deferred by its frequency
    rule), as `send_once` settles it; None when it is to be sent."""
    reason = _refusal(email, contact, ctx.now)
    if reason is not None:
        return _later(sent, contact_id, lambda: recipients.settle(email, record, contact_id, "skipped", reason))
    capped = frequency_caps.capped(cast(Doc, contact), ctx.now)
    if capped is None:
        return None
    return _later(
        sent, contact_id, lambda: deferred_sends.defer(email, record, cast(Doc, contact), capped, list(source), ctx)
    )


def _refusal(email: Doc, contact: Doc | None, now: str) -> str | None:
    """Why the email is not sent to the contact at all (`send_once`'s order), or None."""
    if email.get("emailType") != "list":
        return "A template email is not sent to segments."
    if contact is None:
        return "The contact was deleted."
    return sending.refusal(email, contact, False, now) or sending.category_refusal(email, contact)


def _deliver(
    email: Doc, ready: list[tuple[int, RecipientRecord | None, Doc]], source: tuple[str, int], ctx: Context, sent: Sent
) -> None:
    """Render, take the chunk's send-rate numbers, claim and send in the pool, then store what went out."""
    deliveries = [Delivery(c, sending.prepare(email, contact, ctx), record) for c, record, contact in ready]
    moments = window_counters.acquire_many("email", config.active().EMAIL_SEND_RATE, len(deliveries))
    stop = threading.Event()
    pooled(lambda pair: _claim_and_send(email, *pair, stop), zip(deliveries, moments, strict=True))
    accepted = [d for d in deliveries if d.message_id is not None]
    try:
        if accepted:
            _store_sent(email, accepted, source, ctx, sent)
    finally:  # a claimed contact SES did not take is settled (`retry`) whatever happened to the others
        for delivery in deliveries:
            if delivery.error is not None:
                _settle_error(email, delivery, ctx, sent)


def _claim_and_send(email: Doc, delivery: Delivery, moment: float, stop: threading.Event) -> None:
    """Claim the contact's record, then hand its message to SES (errors kept on the delivery). Once
    SES or AWS was unavailable (or a send failed unexpectedly) no other message of the chunk starts:
    those left untouched are sent by the batch's next delivery."""
    if stop.is_set():
        return
    try:
        delivery.claimed = recipients.claim(email, delivery.record, delivery.contact_id, delivery.prepared.stat_id)
        delivery.message_id = sending.hand_over(delivery.prepared, moment)
    except (recipients.SendLater, mail.Rejected) as error:
        delivery.error = error
    except Exception as error:
        stop.set()
        if not isinstance(error, mail.Unavailable) and not outages.unavailable(error):
            raise
        delivery.error = error


def _settle_error(email: Doc, delivery: Delivery, ctx: Context, sent: Sent) -> None:
    """A contact whose claim or send failed: another worker holds it (SendLater), SES refused it
    (`failed`, as `recipients.deliver`), or SES was unavailable (`retry`, then SendLater)."""
    error, contact_id = delivery.error, delivery.contact_id
    if isinstance(error, recipients.SendLater):
        sent.later = error
    elif isinstance(error, mail.Rejected):
        sending.refused(email["id"], contact_id, error, ctx)
        sent.outcomes[contact_id] = recipients.settle(email, delivery.claimed, contact_id, "failed", str(error))
    else:
        failure, claimed = str(error), delivery.claimed or delivery.record
        recipients.persisting(lambda: recipients.settle(email, claimed, contact_id, "retry", failure))
        sent.later = recipients.SendLater(failure)


def _store_sent(email: Doc, accepted: list[Delivery], source: tuple[str, int], ctx: Context, sent: Sent) -> None:
    """The accepted messages' send records, notes and `sent` records in BatchWriteItems, then their
    counts and each contact's `email.sent`. AWS failing the records: each contact is still settled
    `sent` (it got the email) without its send record, as `recipients.settle_sent` does."""
    stats = [sending.send_record(d.prepared, cast(str, d.message_id), source) for d in accepted]
    settled = [_sent_record(cast(RecipientRecord, d.claimed), None) for d in accepted]
    notes = [
        email_stats.note(cast(str, d.message_id), stat["trackingHash"]) for d, stat in zip(accepted, stats, strict=True)
    ]
    kind = recipients.record_kind(email["id"])
    try:
        _put_all(email_stats.stored_many(stats) + notes + [(kind, cast(Doc, r)) for r in settled])
    except Exception as error:
        if not outages.unavailable(error):
            raise
        reason = f"Sent; its send record was not stored: {error}"
        kept = [(kind, cast(Doc, _sent_record(cast(RecipientRecord, d.claimed), reason))) for d in accepted]
        recipients.persisting(lambda: store.put_many(kept))
        sent.outcomes.update({d.contact_id: "sent" for d in accepted})
        return
    counts = [
        (lambda: email_stats.count_many(stats), "the email's sent count"),
        (lambda: reputation.count("sent", len(accepted)), "the reputation guard's count"),
    ]
    pooled(lambda count: sending.after_accepted(*count), counts)
    observe.metrics({"Outcome": "sent"}, EmailSends=len(accepted))
    sent.outcomes.update({d.contact_id: "sent" for d in accepted})
    sent_events.write([(d.prepared.contact, stat) for d, stat in zip(accepted, stats, strict=True)], source, ctx)


def _put_all(items: list[tuple[str, Doc]]) -> None:
    """Write the items, a BatchWriteItem of 25 each, the calls at once (one round trip)."""
    pooled(store.put_many, [items[i : i + BATCH_WRITE] for i in range(0, len(items), BATCH_WRITE)])


def _sent_record(claimed: RecipientRecord, reason: str | None) -> RecipientRecord:
    """The claimed record settled `sent` (written unconditionally: this worker holds the claim)."""
    return cast(RecipientRecord, dict(claimed, status="sent", reason=reason, updatedAt=clock.now_iso()))
