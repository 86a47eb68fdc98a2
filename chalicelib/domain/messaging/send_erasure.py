"""What messaging keeps of an erased contact (domain/contacts/erasure.py): its send records (emails and
text messages) stay, so the counts still add up, but without the contact, its address or number, the
tracking hash or what was rendered for it; the SES message-id notes that lead to them go, and so do
its segment-send and broadcast rows (emails and text messages) and its deferred sends (frequency caps);
on the local stage, the outbox's copies of what it was sent.
"""

from chalicelib.domain.contacts import erasure
from chalicelib.domain.kernel import due_items
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import broadcast_index, email_runs, email_stats, frequency_caps, text_sends
from chalicelib.domain.messaging.recipients import record_kind
from chalicelib.ports import mail
from chalicelib.ports import sms as sms_channel
from chalicelib.store import port as store

# What an anonymised send record keeps: its ids, dates, source and what happened to it (counts).
KEPT = (
    "id",
    "email",
    "dateSent",
    "isRead",
    "isFailed",
    "dateRead",
    "retryCount",
    "source",
    "sourceId",
    "openCount",
    "lastOpened",
    "viewedInBrowser",
    "clickCount",
    "replied",
    "contentHash",
    "folded",  # counted already by the retention sweep (send_retention.py): never again
)


def _stat_refs(job: Doc) -> set[tuple[int, int]]:
    """(email id, stat id) of the send records the erased contact's events name."""
    refs = set()
    for event in erasure.events(job, *EMAIL_EVENTS):
        details = event.get("details") or {}
        if details.get("emailId") and details.get("statId"):
            refs.add((int(details["emailId"]), int(details["statId"])))
    return refs


EMAIL_EVENTS = ("email.sent", "email.failed", "email.read", "email.replied", "email.bounced", "page.hit")


def anonymise_sends(job: Doc) -> None:
    """Erasure step: each send record of the contact keeps only `KEPT` (one GetItem and one UpdateItem
    each, none for one already anonymised), and its SES message-id note goes (one DeleteItem)."""
    for email_id, stat_id in sorted(_stat_refs(job)):
        kind = email_stats.kind("email", email_id)
        stat = store.get(kind, stat_id)
        if stat is None or "lead" not in stat:
            continue
        if stat.get("messageId"):
            key = email_stats.message_key(stat["messageId"])
            store.remove(email_stats.message_kind(key), key)
        store.put(kind, {k: v for k, v in stat.items() if k in KEPT or k.startswith("_")})


SMS_KEPT = ("id", "sms", "dateSent", "source", "sourceId")


def anonymise_texts(job: Doc) -> None:
    """Erasure step: the contact's text-message send records keep `SMS_KEPT`. No event names them, so
    each text message it was sent (its `sms.sent` events) has its records read (1 Query per MB of that
    message's sends) and the contact's rewritten (1 UpdateItem each)."""
    sms_ids = {
        int(e["details"]["smsId"]) for e in erasure.events(job, "sms.sent") if (e.get("details") or {}).get("smsId")
    }
    for sms_id in sorted(sms_ids):
        kind = email_stats.kind("sms", sms_id)
        for stat in list(store.iterate(kind)):
            if (stat.get("lead") or {}).get("id") == job["id"]:
                store.put(kind, {k: v for k, v in stat.items() if k in SMS_KEPT or k.startswith("_")})


def forget_segment_sends(job: Doc) -> None:
    """Erasure step: the contact's rows of segment sends and broadcasts (`emailsend#<email>`/<contact>,
    `smssend#<sms>`/<contact>), sent or not: one Query each of the runs and of the broadcast cursors
    (an item per message ever sent to segments) and one DeleteItem per message."""
    emails = {run["id"] for run in store.iterate(email_runs.KIND)}
    emails |= {state["id"] for state in store.iterate(broadcast_index.state_kind("email"))}
    for email_id in sorted(emails):
        store.remove(record_kind(email_id), job["id"])
    for state in list(store.iterate(broadcast_index.state_kind("sms"))):
        store.remove(text_sends.record_kind(state["id"]), job["id"])


def forget_deferred_sends(job: Doc) -> None:
    """Erasure step: the contact's deferred sends, found through its `message.queue` events: each
    email's record (1 GetItem; it names the latest due item) and every due item named (1 DeleteItem
    each), then the record (1 DeleteItem); a text message's due items (its records go with the
    segment sends')."""
    named: dict[int, set[int]] = {}
    for event in erasure.events(job, frequency_caps.QUEUED):
        details = event.get("details") or {}
        if details.get("emailId") and details.get("due"):
            named.setdefault(int(details["emailId"]), set()).add(int(details["due"]))
        elif details.get("smsId") and details.get("due"):
            store.remove(due_items.due_kind(job["id"]), int(details["due"]))
    for email_id, dues in sorted(named.items()):
        record = store.get(record_kind(email_id), job["id"])
        for due in sorted(dues | ({int(record["due"])} if record and record.get("due") else set())):
            store.remove(due_items.due_kind(job["id"]), due)
        if record is not None:
            store.remove(record_kind(email_id), job["id"])


def forget_outbox(job: Doc) -> None:
    """Erasure step: the local outbox's copies of the emails and text messages sent to the contact's
    address and numbers (local stage only; no DynamoDB call)."""
    values = (job.get("contact") or {}).get("values") or {}
    numbers = (sms_channel.e164(values.get(name)) for name in ("mobile", "phone"))
    mail.erase_copies([str(values.get("email") or ""), *(number or "" for number in numbers)])
