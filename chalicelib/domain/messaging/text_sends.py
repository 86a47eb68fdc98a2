"""A text message's sends to segment members (broadcasts, domain/messaging/broadcasts.py) in batches:
its part in `send_batches.py`, the machinery of an email's segment sends, each contact at most once.

Its record `smssend#<sms id>` / <contact id> (the shape of an email's, `recipients.put`) is claimed
`sending` by a conditional write before SNS is called, then settles `sent`, `skipped` (do-not-contact
on `sms`, no mobile number, unpublished, deleted, still capped after frequency_caps.ATTEMPTS tries),
`failed` (SNS refused it: `sms.failed` on the contact), `retry` (SNS unavailable: SendLater, SQS
delivers the batch again) or `deferred` (the contact's frequency rule on `sms` caps it: a due item
wakes it one DAY/WEEK/MONTH later, `text_deferrals.py`, as Mautic's `processFrequencyRules('sms')`
queues it). A record left `sending` by a crash is never sent again: at most once, as Mautic's
`sms_message_stats` row makes it; it settles `sent` when its send record exists, else `unknown` once
older than recipients.STUCK_SECONDS (a `text-stuck` message, queued that long after the batch met
it, looks again). The sends go at SMS_SEND_RATE (the account's SNS text-message rate, all workers).
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import cast

from chalicelib import config, observe
from chalicelib.domain.contacts import frequency_rules
from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import email_stats, frequency_caps, recipients, send_batches, sending
from chalicelib.domain.messaging.declarations import SMS
from chalicelib.domain.messaging.records import RecipientRecord, SmsRecord
from chalicelib.domain.messaging.send_batches import Counts
from chalicelib.domain.messaging.sent_events import EventOf
from chalicelib.ports import queues
from chalicelib.ports import sms as sms_channel
from chalicelib.store import port as store
from chalicelib.store.port import EntityId

FINAL = ("sent", "skipped", "failed", "unknown")  # a contact with one of these is not sent to again
REACHED = (*FINAL, "sending", "deferred")  # contacts a broadcast walk leaves out
STUCK = "text-stuck"  # the `sends` message that settles records left `sending` (`settle_stuck`)


def record_kind(sms_id: EntityId) -> str:
    """The per-contact records of one text message's segment sends."""
    return f"smssend#{int(sms_id)}"


def pending(sms_id: EntityId, contact_ids: list[int]) -> list[int]:
    """The contacts of `contact_ids` this text message has not reached (1 BatchGetItem per 100, several at once)."""
    records = send_batches.records(record_kind(sms_id), contact_ids)
    return [c for c in contact_ids if (records.get(c) or {}).get("status") not in REACHED]


@dataclass(eq=False, repr=False)
class Text:
    """A text message rendered for one contact, with its send record's id and number."""

    message: Doc
    contact: Doc
    stat_id: int
    number: str
    content: str
    sent_at: str = ""


class TextChannel:
    """The text message's side of `send_batches.Channel`."""

    name = "sms"
    metric = "TextSends"

    def record_kind(self, message_id: int) -> str:
        """`smssend#<sms id>`."""
        return record_kind(message_id)

    def rate(self) -> float:
        """The account's SNS text-message rate."""
        return config.active().SMS_SEND_RATE

    def known(self, message: Doc, record: RecipientRecord) -> str | None:
        """A final record's status; one left `sending` settled now if it can be (`interrupted`: never
        sent again); a deferred one until it is due (then it is sent, unless capped still)."""
        status = record.get("status")
        if status == "sending":
            return interrupted(message, record)
        if status == "deferred":
            return "deferred" if clock.parse(record.get("dueAt") or clock.now_iso()) > clock.now() else None
        return str(status) if status in FINAL else None

    def refusal(self, message: Doc, contact: Doc | None, now: str) -> str | None:
        """Why the text message is not sent to the contact, or None."""
        if contact is None:
            return "The contact was deleted."
        return sending.sms_refusal(message, contact, now)

    def held(
        self, message: Doc, record: RecipientRecord | None, contact: Doc, source: tuple[str, int], ctx: Context
    ) -> Callable[[], str] | None:
        """The send deferred when the contact's frequency rule on `sms` caps it now (one period after
        the last due time for a deferred one, skipped after frequency_caps.ATTEMPTS tries)."""
        time = frequency_caps.capped(contact, ctx.now, "sms")
        if time is None:
            return None
        waiting = record if record is not None and record.get("status") == "deferred" else None
        attempts = int(waiting.get("queueAttempts") or 0) + 1 if waiting else 0
        if attempts >= frequency_caps.ATTEMPTS:
            why = f"Frequency cap: not sent after {attempts} attempts."
            return lambda: self.settle(message, record, contact["id"], "skipped", why)
        after = waiting.get("dueAt") if waiting else None
        return lambda: _defer(message, record, contact, time, (list(source), attempts, after), ctx)

    def prepare(self, message: Doc, contact: Doc, ctx: Context) -> Text:
        """The text rendered for the contact, its number and its send record's id."""
        content = sending.sms_text(message, contact, ctx)
        stat_id = email_stats.allocate("sms", message["id"])[0]
        return Text(message, contact, stat_id, sending.number_of(contact) or "", content)

    def claim(self, message: Doc, record: RecipientRecord | None, contact_id: int, prepared: Text) -> RecipientRecord:
        """The record claimed `sending` with the send record's id."""
        return recipients.put(
            record_kind(message["id"]), record, recipients.claimed(record, contact_id, prepared.stat_id)
        )

    def settle(
        self, message: Doc, record: RecipientRecord | None, contact_id: int, status: str, reason: str | None
    ) -> str:
        """The record settled with its outcome, which is its status."""
        recipients.put(record_kind(message["id"]), record, recipients.settled(record, contact_id, status, reason))
        observe.metrics({"Outcome": status}, TextSends=1)
        return status

    def hand_over(self, prepared: Text, moment: float) -> str:
        """SNS's call (`dateSent`: when the rate let it through)."""
        prepared.sent_at = clock.iso(datetime.fromtimestamp(moment, tz=timezone.utc))
        return sms_channel.send(prepared.number, prepared.content)

    def refused(self, message: Doc, contact_id: int, error: Exception, ctx: Context) -> None:
        """`sms.failed` on the contact's timeline."""
        sending.record_failed("sms", message["id"], contact_id, str(error), ctx)

    def send_record(self, prepared: Text, message_id: str, source: tuple[str, int]) -> Doc:
        """The text message's send record (`smsstat#<sms>`)."""
        stat = sending.sms_record(
            prepared.message, prepared.contact, prepared.stat_id, message_id, prepared.sent_at, source
        )
        return cast(Doc, stat)

    def stored(self, stats: list[Doc]) -> list[tuple[str, Doc]]:
        """The send records."""
        return [(email_stats.kind("sms", cast(SmsRecord, s)["sms"]["id"]), s) for s in stats]

    def counts(self, stats: list[Doc]) -> Counts:
        """The text message's sentCount, once for the chunk (its stats are of one message)."""
        counter = email_stats.sent_counter("sms", stats[0]["sms"]["id"])
        return [(lambda: store.add(counter, len(stats)), "the text message's sent count")]

    def event(self, prepared: Text, stat: Doc, source: tuple[str, int]) -> EventOf:
        """`sms.sent`."""
        build = sending.sms_sent(prepared.message, prepared.stat_id, prepared.content)
        return lambda ctx: build


TEXT = TextChannel()


def _defer(
    message: Doc,
    record: RecipientRecord | None,
    contact: Doc,
    time: str,
    due: tuple[list[JSON], int, str | None],
    ctx: Context,
) -> str:
    """The contact's send waits one `time` after now (or after its last due time): a due item and
    `message.queue` (frequency_caps.defer), then its record says `deferred` and names the item."""
    source, attempts, after = due
    at = frequency_rules.shifted(clock.parse(after or ctx.now), time)
    number, per = frequency_rules.cap(contact, "sms") or (0, time)
    item = frequency_caps.defer(message, contact["id"], at, source, attempts, ctx, "sms")
    base = {k: v for k, v in (record or {"attempts": 0, "statId": None}).items() if k != "_rev"}
    reason = f"Frequency cap: {number} text message(s) per {per}; due {item['dueAt']}"
    doc = dict(base, id=contact["id"], status="deferred", reason=reason, updatedAt=clock.now_iso())
    doc.update(due=item["id"], dueAt=item["dueAt"], source=source, queueAttempts=attempts)
    recipients.put(record_kind(message["id"]), record, cast(RecipientRecord, doc))
    observe.metrics({"Outcome": "deferred"}, TextSends=1)
    return "deferred"


def interrupted(message: Doc, record: RecipientRecord) -> str:
    """A record left `sending` (as `recipients.interrupted` settles an email's): `sent` if its send
    record exists (1 GetItem); `unknown` (never resent) once older than recipients.STUCK_SECONDS;
    else `sending`, left for `settle_stuck` (another worker may be sending it now)."""
    stat = record.get("statId")
    if stat is not None and email_stats.get("sms", message["id"], stat) is not None:
        return TEXT.settle(message, record, record["id"], "sent", None)
    if clock.parse(record["updatedAt"]) > clock.now() - timedelta(seconds=recipients.STUCK_SECONDS):
        return "sending"
    return TEXT.settle(message, record, record["id"], "unknown", "Interrupted while sending; not sent again.")


def look_again(sms_id: int, sent: send_batches.Sent) -> None:
    """Queue a `text-stuck` message for the contacts the batch left `sending`, due when they are stuck."""
    stuck = [contact for contact, outcome in sent.outcomes.items() if outcome == "sending"]
    if stuck:
        body = {"type": STUCK, "sms": sms_id, "contacts": stuck}
        queues.send(recipients.QUEUE, [body], delay=min(recipients.STUCK_SECONDS, queues.MAX_DELAY))


def settle_stuck(sms: int, contacts: list[int]) -> None:
    """The `text-stuck` message: settle the contacts' records still `sending` (`interrupted`); those
    still fresh (claimed again meanwhile) are looked at again later."""
    message = store.get(SMS.kind, sms)
    if message is None:
        return
    records = cast(dict[int, RecipientRecord], store.batch_get(record_kind(sms), contacts))
    sent = send_batches.Sent()
    for contact, record in records.items():
        if record.get("status") == "sending":
            sent.outcomes[contact] = interrupted(message, record)
    look_again(sms, sent)
