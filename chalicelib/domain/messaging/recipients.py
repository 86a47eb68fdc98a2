"""A contact's record of one email's marketing sends (`emailsend#<email id>` / <contact id>) and its
moves, shared by segment sends (`email_sends.py`) and deferred sends (`deferred_sends.py`).

The record is claimed as `sending` by a conditional write before SES is called and settles as
`sent`, `skipped`, `failed`, `retry`, `paused`, `deferred` or `unknown` (docs/email.md). A write that
finds the record changed under it raises SendLater, which leaves the message to SQS's retry. A
record left `sending` by a crash is `sent` if its send record exists, else, once it is older than
STUCK_SECONDS, `unknown`: it may have gone out, so it is never sent again.
"""

import logging
import time
from collections.abc import Callable
from datetime import timedelta
from typing import cast

from chalicelib import observe
from chalicelib.domain.kernel import clock, retries
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import email_stats, sending
from chalicelib.domain.messaging.records import RecipientRecord
from chalicelib.ports import mail, outages
from chalicelib.store import port as store
from chalicelib.store.port import EntityId

QUEUE = "sends"  # segment-send plans and batches, point-trigger emails, deferred sends
PERSIST_TRIES = 3  # tries of a write no later retry repairs: `retry` records, a plan's batches
STUCK_SECONDS = 900  # longer than a worker may run: a `sending` record this old was interrupted
OUTCOME = {"sent": "sent", "skipped": "skipped", "failed": "failed", "unknown": "failed", "deferred": "deferred"}
REACHED = ("sent", "sending", "unknown", "deferred")  # contacts a new run leaves out
log = logging.getLogger(__name__)


class SendLater(Exception):
    """The batch cannot finish now (SES unavailable, a contact held by another worker): SQS retries it."""


def record_kind(email_id: EntityId) -> str:
    """The kind of the per-contact records of one email's segment sends."""
    return f"emailsend#{int(email_id)}"


def put(kind: str, record: RecipientRecord | None, doc: RecipientRecord) -> RecipientRecord:
    """Create or conditionally replace a contact's record of `kind` (one conditional PutItem, no count:
    nothing reads the number of records); SendLater when another worker got there first. Email and
    text-message records alike (`text_sends.py`)."""
    if record is not None:
        doc["_rev"] = record["_rev"]
    try:
        store.put_if(kind, cast(Doc, doc))
    except (store.Conflict, store.Stale):
        raise SendLater(f"contact {doc['id']} changed under this worker") from None
    return doc


def write(email: Doc, record: RecipientRecord | None, doc: RecipientRecord) -> RecipientRecord:
    """Create or conditionally replace a contact's record of the email's sends (`put`)."""
    return put(record_kind(email["id"]), record, doc)


def claimed(record: RecipientRecord | None, contact_id: int, stat_id: int) -> RecipientRecord:
    """The contact's record as `sending` (one more attempt, what it kept: a deferred send's due item, source)."""
    attempts = int((record.get("attempts") if record else 0) or 0) + 1
    kept = {k: v for k, v in (record or {}).items() if k != "_rev"}
    claimed = dict(kept, id=contact_id, status="sending", statId=stat_id, attempts=attempts, reason=None)
    return cast(RecipientRecord, dict(claimed, updatedAt=clock.now_iso()))


def claim(email: Doc, record: RecipientRecord | None, contact_id: int, stat_id: int) -> RecipientRecord:
    """The contact's record as `sending` (one more attempt), before SES is called."""
    return write(email, record, claimed(record, contact_id, stat_id))


def settled(record: RecipientRecord | None, contact_id: int, status: str, reason: str | None) -> RecipientRecord:
    """The contact's record with its outcome (not written)."""
    base = {k: v for k, v in (record or {"attempts": 0, "statId": None}).items() if k != "_rev"}
    return cast(RecipientRecord, dict(base, id=contact_id, status=status, reason=reason, updatedAt=clock.now_iso()))


def settle(email: Doc, record: RecipientRecord | None, contact_id: int, status: str, reason: str | None) -> str:
    """The contact's record with its outcome; the outcome a run counts."""
    write(email, record, settled(record, contact_id, status, reason))
    observe.metrics({"Outcome": status}, EmailSends=1)  # sent, failed, skipped, retry, unknown
    return OUTCOME.get(status, status)


def settle_sent(
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
        if not outages.unavailable(error):
            raise
        log.warning("email %s sent to contact %s, its send record not stored: %s", email["id"], record["id"], error)
        return settle(email, record, record["id"], "sent", f"Sent; its send record was not stored: {error}")
    return settle(email, record, record["id"], "sent", None)


def interrupted(email: Doc, record: RecipientRecord) -> str:
    """A record left `sending`: sent if its send record exists; unknown (never resent) once stuck."""
    if record["statId"] is not None and email_stats.get("email", email["id"], record["statId"]) is not None:
        return settle(email, record, record["id"], "sent", None)
    if clock.parse(record["updatedAt"]) > clock.now() - timedelta(seconds=STUCK_SECONDS):
        raise SendLater(f"contact {record['id']} is being sent to by another worker")
    return settle(email, record, record["id"], "unknown", "Interrupted while sending; not sent again.")


def deliver(
    email: Doc, record: RecipientRecord | None, contact: Doc, source: sending.Source, ctx: Context, waiting: str
) -> str:
    """Claim the contact's record, hand the message to SES and settle the outcome: `failed` when SES
    refuses it, `sent` when it takes it. SES (or the send rate's counter) unavailable: the record says
    `waiting` (`retry` for a segment send's batch, `deferred` for a deferred send), a write tried a few
    times since a record left `sending` is never sent again (docs/reliability.md), and SendLater
    leaves the message to SQS's retry."""
    prepared = sending.prepare(email, contact, ctx)
    claimed = claim(email, record, contact["id"], prepared.stat_id)
    try:
        message_id = sending.deliver(prepared)
    except mail.Rejected as error:
        sending.refused(email["id"], contact["id"], error, ctx)
        return settle(email, claimed, contact["id"], "failed", str(error))
    except Exception as error:
        if not isinstance(error, mail.Unavailable) and not outages.unavailable(error):
            raise
        failure = str(error)
        persisting(lambda: settle(email, claimed, contact["id"], waiting, failure))
        raise SendLater(failure) from None
    return settle_sent(email, claimed, prepared, message_id, source, ctx)


def persisting(operation: Callable[[], object]) -> None:
    """operation(), tried again (PERSIST_TRIES in all, short jittered pauses) while AWS is
    unavailable: for the writes whose loss no later retry can repair."""
    for attempt in range(PERSIST_TRIES):
        try:
            operation()
            return
        except Exception as failure:
            if not outages.unavailable(failure) or attempt == PERSIST_TRIES - 1:
                raise
            time.sleep(retries.backoff(attempt + 3))
