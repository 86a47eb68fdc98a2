"""An email's part in a batch of sends (`send_batches.py`): `email_sends.send_once`'s checks and
outcomes. Its records are `emailsend#<email>` (`recipients.py`), the rate is EMAIL_SEND_RATE (SES's),
a contact's frequency rule defers the send (`deferred_sends.py`), SES refusing a suppressed address
makes the contact do-not-contact, and a chunk's sends count in the email's sentCount and the
reputation guard's day."""

from collections.abc import Callable
from typing import cast

from chalicelib import config
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import deferred_sends, email_stats, frequency_caps, recipients, reputation, sending
from chalicelib.domain.messaging.records import RecipientRecord, SendRecord
from chalicelib.domain.messaging.send_batches import Counts
from chalicelib.domain.messaging.sent_events import EventOf


class EmailChannel:
    """The email's side of `send_batches.Channel`."""

    name = "email"
    metric = "EmailSends"

    def record_kind(self, message_id: int) -> str:
        """`emailsend#<email id>`."""
        return recipients.record_kind(message_id)

    def rate(self) -> float:
        """SES's send rate."""
        return config.active().EMAIL_SEND_RATE

    def known(self, message: Doc, record: RecipientRecord) -> str | None:
        """A final record's outcome; one left `sending` settled as `recipients.interrupted` says."""
        status = record.get("status")
        if status in recipients.OUTCOME:
            return recipients.OUTCOME[str(status)]
        return recipients.interrupted(message, record) if status == "sending" else None

    def refusal(self, message: Doc, contact: Doc | None, now: str) -> str | None:
        """Why the email is not sent to the contact at all (`send_once`'s order), or None."""
        if message.get("emailType") != "list":
            return "A template email is not sent to segments."
        if contact is None:
            return "The contact was deleted."
        return sending.refusal(message, contact, False, now) or sending.category_refusal(message, contact)

    def held(
        self, message: Doc, record: RecipientRecord | None, contact: Doc, source: tuple[str, int], ctx: Context
    ) -> Callable[[], str] | None:
        """The send deferred when the contact's frequency rule caps it now."""
        capped = frequency_caps.capped(contact, ctx.now)
        if capped is None:
            return None
        return lambda: deferred_sends.defer(message, record, contact, capped, list(source), ctx)

    def prepare(self, message: Doc, contact: Doc, ctx: Context) -> sending.Prepared:
        """The version of the email the contact gets, rendered."""
        return sending.prepare(message, contact, ctx)

    def claim(
        self, message: Doc, record: RecipientRecord | None, contact_id: int, prepared: sending.Prepared
    ) -> RecipientRecord:
        """The record claimed `sending` with the send record's id."""
        return recipients.claim(message, record, contact_id, prepared.stat_id)

    def settle(
        self, message: Doc, record: RecipientRecord | None, contact_id: int, status: str, reason: str | None
    ) -> str:
        """The record settled (`recipients.settle`)."""
        return recipients.settle(message, record, contact_id, status, reason)

    def hand_over(self, prepared: sending.Prepared, moment: float) -> str:
        """SES's call."""
        return sending.hand_over(prepared, moment)

    def refused(self, message: Doc, contact_id: int, error: Exception, ctx: Context) -> None:
        """`email.failed`, and do-not-contact for a suppressed address."""
        sending.refused(message["id"], contact_id, error, ctx)

    def send_record(self, prepared: sending.Prepared, message_id: str, source: tuple[str, int]) -> Doc:
        """The email's send record (`emailstat#<email>`)."""
        return cast(Doc, sending.send_record(prepared, message_id, source))

    def stored(self, stats: list[Doc]) -> list[tuple[str, Doc]]:
        """The send records and their SES message-id notes."""
        records = cast(list[SendRecord], stats)
        return email_stats.stored_many(records) + [email_stats.note(s["messageId"], s["trackingHash"]) for s in records]

    def counts(self, stats: list[Doc]) -> Counts:
        """The email's (and variants') sentCount and the reputation guard's day."""
        return [
            (lambda: email_stats.count_many(cast(list[SendRecord], stats)), "the email's sent count"),
            (lambda: reputation.count("sent", len(stats)), "the reputation guard's count"),
        ]

    def event(self, prepared: sending.Prepared, stat: Doc, source: tuple[str, int]) -> EventOf:
        """`email.sent` and the points of `email.send`."""
        return lambda ctx: sending.sent_event(cast(SendRecord, stat), source, ctx)


EMAIL = EmailChannel()
