"""Segment rebuilds: computing a segment's members in the background, in batches over SQS.

Creating a segment, changing its filters or publishing it writes a rebuild state (`rebuild` /
<segment id>: a new `generation`, status `queued`) in the segment's own transaction, then queues
a `plan` message. The plan splits the contact ids into ranges of SEGMENT_REBUILD_BATCH and queues
one `batch` message per range; each batch re-evaluates its contacts against every published
segment (`service.refresh`, conditional on each contact's revision, so a contact written during
the rebuild ends up right) and counts itself done once (a marker per batch). A newer generation
makes older messages no-ops. A job re-queues rebuilds left queued or stalled (a lost message).

A finished rebuild also puts the segment's last build (`built` / <segment id>: `lastBuiltDate`, when
it finished, and `lastBuiltTime`, its seconds from plan to finish; Mautic's LeadList fields), an item
of its own since the next rebuild's state replaces this one's in the segment's write: one PutItem
per rebuild, in the worker, nothing on a segment or contact write.
"""

from collections.abc import Sequence
from datetime import timedelta

from chalicelib import config
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import clock, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.subscribers import Change
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.segments import membership
from chalicelib.ports import queues
from chalicelib.store import port as store

KIND = "rebuild"
BUILT = "built"
QUEUE = "segments"
STUCK = {"queued": timedelta(minutes=2), "building": timedelta(minutes=15)}


def needed(doc: Doc, existing: Doc | None) -> bool:
    """Whether a segment write changes who matches: new, filters changed, or published now."""
    if existing is None:
        return True
    return doc.get("filters") != existing.get("filters") or (
        doc.get("isPublished", True) and not existing.get("isPublished", True)
    )


def queued(segment_id: int, now: str) -> tuple[tuple[str, int, Doc], int]:
    """(derived item, generation): the state of a new rebuild, written with the segment."""
    generation = store.allocate_ids(KIND)[0]
    return (
        KIND,
        segment_id,
        {
            "generation": generation,
            "status": "queued",
            "queuedAt": now,
            "startedAt": None,
            "finishedAt": None,
            "batches": 0,
        },
    ), generation


def enqueue(segment_id: int, generation: int) -> None:
    """Queue the plan of a rebuild generation."""
    queues.send(QUEUE, [{"type": "plan", "segment": segment_id, "generation": generation}])


def start(segment_id: int, now: str) -> None:
    """Rebuild a segment now (relative dates moved, company values changed)."""
    item, generation = queued(segment_id, now)
    store.put(KIND, dict(item[2], id=segment_id))
    enqueue(segment_id, generation)


def _current(segment_id: int, generation: int) -> Doc | None:
    state = store.get(KIND, segment_id)
    return state if state and state["generation"] == generation and state["status"] != "done" else None


def plan(segment: int, generation: int) -> None:
    """Split the contacts into id ranges and queue one batch message per range."""
    state = _current(segment, generation)
    if state is None:
        return
    last, size = store.last_id("contact"), config.active().SEGMENT_REBUILD_BATCH
    ranges = [(first, min(first + size - 1, last)) for first in range(1, last + 1, size)]
    state.update(status="building", startedAt=clock.now_iso(), batches=len(ranges))
    if not _advanced(state):
        return
    queues.send(
        QUEUE,
        [
            {"type": "batch", "segment": segment, "generation": generation, "first": first, "last": end}
            for first, end in ranges
        ],
    )
    if not ranges:
        _finish(segment, generation)


def batch(segment: int, generation: int, first: int, last: int) -> None:
    """Re-evaluate the contacts with ids first..last; count the batch done (once)."""
    state = _current(segment, generation)
    if state is None:
        return
    ctx = Context()
    for contact in store.iterate("contact", between=(first, last)):
        refresh_contact(contact, ctx)
    if (
        store.claim(f"rebuilt#{segment}#{generation}#{first}")
        and store.add(f"rebuilt#{segment}#{generation}") >= state["batches"]
    ):
        _finish(segment, generation)


def refresh_contact(contact: Doc, ctx: Context) -> None:
    """Store the contact's memberships if they changed, re-reading it when it changed meanwhile."""
    docs = [contact]

    def attempt() -> None:
        service.refresh(CONTACT, docs.pop() if docs else service.load(CONTACT, contact["id"]), ctx)

    try:
        service.retrying(attempt, ctx)
    except NotFound:
        pass  # deleted meanwhile


def _finish(segment: int, generation: int) -> None:
    state = _current(segment, generation)
    if state is not None:
        state.update(status="done", finishedAt=clock.now_iso())
        if not _advanced(state):
            return
        store.put(BUILT, {"id": segment, "lastBuiltDate": state["finishedAt"], "lastBuiltTime": _seconds(state)})


def _advanced(state: Doc) -> bool:
    """Write the rebuild's next state; False when it is no longer this rebuild's to write: a newer
    rebuild took over (`Stale`) or the segment was deleted with its state (`Missing`)."""
    try:
        store.replace(KIND, state)
    except (store.Stale, store.Missing):
        return False
    return True


def _seconds(state: Doc) -> float:
    """A finished rebuild's duration in seconds, from its plan to its last batch."""
    started = state.get("startedAt") or state["finishedAt"]
    return (clock.parse(state["finishedAt"]) - clock.parse(started)).total_seconds()


def last_builds(segment_ids: Sequence[int]) -> dict[int, Doc]:
    """{segment id: {lastBuiltDate, lastBuiltTime}} of the segments built at least once (1 BatchGetItem per 100)."""
    return store.batch_get(BUILT, segment_ids) if segment_ids else {}


def purge(segment_id: int) -> None:
    """After a segment is deleted: queue the removal of its membership rows."""
    queues.send(QUEUE, [{"type": "purge", "segment": segment_id}])


def purge_members(segment: int) -> None:
    """Drop a deleted segment's rows from its members' documents and its index, and its join rows."""
    ctx = Context()
    store.remove(BUILT, segment)
    for join in list(store.iterate(membership.joins_kind(segment))):
        store.remove(membership.joins_kind(segment), join["id"])
    for row in list(store.iterate(membership.members_kind(segment))):
        contact = store.get(CONTACT.kind, row["id"])
        if contact is None:
            store.remove(membership.members_kind(segment), row["id"])
        else:
            refresh_contact(contact, ctx)


def resend_stuck() -> None:
    """Queue again the rebuilds whose messages were lost (queued or building for too long)."""
    now = clock.now()
    for state in store.iterate(KIND):
        since = state.get("startedAt") or state.get("queuedAt")
        if state["status"] in STUCK and since and clock.parse(since) < now - STUCK[state["status"]]:
            enqueue(state["id"], state["generation"])


def refresh_relative() -> None:
    """Rebuild the published segments whose filters use dates relative to now."""
    ctx = Context()
    for segment, matcher in membership.published(ctx):
        if matcher.relative:
            start(segment["id"], ctx.now)


def on_company_stored(change: Change) -> None:
    """Subscriber to stored company writes."""
    companies_changed(change.ctx)


def companies_changed(ctx: Context) -> None:
    """A company changed: rebuild the published segments that filter on company fields."""
    for segment, matcher in membership.published(ctx):
        if "company" in matcher.objects:
            start(segment["id"], ctx.now)


def progress(segment_ids: Sequence[int]) -> dict[int, Doc]:
    """{segment id: rebuild view} for a page of segments: 1 BatchGetItem each for states and counters."""
    states = store.batch_get(KIND, segment_ids)
    done = store.counters([f"rebuilt#{s['id']}#{s['generation']}" for s in states.values()]) if states else {}
    return {
        segment_id: _view(state, done.get(f"rebuilt#{segment_id}#{state['generation']}", 0))
        for segment_id, state in states.items()
    }


def _view(state: Doc, done: int) -> Doc:
    finished = state["status"] == "done"
    batches = state.get("batches") or 0
    return {
        "status": state["status"],
        "batches": batches,
        "batchesDone": batches if finished else min(done, batches),
        "progress": 1.0 if finished else (round(min(done, batches) / batches, 4) if batches else 0.0),
        "queuedAt": state.get("queuedAt"),
        "startedAt": state.get("startedAt"),
        "finishedAt": state.get("finishedAt"),
    }
