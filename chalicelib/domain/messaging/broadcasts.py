"""Broadcasts, Mautic's `mautic:broadcasts:send` (ChannelBundle's SendChannelBroadcastCommand): a published
`list` email or text message with a `publishUp` that has passed (and a `publishDown` that has not) goes to the
members of its segments it has not reached, including contacts who join later, every
BROADCAST_MINUTES minutes, until it is unpublished or `publishDown` passes.

Who is pending is never a scan: each message keeps a cursor per segment (`broadcast#<channel>` /
<message id>: `segments` -> {`after`: the last contact id of the members index walked, `walked`,
`joins`: the next join id to read}). A walk (`sends` message `broadcast`) reads the next
BROADCAST_PAGE rows of each segment's members index (once, in contact id order) and the segment's
join rows (`joins#<segment>`, time ordered, domain/segments/membership.py) from its cursor up to
BROADCAST_JOIN_SLACK seconds ago, keeps the contacts without a final record, queues them in batches
and moves the cursor; a full page queues the next walk at once, so a million members are walked in
steps without a long Lambda. The batches of both channels send through the segment-send machinery,
`send_batches.py` (per-contact record, claim, send rate, do-not-contact; an email's frequency rules:
`email_channel.py`; a text message's part: `text_sends.py`), so a contact also reached by
`POST /emails/<id>/send` gets it once.
While the reputation guard pauses sends no email walk is queued, and a batch met by a pause comes
back after PAUSE_DELAY seconds. A batch whose message is no longer published sends nothing and clears
the cursors, so a message published again walks its members from the start (their records keep
each contact to one send).
"""

from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

from chalicelib import config
from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import broadcast_index, recipients, reputation, send_batches, text_sends
from chalicelib.domain.messaging.declarations import EMAIL, SMS
from chalicelib.domain.messaging.email_channel import EMAIL as EMAIL_CHANNEL
from chalicelib.domain.segments import membership
from chalicelib.ports import queues
from chalicelib.store import port as store

KINDS = {"email": EMAIL.kind, "sms": SMS.kind}
SENDERS: dict[str, send_batches.Channel[Any]] = {"email": EMAIL_CHANNEL, "sms": text_sends.TEXT}
LAST_ID = 2**63 - 1
PAUSE_DELAY = 900  # seconds a batch met by the reputation guard's pause waits (SQS's longest delay)
PENDING = (None, "retry", "paused")  # an email record a broadcast sends to


def run() -> None:
    """The minute job: every BROADCAST_MINUTES minutes (of the epoch), queue a walk of each published
    broadcast message (1 Query per channel of the small broadcast index)."""
    now = clock.now()
    if int(now.timestamp() // 60) % config.active().BROADCAST_MINUTES == 0:
        queue_walks(clock.iso(now))


def on_air(doc: Doc, now: str) -> bool:
    """Broadcast now: published, with a `publishUp` that has passed (Mautic's broadcast query calls
    `getPublishedByDateExpression` with `allowNullForPublishedUp` false: no `publishUp`, no broadcast)."""
    return bool(doc.get("publishUp")) and is_published(doc, now)


def queue_walks(now: str) -> int:
    """Queue a walk of each broadcast message published at `now` (emails not while the reputation
    guard pauses sends); how many were queued."""
    channels = ["sms"] if reputation.paused() else ["email", "sms"]
    walks = [
        {"type": "broadcast", "channel": channel, "message": entry["id"]}
        for channel in channels
        for entry in store.iterate(broadcast_index.kind(channel))
        if on_air(entry, now)
    ]
    if walks:
        queues.send(recipients.QUEUE, walks)
    return len(walks)


def _live(channel: str, message: int, now: str) -> Doc | None:
    """The message when it is a published broadcast at `now`, else None."""
    doc = store.get(KINDS[channel], message)
    return doc if broadcast_index.is_broadcast(channel, doc) and doc and on_air(doc, now) else None


def walk(channel: str, message: int) -> None:
    """One step of a broadcast's walk: queue the pending contacts the cursors reach, move the cursors,
    and queue the next step when a page was full."""
    now = clock.now_iso()
    doc = _live(channel, message, now)
    if doc is None:
        return
    state = store.get(broadcast_index.state_kind(channel), message)
    fresh = state is None
    cursors = (state or {}).get("segments") or {}
    horizon = membership.join_id(clock.iso(clock.now() - timedelta(seconds=config.active().BROADCAST_JOIN_SLACK)))
    found: dict[int, None] = {}
    more = False
    for segment in doc["lists"]:
        cursor = cursors.setdefault(str(segment), {"after": 0, "walked": False, "joins": horizon})
        contacts, full = _step(int(segment), cursor, horizon)
        found.update(dict.fromkeys(contacts))
        more = more or full
    _queue_batches(channel, message, _pending(channel, message, list(found)))
    if not _save(channel, {"id": message, "segments": cursors, "_rev": (state or {}).get("_rev")}, fresh):
        return  # another walk moved the cursors: it goes on from there (a batch queued twice sends once)
    if more:
        queues.send(recipients.QUEUE, [{"type": "broadcast", "channel": channel, "message": message}])


def _step(segment: int, cursor: Doc, horizon: int) -> tuple[list[int], bool]:
    """The members and joiners of a segment past its cursor (a page of each), the cursor moved;
    whether a page was full (more to read)."""
    contacts: list[int] = []
    if not cursor["walked"]:
        rows = _page(membership.members_kind(segment), cursor["after"] + 1, LAST_ID)
        contacts += [row["id"] for row in rows if membership.is_member(row)]
        cursor["after"] = rows[-1]["id"] if rows else cursor["after"]
        cursor["walked"] = len(rows) < config.active().BROADCAST_PAGE
    joins = _page(membership.joins_kind(segment), cursor["joins"], horizon - 1) if cursor["joins"] < horizon else []
    full = len(joins) == config.active().BROADCAST_PAGE
    cursor["joins"] = joins[-1]["id"] + 1 if full else max(cursor["joins"], horizon)
    joined = list(dict.fromkeys(int(row["contact"]) for row in joins))
    members = store.batch_get(membership.members_kind(segment), joined) if joined else {}
    contacts += [c for c in joined if membership.is_member(members.get(c))]  # joined, and still there
    return contacts, full or not cursor["walked"]


def _page(kind: str, first: int, last: int) -> list[Doc]:
    return list(store.iterate(kind, between=(first, last), limit=config.active().BROADCAST_PAGE))


def _pending(channel: str, message: int, contacts: list[int]) -> list[int]:
    """The contacts the message has not reached (their records, 1 BatchGetItem per 100, several at once)."""
    if channel == "sms":
        return text_sends.pending(message, contacts)
    records = send_batches.records(recipients.record_kind(message), contacts)
    return [c for c in contacts if (records.get(c) or {}).get("status") in PENDING]


def _chunks(contacts: Sequence[int]) -> Iterator[list[int]]:
    size = max(1, config.active().EMAIL_SEND_BATCH)
    return (list(contacts[i : i + size]) for i in range(0, len(contacts), size))


def _queue_batches(channel: str, message: int, contacts: Sequence[int]) -> None:
    bodies = [
        {"type": "broadcast-batch", "channel": channel, "message": message, "contacts": chunk}
        for chunk in _chunks(contacts)
    ]
    if bodies:
        recipients.persisting(lambda: queues.send(recipients.QUEUE, bodies))


def _save(channel: str, state: Doc, fresh: bool) -> bool:
    """Store the moved cursors, conditionally on the revision read; False when another walk won."""
    try:
        if fresh:
            store.create(broadcast_index.state_kind(channel), {k: v for k, v in state.items() if k != "_rev"})
        else:
            store.replace(broadcast_index.state_kind(channel), state)
    except (store.Conflict, store.Stale, store.Missing):
        return False
    return True


def batch(channel: str, message: int, contacts: Sequence[int]) -> None:
    """Send a broadcast message to a batch of contacts, each at most once (its record); nothing when
    the message is no longer a published broadcast (its cursors go: a new publication walks again)."""
    now = clock.now_iso()
    doc = _live(channel, message, now)
    if doc is None:  # its cursors start again (the item stays: erasures find the message's records by it)
        store.put(broadcast_index.state_kind(channel), {"id": message, "segments": {}})
        return
    if channel == "email" and reputation.paused() is not None:
        body = {"type": "broadcast-batch", "channel": channel, "message": message, "contacts": list(contacts)}
        queues.send(recipients.QUEUE, [body], delay=PAUSE_DELAY)
        return
    sent = send_batches.send(SENDERS[channel], doc, list(contacts), ("broadcast", message), Context())
    if channel == "sms":
        text_sends.look_again(message, sent)  # records left `sending` by a crash, settled once stuck
    if sent.later is not None:
        raise sent.later  # SQS delivers the batch again: its contacts with a final record are skipped
