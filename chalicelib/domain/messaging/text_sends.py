"""A text message's sends to segment members (broadcasts, domain/messaging/broadcasts.py) in batches:
its part in `send_batches.py`, the machinery of an email's segment sends, each contact at most once.

Its record `smssend#<sms id>` / <contact id> (the shape of an email's, `recipients.put`) is claimed
`sending` by a conditional write before SNS is called, then settles `sent`, `skipped` (do-not-contact
on `sms`, no mobile number, unpublished, deleted), `failed` (SNS refused it: `sms.failed` on the
contact) or `retry` (SNS unavailable: SendLater, SQS delivers the batch again). A record left
`sending` by a crash is never sent again: at most once, as Mautic's `sms_message_stats` row makes it.
The sends go at SMS_SEND_RATE (the account's SNS text-message rate, all workers together); contacts'
frequency rules are not applied to text messages (as before batches: `frequency_caps` caps email).
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import cast

from chalicelib import config, observe
from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import email_stats, recipients, send_batches, sending
from chalicelib.domain.messaging.records import RecipientRecord, SmsRecord
from chalicelib.domain.messaging.send_batches import Counts
from chalicelib.domain.messaging.sent_events import EventOf
from chalicelib.ports import sms as sms_channel
from chalicelib.store import port as store
from chalicelib.store.port import EntityId

FINAL = ("sent", "sending", "skipped", "failed")  # a contact with one of these is not sent to again


def record_kind(sms_id: EntityId) -> str:
    """The per-contact records of one text message's segment sends."""
    return f"smssend#{int(sms_id)}"


def pending(sms_id: EntityId, contact_ids: list[int]) -> list[int]:
    """The contacts of `contact_ids` this text message has not reached (1 BatchGetItem per 100, several at once)."""
    records = send_batches.records(record_kind(sms_id), contact_ids)
    return [c for c in contact_ids if (records.get(c) or {}).get("status") not in FINAL]


@dataclass
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
        """A final record's status (one left `sending` included: never sent again)."""
        status = record.get("status")
        return str(status) if status in FINAL else None

    def refusal(self, message: Doc, contact: Doc | None, now: str) -> str | None:
        """Why the text message is not sent to the contact, or None."""
        if contact is None:
            return "The contact was deleted."
        return sending.sms_refusal(message, contact, now)

    def held(
        self, message: Doc, record: RecipientRecord | None, contact: Doc, source: tuple[str, int], ctx: Context
    ) -> Callable[[], str] | None:
        """Nothing holds a text message back (frequency rules cap email only)."""
        return None

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
