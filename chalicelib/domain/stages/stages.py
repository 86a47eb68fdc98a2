"""A contact's stage: the contacts-by-stage index, moves in and out of a stage, the `stage:` search
of contacts, and what deleting a stage does to the contacts in it.

A contact document names its stage (`stage`: a stage id, or None). The index item
`staged#<stage id>`/<contact id> mirrors it, put and deleted in the transaction that writes the
contact (`on_contact_write`, in the subscriber table of `domain/wiring.py`), so the contacts of a
stage are one Query away. Deleting a stage queues the clearing of its contacts' stage (as Mautic's
`ON DELETE SET NULL`), which the `segments` worker does through the contact write path.
"""

import copy
from collections.abc import Callable, Sequence
from datetime import timedelta
from functools import partial

from chalicelib.domain.contacts import contact_actions
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import cache_keys, clock, references, registry, search, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.resources import Hooks
from chalicelib.domain.kernel.subscribers import Change, Command
from chalicelib.domain.kernel.types import Doc, Event, Events
from chalicelib.ports import queues
from chalicelib.store import port as store
from chalicelib.store.port import Derived, EntityId

QUEUE = "segments"  # the worker queue of background contact work (workers/segments.py)
CLEAR_KIND = "stageclear"  # the clearing jobs of deleted stages, by stage id
RESEND_SECONDS = 300
ADDED, REMOVED = "Manually Added", "Manually Removed"  # Mautic's action names for the endpoints
DELETED = "Stage deleted"
MISSING = "Stage is missing or unpublished"
ALREADY = "Contact is already in this stage."
LOWER = "Contact was not able to move into this stage."


def staged_kind(stage_id: EntityId) -> str:
    """The index kind listing the contacts of a stage."""
    return f"staged#{int(stage_id)}"


class StageHooks(Hooks):
    """Deleting a stage takes its contacts out of it, in the background: a `stageclear` job item is
    written with the delete, queued after the commit and deleted once the contacts are cleared;
    `resend_lost` queues again a job whose message a crash or an SQS failure lost."""

    def consequences(
        self, doc: Doc | None, existing: Doc | None, ctx: Context, events: Sequence[Doc]
    ) -> tuple[list[Derived], Events]:
        """A deleted stage's clearing job, written with the delete."""
        if doc is not None:
            return [], []
        assert existing is not None  # a delete names the document it removes
        return [(CLEAR_KIND, existing["id"], {"name": existing.get("name"), "queuedAt": ctx.now})], []

    def stored(self, doc: Doc | None, existing: Doc | None, ctx: Context) -> None:
        """After a delete: queue the clearing job."""
        if doc is None:
            assert existing is not None  # a delete names the document it removes
            queues.send_stored(QUEUE, [(CLEAR_KIND, existing["id"], None)], CLEAR_KIND, "stage-clear")


def resend_lost() -> None:
    """Every minute: queue again the clearing jobs still stored a while after they were queued."""
    cutoff = clock.iso(clock.now() - timedelta(seconds=RESEND_SECONDS))
    stale = [job["id"] for job in store.iterate(CLEAR_KIND) if (job.get("queuedAt") or "") < cutoff]
    if stale:
        queues.send(QUEUE, [{"type": "stage-clear", "id": stage_id} for stage_id in stale])


def on_contact_write(change: Change) -> tuple[list[Derived], Events]:
    """Subscriber to contact writes (the last one: it sees the stage every other subscriber left):
    the index items of the contact's stage change."""
    old = (change.existing or {}).get("stage")
    new = (change.doc or {}).get("stage")
    if old == new:
        return [], []
    contact = change.doc or change.existing
    assert contact is not None  # a write has a document, a delete the one it removes
    contact_id = contact["id"]
    items: list[Derived] = [(staged_kind(old), contact_id, None)] if old else []
    if new:
        items.append((staged_kind(new), contact_id, {"dateAdded": change.ctx.now}))
    return items, []


def _stage(stage_id: EntityId, ctx: Context) -> Doc:
    """The stage document, or NotFound; remembered, so the contact written shows it without a read."""
    stage = service.load(registry.resource("stage"), stage_id)
    references.remember("stage", stage, ctx)
    return stage


def _move(contact_id: EntityId, change: Callable[[Contact], Event | None], ctx: Context) -> Doc:
    """Load the contact, apply `change(doc)` (-> the event, or None for no change) and store it."""
    existing = service.load(CONTACT, contact_id)
    doc = copy.deepcopy(existing)
    event = change(doc)
    return service.save_change(CONTACT, existing, doc, ctx, [event]) if event else existing


def add_contact(stage_id: EntityId, contact_id: EntityId, ctx: Context) -> Doc:
    """`POST /stages/<id>/contact/<contactId>/add`: the contact enters the stage, whatever its weight
    (none for a contact already in it)."""
    stage = _stage(stage_id, ctx)
    return _move(contact_id, lambda doc: contact_actions.set_stage(doc, stage, ADDED), ctx)


def remove_contact(stage_id: EntityId, contact_id: EntityId, ctx: Context) -> Doc:
    """`POST /stages/<id>/contact/<contactId>/remove`: the contact leaves the stage; a contact in
    another stage (or none) stays as it is."""
    stage = _stage(stage_id, ctx)
    return _move(contact_id, lambda doc: contact_actions.clear_stage(doc, stage, REMOVED), ctx)


def refusal(doc: Contact, stage: Doc | None, ctx: Context) -> str | None:
    """Why an automation's `stage.change` leaves the contact where it is (Mautic's reasons: the
    stage is gone or unpublished, the contact is in it, or in a stage of higher weight), or None."""
    if stage is None or not is_published(stage, ctx.now):
        return MISSING
    if doc.get("stage") == stage["id"]:
        return ALREADY
    current = references.referenced("stage", [doc["stage"]], ctx).get(doc["stage"]) if doc.get("stage") else None
    if current is not None and (current.get("weight") or 0) > (stage.get("weight") or 0):
        return LOWER
    return None


def clear_deleted(id: EntityId) -> None:  # `id`: the message's key
    """The `segments` worker's `stage-clear` step: take the contacts of a deleted stage out of it
    (each through the contact write path: its timeline event, segments, webhooks), without an edit
    stamp, then delete the job (a message repeated after that finds none and does nothing)."""
    job = store.get(CLEAR_KIND, id)
    if job is None:
        return
    stage = job["id"]
    ctx, gone = Context(), {"id": stage, "name": job.get("name")}

    def clear(contact_id: EntityId) -> None:
        existing = service.load(CONTACT, contact_id)
        doc = copy.deepcopy(existing)
        event = contact_actions.clear_stage(doc, gone, DELETED)
        if event:
            service.save_change(CONTACT, existing, doc, ctx, [event], stamp=False)

    for row in list(store.iterate(staged_kind(stage))):
        try:
            service.retrying(partial(clear, row["id"]), ctx)
        except NotFound:
            pass  # deleted meanwhile, with its index item
    store.remove(CLEAR_KIND, stage)


def _named(value: str, ctx: Context) -> set[int]:
    """Ids of the stages a `stage:<name>` search names (case-insensitive; `%` is a wildcard)."""
    return ctx.memo(
        cache_keys.stages_named(value.casefold()),
        lambda: {s["id"] for s in store.iterate("stage") if search.like(s.get("name"), value, contains=False)},
    )


def _staged(value: str, ctx: Context) -> list[int]:
    return sorted({row["id"] for stage_id in _named(value, ctx) for row in store.iterate(staged_kind(stage_id))})


# The contact search command `stage:<name>`: from the index of the stages so named, not every contact.
STAGE_COMMAND = Command(lambda doc, value, ctx: doc.get("stage") in _named(value, ctx), _staged)
