"""Text messages a contact's frequency rule on `sms` held back, sent when their due item falls due
(`deferred_sends.deferred` hands items naming an `sms` here), as Mautic's message queue sends them
again through `SmsModel::sendSms` (SmsBundle's MessageQueueSubscriber).

A broadcast's contact (its `smssend#` record says `deferred` and names the item) goes through the
batch machinery alone (`send_batches.send` over `text_sends.TEXT`: sent at most once, deferred again
while capped, skipped after frequency_caps.ATTEMPTS tries). A single send (the API's, an
automation's: the item says `direct`) is sent again by `sending.send_sms` with its tries so far; SNS
unavailable leaves the item to SQS's retry.
"""

from typing import cast

from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import recipients, send_batches, sending, text_sends
from chalicelib.domain.messaging.declarations import SMS
from chalicelib.domain.messaging.records import RecipientRecord
from chalicelib.store import port as store


def deferred(item: Doc) -> None:
    """Send the text message of a due item that fell due (its caller drops the item afterwards)."""
    ctx = Context()
    ctx.now = clock.now_iso()
    if item.get("direct"):
        _direct(item, ctx)
        return
    message = store.get(SMS.kind, item["sms"])
    record = cast(RecipientRecord | None, store.get(text_sends.record_kind(item["sms"]), item["contact"]))
    if message is None or record is None or record.get("due") != item["id"]:
        return  # an orphan: the record moved on (or the message or its record were erased)
    if record.get("status") not in ("deferred", "sending"):
        return
    source = tuple(record.get("source") or ("broadcast", message["id"]))
    sent = send_batches.send(text_sends.TEXT, message, [item["contact"]], (str(source[0]), int(source[1])), ctx)
    text_sends.look_again(message["id"], sent)
    if sent.later is not None:
        raise sent.later


def _direct(item: Doc, ctx: Context) -> None:
    """A single send's next try (`sending.send_sms`: sent, queued again while capped, or given up)."""
    tries = int(item.get("attempts") or 0) + 1
    try:
        outcome = sending.send_sms(item["sms"], item["contact"], ctx, item.get("source"), tries, item["dueAt"])
    except NotFound:
        return  # the message or the contact was deleted meanwhile
    if outcome.get("retryable"):
        raise recipients.SendLater(str(outcome.get("reason")))
