"""The standard operations of every resource: get, list, create, edit (PATCH/PUT), delete."""

import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from chalicelib.domain.kernel import (
    access,
    batching,
    cache_keys,
    capability_hooks,
    children,
    references,
    retries,
    subscribers,
    timeline,
    unlisted,
    validation,
    variant_restarts,
)
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound, Stale, ValidationError
from chalicelib.domain.kernel.resources import Merge, Resource
from chalicelib.domain.kernel.types import JSON, Build, Derived, Doc, EntityId, Event, Events, Items
from chalicelib.store import port as store

T = TypeVar("T")
Errors = dict[str, list[str]]  # messages by field


def load(resource: Resource, entity_id: JSON, ctx: Context | None = None) -> Doc:
    """The stored document, or NotFound. With the request's `ctx`, one it already read (a route's
    permission check) is not read again, and what is read is remembered."""
    try:
        number = int(entity_id)
    except (TypeError, ValueError):
        raise NotFound() from None
    doc = ctx.cache.get(cache_keys.ref(resource.kind), {}).get(number) if ctx is not None else None
    if doc is None:
        doc = store.get(resource.kind, number) if number > 0 else None
        if doc is not None and ctx is not None:
            references.remember(resource.kind, doc, ctx)
    if doc is None:
        raise NotFound()
    return doc


def blank(resource: Resource) -> Doc:
    """A document holding every attribute's default."""
    doc = {attr.name: attr.fresh_default() for attr in resource.all_attrs}
    doc.update({n.name: [] for n in resource.nested})
    return doc


def _stamp(resource: Resource, doc: Doc, ctx: Context, created: bool) -> None:
    """The audit stamp of a create or an edit (none for resources without an audit set)."""
    if not resource.audit:
        return
    if created:
        doc.update(
            dateAdded=ctx.now,
            createdBy=ctx.user_id,
            createdByUser=ctx.user_name,
            dateModified=None,
            modifiedBy=None,
            modifiedByUser=None,
        )
        capability_hooks.stamp_created(resource, doc, ctx)
    else:
        doc.update(dateModified=ctx.now, modifiedBy=ctx.user_id, modifiedByUser=ctx.user_name)


def _save_new(
    resource: Resource,
    doc: Doc,
    ctx: Context,
    events: Sequence[Event] = (),
    build: Build | None = None,
    items: Iterable[Derived] = (),
) -> Doc:
    """Store a new document with an id of its kind's counter, its consequences and announcements, in one
    transaction (deferred to the batch's group when grouping), then its follow-up work."""
    doc["id"] = batching.allocate_ids(resource.kind)[0]
    _stamp(resource, doc, ctx, created=True)
    events = list(events) + (build(doc) if build else [])
    derived, events = _consequences(resource, doc, None, ctx, events)
    derived = derived + list(items) + _announce(resource, doc, None, ctx, events)
    uniques = resource.hooks.uniques(doc)
    options = dict(
        email=capability_hooks.email(resource, doc),
        extra=timeline.documents(doc["id"], events, ctx.now),
        derived=derived,
    )
    if batching.grouping() and not store.watched(derived):  # a parent's list is written at once
        batching.defer(
            dict(kind=resource.kind, doc=doc, uniques=uniques, versioned=resource.cached, **options),
            uniques,
            lambda: _after_commit(resource, [(doc, None)], derived, ctx),
            lambda error: _domain_error(error, resource),
        )
        return doc
    _store_call(store.create, resource, doc, uniques, **options)
    _after_commit(resource, [(doc, None)], derived, ctx)
    return doc


def _consequences(
    resource: Resource, doc: Doc | None, existing: Doc | None, ctx: Context, events: Sequence[Event]
) -> tuple[Items, Events]:
    """Derived items and the change's timeline events with those it brings: the resource's own hook,
    its parents' lists of children (`kernel/children.py`), the restart of its A/B test
    (`kernel/variant_restarts.py`) and the count of unlisted documents
    (`kernel/unlisted.py`), then the `write` subscribers of its kind
    (point triggers, journeys, segment membership); the document is put in the feed of its
    permission user (`access.index_owner`)."""
    derived, more = resource.hooks.consequences(doc, existing, ctx, events)
    derived = derived + children.upkeep(resource, doc, existing, ctx)
    derived = variant_restarts.restart(resource, doc, existing, ctx, derived)
    derived = derived + unlisted.upkeep(resource, doc, existing)
    items, further = subscribers.write(subscribers.Change(resource, doc, existing, ctx, list(events)))
    if doc is not None:
        access.index_owner(resource, doc, ctx)
    return derived + items, list(events) + more + further


def _announce(
    resource: Resource, doc: Doc | None, existing: Doc | None, ctx: Context, events: Sequence[Event]
) -> Items:
    """Items announcing the change (webhook outbox), stored in its transaction."""
    return subscribers.announce(subscribers.Change(resource, doc, existing, ctx, list(events)))


def _after_commit(
    resource: Resource, writes: Iterable[tuple[Doc | None, Doc | None]], derived: Sequence[Derived], ctx: Context
) -> None:
    """Follow-up work of the stored (doc, existing) `writes`: hooks, then subscribers."""
    for doc, existing in writes:
        resource.hooks.stored(doc, existing, ctx)
        subscribers.stored(subscribers.Change(resource, doc, existing, ctx))
    subscribers.committed(derived)


def _domain_error(error: Exception, resource: Resource) -> Exception:
    """The domain's error for a store exception (others are returned as they are)."""
    if isinstance(error, store.Conflict):
        return ValidationError({f: [resource.hooks.taken(f)] for f in error.fields})
    if isinstance(error, store.Missing):
        return NotFound()
    if isinstance(error, store.Stale):
        return Stale()
    return error


def _store_call(
    operation: Callable[..., None], resource: Resource, doc: Doc | EntityId, *uniques: Any, **options: Any
) -> None:
    """A store write of the resource's kind, its store exceptions raised as the domain's."""
    try:
        operation(resource.kind, doc, *uniques, versioned=resource.cached, **options)
    except (store.Conflict, store.Missing, store.Stale) as error:
        raise _domain_error(error, resource) from None


def retrying(operation: Callable[[], T], ctx: Context, budget: float | None = None) -> T:
    """operation(), run again on fresh reads (the request's cache forgotten) while an entity it
    edits changed under it (Stale), with backoff until a time budget (kernel/retries.py)."""
    return retries.settled(operation, ctx.cache.clear, budget)


def create(
    resource: Resource,
    payload: JSON,
    ctx: Context,
    system: Doc | None = None,
    build: Build | None = None,
    items: Sequence[Derived] = (),
) -> tuple[Doc, bool]:
    """Create from a payload. Returns (document, created); created is False when a duplicate was updated.

    `system` holds attributes set by the service itself (never by clients), such as `isFixed`. `build(doc)`
    is given the document about to be stored, with its id (the duplicate's, or the survivor of a merge):
    it may change it and returns timeline events stored with it; `items` are further (kind, id, document)
    items written in the same transaction."""
    payload = validation.payload_object(payload)
    doc = blank(resource)
    write, pending = validation.checked(resource, doc, payload, ctx, "create")
    existing = resource.hooks.duplicate_of(doc, ctx)
    if existing is not None:
        access.require(ctx, resource, Action.EDIT, existing)  # a found duplicate is edited: echo nothing otherwise
        return _edit_existing(resource, existing, payload, ctx, "patch", build, items), False
    validation.finish(resource, doc, write, pending)
    doc.update(system or {})
    return _save_new(resource, doc, ctx, write.events, build, items), True


def _edit_existing(
    resource: Resource,
    existing: Doc,
    payload: Doc,
    ctx: Context,
    mode: str,
    build: Build | None = None,
    items: Sequence[Derived] = (),
) -> Doc:
    """PATCH (`mode` patch: from the stored document) or PUT (`put`: from defaults) of `existing`; a
    unique value another document holds merges the two (contacts)."""
    if mode == "put":
        doc = blank(resource)
        doc.update({k: existing.get(k) for k in ("id", "_rev", "dateAdded", "createdBy", "createdByUser")})
        doc.update({attr.name: existing.get(attr.name) for attr in resource.all_attrs if not attr.writable})
        doc.update({spec.name: existing.get(spec.name) or [] for spec in resource.nested})
    else:
        doc = copy.deepcopy(existing)
    write = validation.apply(resource, doc, payload, ctx, mode, existing)
    other = _holder_of_new_uniques(resource, doc, existing, ctx)
    if other is not None:
        return capability_hooks.merge(resource, Merge(doc, existing, other, ctx, write.events, build, items))
    events = write.events + (build(doc) if build else [])
    return save_change(resource, existing, doc, ctx, events, derived=items)


def _holder_of_new_uniques(resource: Resource, doc: Doc, existing: Doc, ctx: Context) -> Doc | None:
    """Another document already holding a unique value the edit gives `doc` (contacts then merge)."""
    if resource.hooks.uniques(doc) == resource.hooks.uniques(existing):
        return None
    return resource.hooks.duplicate_of(doc, ctx)


def save_change(
    resource: Resource,
    existing: Doc,
    doc: Doc,
    ctx: Context,
    events: Sequence[Event] = (),
    stamp: bool = True,
    derived: Iterable[Derived] = (),
) -> Doc:
    """Store an edited document (audit stamp unless `stamp` is False, unique values moved, timeline
    events, further `derived` items), in one transaction."""
    if stamp:
        _stamp(resource, doc, ctx, created=False)
    old = resource.hooks.uniques(existing)
    implied, events = _consequences(resource, doc, existing, ctx, events)
    derived = implied + list(derived) + _announce(resource, doc, existing, ctx, events)
    _store_call(
        store.replace,
        resource,
        doc,
        old,
        resource.hooks.uniques(doc),
        email=capability_hooks.email(resource, doc),
        extra=timeline.documents(doc["id"], events, ctx.now),
        derived=derived,
    )
    _after_commit(resource, [(doc, existing)], derived, ctx)
    return doc


def events_only(
    resource: Resource, existing: Doc, doc: Doc, ctx: Context, events: Sequence[Event]
) -> list[tuple[str, Doc]] | None:
    """The timeline items of a change that leaves the document exactly as stored and derives nothing
    (no field, point, membership, journey or webhook moved: every subscriber ran and found nothing),
    for the caller to store without rewriting the document; None when the change is more than its
    events (then `save_change`). The caller checks afterwards that the document is still at its
    revision (`events_stored`), which is what `save_change`'s transaction would have checked."""
    implied, events = _consequences(resource, doc, existing, ctx, events)
    if implied or doc != existing or _announce(resource, doc, existing, ctx, events):
        return None
    return timeline.documents(doc["id"], events, ctx.now)


def events_stored(resource: Resource, doc: Doc, ctx: Context) -> None:
    """Follow-up work of events stored by `events_only`'s caller (the document unchanged)."""
    _after_commit(resource, [(doc, doc)], [], ctx)


def save_merge(
    resource: Resource,
    winner: Doc,
    doc: Doc,
    loser: Doc,
    ctx: Context,
    events: Sequence[Event] = (),
    derived: Iterable[Derived] = (),
) -> Doc:
    """Store `doc`, the union of the stored documents `winner` and `loser`, and delete `loser`, in one
    transaction (both revision-checked): the timeline events, memberships and webhooks of both, and
    the `derived` items given."""
    access.require_merge(ctx, resource, winner, loser)
    _stamp(resource, doc, ctx, created=False)
    kept, events = _consequences(resource, doc, winner, ctx, events)
    dropped, _ = _consequences(resource, None, loser, ctx, ())
    derived = (
        _combined(dropped + kept + list(derived))
        + _announce(resource, doc, winner, ctx, events)
        + _announce(resource, None, loser, ctx, ())
    )
    hooks = resource.hooks
    _store_call(
        store.merge,
        resource,
        doc,
        (loser["id"], loser["_rev"], hooks.uniques(loser)),
        (hooks.uniques(winner), hooks.uniques(doc)),
        email=capability_hooks.email(resource, doc),
        extra=timeline.documents(doc["id"], events, ctx.now),
        derived=derived,
    )
    _after_commit(resource, [(doc, winner), (None, loser)], derived, ctx)
    return doc


def _combined(items: Iterable[Derived]) -> Items:
    """Derived items of two writes as one transaction's: the later of two on the same item wins,
    tallies of a count add up."""
    combined: dict[tuple[str, int], Derived] = {}
    for kind, item_id, item in items:
        key = (kind, int(item_id))
        earlier = combined.get(key, (None, None, None))[2]
        if isinstance(item, store.Tally) and isinstance(earlier, store.Tally):
            item = store.Tally(earlier.n + item.n)
        combined[key] = (kind, item_id, item)
    return list(combined.values())


def refresh(resource: Resource, existing: Doc, ctx: Context) -> Doc:
    """Re-derive what a stored document implies (segment and automation membership) and store it
    only if that changed, without an edit stamp. Returns the current document."""
    doc = copy.deepcopy(existing)
    derived, events = _consequences(resource, doc, existing, ctx, [])
    if not derived and not events:
        return existing
    derived = derived + _announce(resource, doc, existing, ctx, events)
    _store_call(
        store.replace,
        resource,
        doc,
        email=capability_hooks.email(resource, doc),
        extra=timeline.documents(doc["id"], events, ctx.now),
        derived=derived,
    )
    _after_commit(resource, [(doc, existing)], derived, ctx)
    return doc


def edit(
    resource: Resource,
    entity_id: JSON,
    payload: JSON,
    ctx: Context,
    replace: bool,
    build: Build | None = None,
    items: Sequence[Derived] = (),
) -> tuple[Doc, bool]:
    """PATCH (replace=False: 404 when missing) or PUT (replace=True: creates when missing); `build` and
    `items` as for `create`. Returns (document, created)."""
    payload = validation.payload_object(payload)
    try:
        existing = load(resource, entity_id, ctx)
    except NotFound:
        if not replace:
            raise
        access.require(ctx, resource, Action.CREATE)  # a PUT of an unknown id creates it
        doc = blank(resource)
        write = validation.apply(resource, doc, payload, ctx, "create")
        return _save_new(resource, doc, ctx, write.events, build, items), True
    return _edit_existing(resource, existing, payload, ctx, "put" if replace else "patch", build, items), False


def update(
    resource: Resource,
    existing: Doc,
    payload: JSON,
    ctx: Context,
    build: Build | None = None,
    items: Sequence[Derived] = (),
) -> Doc:
    """PATCH a document the caller already loaded (`existing`), as `edit` does after its read; `build`
    and `items` as for `create`. Returns the stored document."""
    return _edit_existing(resource, existing, validation.payload_object(payload), ctx, "patch", build, items)


def delete(resource: Resource, entity_id: JSON, ctx: Context) -> Doc:
    """Delete and return the document as it was; a resource whose lists leave documents out only at
    the revision read (its unlisted count moves by what the document was: `kernel/unlisted.py`)."""
    doc = load(resource, entity_id, ctx)
    resource.hooks.before_delete(doc, ctx)
    derived, _ = _consequences(resource, None, doc, ctx, ())
    derived = derived + _announce(resource, None, doc, ctx, ())
    rev = doc.get("_rev") if unlisted.filtered(resource) else None
    _store_call(store.delete, resource, doc["id"], resource.hooks.uniques(doc), derived=derived, rev=rev)
    _after_commit(resource, [(None, doc)], derived, ctx)
    return doc


def remove_nested(resource: Resource, entity_id: JSON, collection: str, ids: JSON, ctx: Context) -> Doc:
    """Delete the listed items of a nested collection (form fields, trigger events...)."""
    doc = load(resource, entity_id)
    try:
        wanted = {a.as_int(i) for i in (ids if isinstance(ids, list) else a.as_list(ids))}
    except a.Invalid:
        raise ValidationError({collection: ["This value should be a list of ids."]}) from None
    changed = copy.deepcopy(doc)
    changed[collection] = [item for item in doc.get(collection) or [] if item.get("id") not in wanted]
    if len(changed[collection]) == len(doc.get(collection) or []):
        return doc
    return save_change(resource, doc, changed, ctx)
