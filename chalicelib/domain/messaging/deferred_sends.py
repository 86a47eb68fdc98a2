"""Frequency caps (`frequency_caps.py`, Mautic's message queue): a segment send, or an automation's
marketing email (`send_marketing`), to a contact its own email rule caps is `deferred`: its record
(`recipients.py`) names the due item that wakes it one DAY/WEEK/MONTH later (`deferred`, from the
minute job), when it is sent unless still capped; then it waits one more period after its due time,
at most MAX_ATTEMPTS tries from the queue in all, after which it is `skipped`, as Mautic gives up.
"""

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import cast

from chalicelib import observe
from chalicelib.domain.contacts import frequency_rules
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import clock, due_items, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import frequency_caps, recipients, reputation, sending, text_deferrals
from chalicelib.domain.messaging.declarations import EMAIL
from chalicelib.domain.messaging.records import RecipientRecord, SendOutcome
from chalicelib.ports import queues
from chalicelib.store import port as store
from chalicelib.store.port import EntityId

MAX_ATTEMPTS = frequency_caps.ATTEMPTS  # tries of a deferred send from the queue
PAUSED_WAIT = timedelta(minutes=15)  # a deferred send due while the reputation guard pauses (Mautic's PT15M)


def defer(
    email: Doc,
    record: RecipientRecord | None,
    contact: Doc,
    time: str,
    source: list[JSON],
    ctx: Context,
    attempts: int = 0,
    after: str | None = None,
) -> str:
    """A capped contact: its send waits one `time` after now (or after its last due time: Mautic's
    reschedule)."""
    at = frequency_rules.shifted(clock.parse(after or ctx.now), time)
    number, per = frequency_rules.cap(contact) or (0, time)
    return _wait(email, record, contact, at, f"Frequency cap: {number} email(s) per {per}", source, ctx, attempts)


def _wait(
    email: Doc,
    record: RecipientRecord | None,
    contact: Doc,
    at: datetime,
    why: str,
    source: list[JSON],
    ctx: Context,
    attempts: int,
) -> str:
    """The contact's send waits until `at`: a due item and `message.queue` event, then the record says
    `deferred` and names the item. If the record changed meanwhile (recipients.SendLater), the item is an orphan
    its wake-up drops."""
    item = frequency_caps.defer(email, contact["id"], at, source, attempts, ctx)
    base = {k: v for k, v in (record or {"attempts": 0, "statId": None}).items() if k != "_rev"}
    reason = f"{why}; due {item['dueAt']}"
    doc = dict(base, id=contact["id"], status="deferred", reason=reason, updatedAt=clock.now_iso())
    doc.update(due=item["id"], dueAt=item["dueAt"], source=source, queueAttempts=attempts, baseUrl=ctx.base_url)
    recipients.write(email, record, cast(RecipientRecord, doc))
    observe.metrics({"Outcome": "deferred"}, EmailSends=1)
    return "deferred"


def send_marketing(email_id: EntityId, contact_id: EntityId, ctx: Context, source: sending.Source) -> SendOutcome:
    """An automation's marketing email (its `email_type`): sent now, unless the contact's cap holds
    it back; then deferred as a segment send's contact is (the event passes, as in Mautic)."""

    def hold(email: Doc, contact: Doc) -> SendOutcome | None:
        time = frequency_caps.capped(contact, ctx.now)
        if time is None:
            return None
        record = cast(RecipientRecord | None, store.get(recipients.record_kind(email["id"]), contact["id"]))
        status = record.get("status") if record else None
        if status == "deferred":
            return {"success": True, "deferred": True}  # queued already (Mautic's `findMessage`)
        if status in recipients.REACHED:
            return {"success": False, "reason": "The contact already received this marketing email."}
        defer(email, record, contact, time, list(source or []), ctx)
        return {"success": True, "deferred": True}

    return sending.send_email(email_id, contact_id, ctx, source=source, hold=hold)


def is_send(item: Doc) -> bool:
    """Whether a due item is a deferred send (of an email or a text message), not an automation's event."""
    return "email" in item or "sms" in item


def wake(items: Sequence[Doc], now: datetime) -> None:
    """Queue the deferred sends of these due items (the minute job's), each delayed until its time."""
    by_delay: dict[int, list[Doc]] = {}
    for item in items:
        delay = int(min(max(due_items.due_at(item["id"]) - now.timestamp(), 0), queues.MAX_DELAY))
        by_delay.setdefault(delay, []).append({"type": "deferred", "contact": item["contact"], "due": item["id"]})
    for delay, bodies in by_delay.items():
        queues.send(recipients.QUEUE, bodies, delay=delay)


def deferred(contact: int, due: int) -> None:
    """A deferred send fell due (a text message's: `text_deferrals.py`): sent at most once, unless
    the contact is still capped (deferred again) or may not be sent to (skipped); its due item goes
    once the record moved on. A record that names another item, or none, makes this one an orphan:
    dropped."""
    item = store.get(due_items.due_kind(contact), due)
    if item is None:
        return
    if "sms" in item:
        text_deferrals.deferred(item)
        frequency_caps.drop(contact, due)
        return
    email = store.get(EMAIL.kind, item["email"])
    record = cast(RecipientRecord | None, store.get(recipients.record_kind(item["email"]), contact))
    if email is not None and record is not None and record.get("due") == due:
        if record["status"] == "sending":
            recipients.interrupted(email, record)  # sent, never resent, or recipients.SendLater while a worker holds it
        elif record["status"] == "deferred":
            _send_deferred(email, record)
    frequency_caps.drop(contact, due)


def _send_deferred(email: Doc, record: RecipientRecord) -> None:
    ctx = Context(base_url=str(record.get("baseUrl") or ""))
    ctx.now = clock.now_iso()
    try:
        contact = service.load(CONTACT, record["id"])
    except NotFound:
        recipients.settle(email, record, record["id"], "skipped", "The contact was deleted.")
        return
    reason = sending.refusal(email, contact, False, ctx.now)
    if reason:
        recipients.settle(email, record, record["id"], "skipped", reason)
        return
    held = reputation.paused()
    if held is not None:  # as the guard holds segment sends: tried again later, no attempt counted
        at, why = clock.parse(ctx.now) + PAUSED_WAIT, f"Paused by the reputation guard: {held.get('reason')}"
        tries = int(record.get("queueAttempts") or 0)
        _wait(email, record, contact, at, why, list(record.get("source") or []), ctx, tries)
        return
    time = frequency_caps.capped(contact, ctx.now)
    attempts = int(record.get("queueAttempts") or 0) + 1
    if time is not None and attempts >= MAX_ATTEMPTS:
        recipients.settle(email, record, record["id"], "skipped", f"Frequency cap: not sent after {attempts} attempts.")
    elif time is not None:
        defer(email, record, contact, time, list(record.get("source") or []), ctx, attempts, record.get("dueAt"))
    else:
        recipients.deliver(email, record, contact, record.get("source") or None, ctx, waiting="deferred")
