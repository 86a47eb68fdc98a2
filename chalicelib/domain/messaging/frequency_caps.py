"""Frequency caps on marketing emails (issue 34) and text messages (Mautic's
`MessageQueueModel::processFrequencyRules`): whether a contact's rule on `email` or `sms` holds a send
back, and the deferred send's durable parts.

A contact is capped when it was sent `frequencyNumber` messages of the channel (any: its `email.sent`
events; its `sms.sent` and `sms.failed` ones, as Mautic counts every `sms_message_stats` row, failed
included) in the last DAY, WEEK or calendar MONTH of its rule. Its contact document says whether it has a rule, so
a contact without one costs nothing; one with a rule costs one Query of its timeline, newest first,
read only back to the window's start (and `clock.order_slack()` before it: event ids follow time only that
closely across containers). A capped send is not dropped: it waits in a due item of the
automations' due shards (`kernel/due_items.py`), which the minute job queues when it falls due, and
the contact's timeline shows it (`message.queue`, Mautic's "Message Queued" event), both written in
one contact write. `email_sends` keeps the send's state in its `emailsend#` record and sends it.
"""

import copy
from collections.abc import Iterator
from datetime import datetime

from chalicelib.domain.contacts import contact_merge, frequency_rules
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import clock, due_items, service, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.store import port as store

QUEUED = "message.queue"  # the timeline event of a deferred send (Mautic's message queue rows)
LABEL = "Message Queued for channel -"  # Mautic's `mautic.queued.channel`, then the channel and message id
ATTEMPTS = 3  # tries of a deferred send from the queue (Mautic's `email_attempts` default; `sendSms`'s 3)
COUNTED = {"email": ("email.sent",), "sms": ("sms.sent", "sms.failed")}  # the sends a channel's rule counts


def capped(contact: Doc, now: str, channel: str = "email") -> str | None:
    """The time of the contact's rule on `channel` (DAY, WEEK, MONTH) when it was sent its number of
    messages in the last one of those, else None (no call when it has no rule)."""
    rule = frequency_rules.cap(contact, channel)
    if rule is None:
        return None
    number, time = rule
    sent = 0
    for event in _since(contact["id"], frequency_rules.shifted(clock.parse(now), time, -1)):
        sent += event.get("event") in COUNTED[channel]
        if sent >= number:
            return time
    return None


def queued(contact_id: int, channel: str, message_id: int, since: datetime) -> bool:
    """Whether a send of the message was queued for the contact since `since` (its `message.queue`
    event; Mautic's `MessageQueueRepository::findMessage`): one Query of its timeline, newest first."""
    for event in _since(contact_id, since):
        details = event.get("details") or {}
        if event.get("event") == QUEUED and (details.get("channelName"), details.get("channelId")) == (
            channel,
            message_id,
        ):
            return True
    return False


def _since(contact_id: int, since: datetime) -> Iterator[Doc]:
    """The contact's events since `since`, newest first, read only back to then (and
    `clock.order_slack()` before it: event ids follow time only that closely across containers)."""
    for event in store.iterate(timeline.kind(contact_id), descending=True):
        moment = clock.parse(event["timestamp"])
        if moment < since - clock.order_slack():
            return  # none later is newer
        if moment >= since:
            yield event


def defer(
    email: Doc,
    contact_id: int,
    at: datetime,
    source: JSON,
    attempts: int,
    ctx: Context,
    channel: str = "email",
    extra: Doc | None = None,
) -> Doc:
    """Store a deferred send of `email` (a text message when `channel` is `sms`) to the contact, due
    `at`: its due item and `message.queue` event in one contact write (GetItem + TransactWriteItems).
    The item: {id, contact, <channel>: message id, dueAt} and `extra`."""

    def write() -> Doc:
        existing = contact_merge.load(CONTACT, contact_id)
        item = {
            "id": due_items.due_id(at),
            "contact": existing["id"],
            channel: email["id"],
            "dueAt": clock.iso(at),
            **(extra or {}),
        }
        details: dict[str, JSON] = {
            "channelName": channel,
            "channelId": email["id"],
            f"{channel}Id": email["id"],
            "due": item["id"],
            "scheduledDate": item["dueAt"],
            "attempts": attempts,
            "status": "rescheduled" if attempts else "pending",
            "source": source,
        }
        event = timeline.event(QUEUED, f"{LABEL} {channel} {email['id']}", details)
        derived = [(due_items.due_kind(existing["id"]), item["id"], {k: v for k, v in item.items() if k != "id"})]
        service.save_change(CONTACT, existing, copy.deepcopy(existing), ctx, [event], stamp=False, derived=derived)
        return item

    return service.retrying(write, ctx)


def drop(contact_id: int, due: int) -> None:
    """Remove a deferred send's due item (done, given up, or replaced by a later one)."""
    store.remove(due_items.due_kind(contact_id), due)
