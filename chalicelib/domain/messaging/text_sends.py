"""A text message's sends to segment members (broadcasts, domain/messaging/broadcasts.py), each
contact at most once: its record `smssend#<sms id>` / <contact id> is claimed `sending` by a
conditional write before SNS is called, then settles `sent`, `skipped` (do-not-contact on `sms`, no
mobile number, unpublished), `failed` (SNS refused it) or `retry` (SNS unavailable: SendLater, SQS
delivers the batch again). A record left `sending` by a crash is never sent again: at most once,
as Mautic's `sms_message_stats` row makes it."""

from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import clock, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import sending
from chalicelib.domain.messaging.recipients import SendLater
from chalicelib.store import port as store
from chalicelib.store.port import EntityId

FINAL = ("sent", "sending", "skipped", "failed")  # a contact with one of these is not sent to again


def record_kind(sms_id: EntityId) -> str:
    """The per-contact records of one text message's segment sends."""
    return f"smssend#{int(sms_id)}"


def pending(sms_id: EntityId, contact_ids: list[int]) -> list[int]:
    """The contacts of `contact_ids` this text message has not reached (1 BatchGetItem per 100)."""
    records = store.batch_get(record_kind(sms_id), contact_ids) if contact_ids else {}
    return [c for c in contact_ids if (records.get(c) or {}).get("status") not in FINAL]


def _write(sms_id: int, record: Doc | None, contact_id: int, status: str, reason: str | None) -> Doc:
    """Create or conditionally replace the contact's record; SendLater when another worker got there."""
    doc: Doc = {"id": contact_id, "status": status, "reason": reason, "updatedAt": clock.now_iso()}
    try:
        if record is None:
            store.create(record_kind(sms_id), doc)
        else:
            doc["_rev"] = record["_rev"]
            store.replace(record_kind(sms_id), doc)
    except (store.Conflict, store.Stale):
        raise SendLater(f"contact {contact_id} changed under this worker") from None
    return doc  # the store set its `_rev`


def send_once(message: Doc, contact_id: int, source: tuple[str, int], ctx: Context) -> str:
    """Send the text message to one contact unless its record says it was handled; the outcome."""
    record = store.get(record_kind(message["id"]), contact_id)
    if record and record.get("status") in FINAL:
        return str(record["status"])
    try:
        contact = service.load(CONTACT, contact_id)
    except NotFound:
        return _settle(message["id"], record, contact_id, "skipped", "The contact was deleted.")
    reason = sending.sms_refusal(message, contact, ctx.now)
    if reason:
        return _settle(message["id"], record, contact_id, "skipped", reason)
    claimed = _write(message["id"], record, contact_id, "sending", None)
    outcome = sending.send_sms(message["id"], contact_id, ctx, source=source)
    if outcome["success"]:
        return _settle(message["id"], claimed, contact_id, "sent", None)
    if outcome["retryable"]:
        _settle(message["id"], claimed, contact_id, "retry", outcome["reason"])
        raise SendLater(outcome["reason"])
    return _settle(message["id"], claimed, contact_id, "failed", outcome["reason"])


def _settle(sms_id: int, record: Doc | None, contact_id: int, status: str, reason: str | None) -> str:
    _write(sms_id, record, contact_id, status, reason)
    return status
