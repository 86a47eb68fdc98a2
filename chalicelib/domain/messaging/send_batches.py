"""One message to many contacts at once (a segment send's batches and its request's share, broadcasts),
over a channel: an email (`email_channel.py`) or a text message (`text_sends.py`). Each contact gets it
at most once, with the AWS calls gathered per chunk of contacts (docs/storage.md "Segment sends in
batches").

Per chunk (CHUNK contacts): their records (`emailsend#<email>`, `smssend#<sms>`) and contact documents
in one BatchGetItem each; the channel's send rate's numbers for the chunk in one UpdateItem; then,
EMAIL_SEND_CONCURRENCY at a time, each contact's claim (`sending`, a conditional PutItem, before the
provider) and the provider's call (SES, SNS); then the sent messages' send records (and SES
message-id notes) and `sent` records in BatchWriteItems (25 items a call, a unit per KB each), the
message's sentCount (and the reputation guard's count) added once for the chunk, and each contact's
sent event (`sent_events.py`: in BatchWriteItems for the contacts the event leaves unchanged, else in
the contact's own write, in the pool).

A contact whose record is final is skipped without calling the provider (a retried batch resumes where
it stopped); an email's record left `sending` is settled as `recipients.interrupted` says. Deleted
contacts, do-not-contact, frequency caps and refusals take the one-contact paths of the channel. A
contact the provider or another worker makes wait ends the send after its chunk, the chunk's other
contacts settled (SendLater).
"""

import dataclasses
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, cast

from chalicelib import observe
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import recipients, sending, sent_events
from chalicelib.domain.messaging.records import RecipientRecord
from chalicelib.domain.messaging.send_pool import pooled
from chalicelib.ports import failures, outages, window_counters
from chalicelib.store import port as store

CHUNK = 25  # contacts per chunk: their writes fill three BatchWriteItems, sent at once
BATCH_WRITE = 25  # items per BatchWriteItem (DynamoDB's most)
P = TypeVar("P")  # one contact's message made ready by its channel (rendered, its send record's id)
Counts = list[tuple[Callable[[], object], str]]  # writes after a chunk's send records, each with what it is


class Channel(Protocol[P]):
    """What a batch does differently for emails and text messages: the records' kind, the checks,
    rendering, the provider and its send rate, the send records, counts and sent events."""

    name: str  # the send rate's window ("email", "sms")
    metric: str  # the metric counting the sends

    def record_kind(self, message_id: int) -> str:
        """The kind of the message's per-contact records."""

    def rate(self) -> float:
        """The provider's send rate (messages per second, all workers; 0: none)."""

    def known(self, message: Doc, record: RecipientRecord) -> str | None:
        """The outcome of a contact its record says was handled (one left `sending` may be settled
        now, or SendLater), else None: it is to be sent."""

    def refusal(self, message: Doc, contact: Doc | None, now: str) -> str | None:
        """Why the message is not sent to the contact (None: deleted), or None."""

    def held(
        self, message: Doc, record: RecipientRecord | None, contact: Doc, source: tuple[str, int], ctx: Context
    ) -> Callable[[], str] | None:
        """What settles a contact whose frequency rule holds the message back (its outcome), or None."""

    def prepare(self, message: Doc, contact: Doc, ctx: Context) -> P:
        """The message rendered for the contact, with its send record's id."""

    def claim(self, message: Doc, record: RecipientRecord | None, contact_id: int, prepared: P) -> RecipientRecord:
        """The contact's record claimed `sending` (conditionally), before the provider is called."""

    def settle(
        self, message: Doc, record: RecipientRecord | None, contact_id: int, status: str, reason: str | None
    ) -> str:
        """The contact's record with its outcome (conditionally); the outcome counted."""

    def hand_over(self, prepared: P, moment: float) -> str:
        """Hand the message to the provider, let through by the rate at `moment`; its message id."""

    def refused(self, message: Doc, contact_id: int, error: Exception, ctx: Context) -> None:
        """What a message the provider refused leaves on the contact (its failed event)."""

    def send_record(self, prepared: P, message_id: str, source: tuple[str, int]) -> Doc:
        """The send record of a message the provider accepted (not stored yet)."""

    def stored(self, stats: list[Doc]) -> list[tuple[str, Doc]]:
        """The items the chunk's send records are stored as (with any notes)."""

    def counts(self, stats: list[Doc]) -> Counts:
        """The counts of the chunk's stored send records (sentCount...), one write each for the chunk."""

    def event(self, prepared: P, stat: Doc, source: tuple[str, int]) -> sent_events.EventOf:
        """The sent event (and points) the message writes on its contact."""


@dataclass(eq=False, repr=False)
class Delivery(Generic[P]):
    """One contact's message in flight: the contact and its record as read, the record as claimed, and
    what the provider answered."""

    contact_id: int
    contact: Doc
    prepared: P
    record: RecipientRecord | None
    claimed: RecipientRecord | None = None
    message_id: str | None = None
    error: Exception | None = None


@dataclass(eq=False, repr=False)
class Sent:
    """What `send` did: the outcome of each contact handled, and the SendLater that stopped it (None
    when every contact was handled)."""

    outcomes: dict[int, str] = dataclasses.field(default_factory=dict)
    later: recipients.SendLater | None = None


def records(kind: str, contacts: Sequence[int]) -> dict[int, Doc]:
    """The contacts' records of one message: a BatchGetItem per 100, EMAIL_SEND_CONCURRENCY at once (a
    plan of a million members: 10,000 calls in about 625 round trips, not 10,000)."""
    chunks = [list(contacts[i : i + 100]) for i in range(0, len(contacts), 100)]
    found: dict[int, Doc] = {}
    for part in pooled(lambda ids: store.batch_get(kind, ids), chunks):
        found.update(part)
    return found


@dataclass(eq=False, repr=False)
class _Batch(Generic[P]):
    """One `send`: its channel, message, source and context, and what it did so far."""

    channel: Channel[P]
    message: Doc
    source: tuple[str, int]
    ctx: Context
    sent: Sent


def send(channel: Channel[P], message: Doc, contact_ids: Sequence[int], source: tuple[str, int], ctx: Context) -> Sent:
    """Send the message to the contacts, each at most once, a chunk at a time; stops after a chunk
    that met SendLater (the contacts left have no outcome: the batch's next delivery sends them)."""
    batch = _Batch(channel, message, source, ctx, Sent())
    for start in range(0, len(contact_ids), CHUNK):
        _chunk(batch, list(contact_ids[start : start + CHUNK]))
        if batch.sent.later is not None:
            break
    return batch.sent


def _chunk(batch: _Batch[P], ids: list[int]) -> None:
    """One chunk: the records and contacts read together, the exceptions settled one by one, the rest delivered."""
    batch.ctx.now = clock.now_iso()
    kind = batch.channel.record_kind(batch.message["id"])
    records = cast(dict[int, RecipientRecord], store.batch_get(kind, ids))
    fresh = [c for c in ids if not _known(batch, records.get(c), c)]
    contacts = store.batch_get(CONTACT.kind, fresh) if fresh else {}
    ready = [c for c in fresh if not _checked(batch, records.get(c), contacts.get(c), c)]
    if ready:
        _deliver(batch, [(c, records.get(c), contacts[c]) for c in ready])


def _later(sent: Sent, contact_id: int, run: Callable[[], str | None]) -> bool:
    """run()'s outcome noted for the contact (None: none, False); SendLater noted on `sent` (True)."""
    try:
        outcome = run()
    except recipients.SendLater as later:
        sent.later = later
        return True
    if outcome is not None:
        sent.outcomes[contact_id] = outcome
    return outcome is not None


def _known(batch: _Batch[P], record: RecipientRecord | None, contact_id: int) -> bool:
    """Whether the contact was handled already, as its record says (its outcome noted)."""
    if record is None:
        return False
    return _later(batch.sent, contact_id, lambda: batch.channel.known(batch.message, record))


def _checked(batch: _Batch[P], record: RecipientRecord | None, contact: Doc | None, contact_id: int) -> bool:
    """Whether the message may not go to the contact now (skipped, or held back by its frequency
    rule), its outcome settled; False when it is to be sent."""
    channel, message = batch.channel, batch.message
    reason = channel.refusal(message, contact, batch.ctx.now)
    if reason is not None:
        return _later(batch.sent, contact_id, lambda: channel.settle(message, record, contact_id, "skipped", reason))
    held = channel.held(message, record, cast(Doc, contact), batch.source, batch.ctx)
    return held is not None and _later(batch.sent, contact_id, held)


def _deliver(batch: _Batch[P], ready: list[tuple[int, RecipientRecord | None, Doc]]) -> None:
    """Render, take the chunk's send-rate numbers, claim and send in the pool, then store what went out."""
    channel = batch.channel
    deliveries = [
        Delivery(c, contact, channel.prepare(batch.message, contact, batch.ctx), r) for c, r, contact in ready
    ]
    moments = window_counters.acquire_many(channel.name, channel.rate(), len(deliveries))
    stop = threading.Event()
    pooled(lambda pair: _claim_and_send(batch, *pair, stop), zip(deliveries, moments, strict=True))
    accepted = [d for d in deliveries if d.message_id is not None]
    try:
        if accepted:
            _store_sent(batch, accepted)
    finally:  # a claimed contact the provider did not take is settled (`retry`) whatever happened to the others
        for delivery in deliveries:
            if delivery.error is not None:
                _settle_error(batch, delivery)


def _claim_and_send(batch: _Batch[P], delivery: Delivery[P], moment: float, stop: threading.Event) -> None:
    """Claim the contact's record, then hand its message to the provider (errors kept on the delivery).
    Once the provider or AWS was unavailable (or a send failed unexpectedly) no other message of the
    chunk starts: those left untouched are sent by the batch's next delivery."""
    if stop.is_set():
        return
    channel = batch.channel
    try:
        delivery.claimed = channel.claim(batch.message, delivery.record, delivery.contact_id, delivery.prepared)
        delivery.message_id = channel.hand_over(delivery.prepared, moment)
    except (recipients.SendLater, failures.Rejected) as error:
        delivery.error = error
    except Exception as error:
        stop.set()
        if not isinstance(error, failures.Unavailable) and not outages.unavailable(error):
            raise
        delivery.error = error


def _settle_error(batch: _Batch[P], delivery: Delivery[P]) -> None:
    """A contact whose claim or send failed: another worker holds it (SendLater), the provider refused
    it (`failed`, its failed event), or the provider was unavailable (`retry`, then SendLater)."""
    error, contact_id, channel, message = delivery.error, delivery.contact_id, batch.channel, batch.message
    if isinstance(error, recipients.SendLater):
        batch.sent.later = error
    elif isinstance(error, failures.Rejected):
        channel.refused(message, contact_id, error, batch.ctx)
        batch.sent.outcomes[contact_id] = channel.settle(message, delivery.claimed, contact_id, "failed", str(error))
    else:
        failure, claimed = str(error), delivery.claimed or delivery.record
        recipients.persisting(lambda: channel.settle(message, claimed, contact_id, "retry", failure))
        batch.sent.later = recipients.SendLater(failure)


def _store_sent(batch: _Batch[P], accepted: list[Delivery[P]]) -> None:
    """The accepted messages' send records (and notes) and `sent` records in BatchWriteItems, then
    their counts and each contact's sent event. AWS failing the records: each contact is still settled
    `sent` (it got the message) without its send record, as `recipients.settle_sent` does."""
    channel, source = batch.channel, batch.source
    stats = [channel.send_record(d.prepared, cast(str, d.message_id), source) for d in accepted]
    kind = channel.record_kind(batch.message["id"])
    settled = [(kind, cast(Doc, _sent_record(cast(RecipientRecord, d.claimed), None))) for d in accepted]
    try:
        _put_all(channel.stored(stats) + settled)
    except Exception as error:
        if not outages.unavailable(error):
            raise
        reason = f"Sent; its send record was not stored: {error}"
        kept = [(kind, cast(Doc, _sent_record(cast(RecipientRecord, d.claimed), reason))) for d in accepted]
        recipients.persisting(lambda: store.put_many(kept))
        batch.sent.outcomes.update({d.contact_id: "sent" for d in accepted})
        return
    pooled(lambda count: sending.after_accepted(*count), channel.counts(stats))
    observe.metrics({"Outcome": "sent"}, **{channel.metric: len(accepted)})
    batch.sent.outcomes.update({d.contact_id: "sent" for d in accepted})
    events = [(d.contact, channel.event(d.prepared, stat, source)) for d, stat in zip(accepted, stats, strict=True)]
    sent_events.write(events, batch.ctx)


def _put_all(items: list[tuple[str, Doc]]) -> None:
    """Write the items, a BatchWriteItem of 25 each, the calls at once (one round trip)."""
    pooled(store.put_many, [items[i : i + BATCH_WRITE] for i in range(0, len(items), BATCH_WRITE)])


def _sent_record(claimed: RecipientRecord, reason: str | None) -> RecipientRecord:
    """The claimed record settled `sent` (written unconditionally: this worker holds the claim)."""
    return cast(RecipientRecord, dict(claimed, status="sent", reason=reason, updatedAt=clock.now_iso()))
