"""The `email.sent` (or `sms.sent`) events of a chunk of sent messages (`send_batches.py`), written
without rewriting the contacts they leave unchanged (docs/storage.md "Segment sends in batches").

A contact the event changes (points for `email.send`, a subscriber reacting: a journey, a segment,
a webhook on `mautic.email_on_send`) is written as any send writes it: the contact and its event in
one transaction (`sending.write_contact`). For the others (`service.events_only`: every subscriber
ran and found nothing to do) the chunk's events go in BatchWriteItems, each an item of its own with
its feed entry (the FeedIndex entry of the same item: never one without the other), 2 write units
against 5 for the transaction. One strongly consistent BatchGetItem then checks that those contacts
are still at the revision the send read, which is what the transaction's condition checked: a
contact changed, merged or deleted meanwhile has its event removed and written again the contact's
way (read afresh, following a merge; NotFound logged), as a Stale transaction was retried. So no
event outlives its contact's erasure (whose job starts after the delete the check would see) and
none was decided on a contact other than the one stored.
"""

import copy
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import sending
from chalicelib.domain.messaging.send_pool import pooled
from chalicelib.store import port as store

Build = Callable[[Doc], list[Doc]]  # what a sent message writes on its contact (`sending.sent_event`)
EventOf = Callable[[Context], Build]  # that, decided in a context (each contact gets one of its own)


@dataclass(eq=False, repr=False)
class Pending:
    """One contact's sent event: the contact as the send read it, what the event writes on it, and the
    event items when they go without the contact (None: the contact is rewritten)."""

    known: Doc
    event: EventOf
    ctx: Context
    items: list[tuple[str, Doc]] | None


def write(sent: Sequence[tuple[Doc, EventOf]], ctx: Context) -> None:
    """Each (contact as read, its event: `email.sent` and the points of `email.send`, or `sms.sent`)."""
    pending = pooled(lambda one: _plan(*one, ctx), sent)
    pooled(_rewrite, [p for p in pending if p.items is None])
    quiet = [p for p in pending if p.items is not None]
    if quiet:
        sending.after_accepted(lambda: _store_quiet(quiet), "the contacts' sent events")


def _plan(contact: Doc, event: EventOf, ctx: Context) -> Pending:
    """The contact's event and what it takes to store it (each contact with a context of its own)."""
    own = dataclasses.replace(ctx, cache={})
    if contact.get("_rev") is None:  # no revision to check afterwards: its own transaction
        return Pending(contact, event, own, None)
    doc = copy.deepcopy(contact)
    items = service.events_only(CONTACT, contact, doc, own, event(own)(doc))
    return Pending(contact, event, own, items)


def _rewrite(pending: Pending, fresh: bool = False) -> None:
    """The event in the contact's own transaction (re-read when `fresh`, else as the send read it),
    decided afresh in a context of its own (nothing kept from the plan)."""
    known = None if fresh else pending.known
    own = dataclasses.replace(pending.ctx, cache={})
    build = pending.event(own)
    write = lambda: sending.write_contact(pending.known["id"], build, own, known)  # noqa: E731
    sending.after_accepted(write, "the contact's sent event")


def _store_quiet(quiet: list[Pending]) -> None:
    """The events in BatchWriteItems, then the contacts checked still at their revision; those that
    moved have their events removed and written again their own way."""
    items = [item for p in quiet for item in p.items or []]
    pooled(store.put_many, [items[i : i + 25] for i in range(0, len(items), 25)])
    current = store.batch_get(CONTACT.kind, [p.known["id"] for p in quiet], consistent=True)
    for p in quiet:
        now = current.get(int(p.known["id"]))
        if now is not None and now.get("_rev") == p.known.get("_rev"):
            service.events_stored(CONTACT, p.known, p.ctx)
            continue
        for kind, event in p.items or []:
            store.remove(kind, event["id"])
        _rewrite(p, fresh=True)
