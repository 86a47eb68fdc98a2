"""Documents a list leaves out: those with a reference of `Resource.list_filters` set, as Mautic's API
lists add the `listFilters` `<reference> isNull` to every list request (an email's A/B variants; a
page's variants and translations). A GET by id still answers them.

An unfiltered list in key order takes its `total` from counters, not from reading the kind: the
kind's count less `count#<kind>#unlisted`, the documents with such a reference set. That counter
moves by a `Tally` in the transaction of the write that sets the first reference or clears the last
one (a create naming a parent, an edit, a delete), so it moves whole with the document; the write
holds its revision check (a delete too: `service.delete`), so a write run again on a fresh read
(kernel/retries.py) counts once. A reference to a deleted parent keeps its document unlisted (Mautic
deletes the children with their parent) until it is cleared. Documents stored before the counter
existed are counted by `python -m chalicelib.cli storage recount-unlisted` (`recount`).
"""

from collections.abc import Iterable

from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.types import JSON, Doc, Items
from chalicelib.store import port as store


def filtered(resource: Resource) -> bool:
    """Whether lists of the resource leave some of its documents out."""
    return bool(resource.list_filters)


def listed(resource: Resource, doc: Doc) -> bool:
    """Whether a list shows the document: none of the resource's list filter references is set."""
    return all(doc.get(reference) is None for reference in resource.list_filters)


def _counter_kind(resource: Resource) -> str:
    """The pseudo kind whose count (`count#<kind>#unlisted`) is the unlisted documents'."""
    return f"{resource.kind}#unlisted"


def _counter(resource: Resource) -> str:
    return f"count#{_counter_kind(resource)}"


def upkeep(resource: Resource, doc: Doc | None, existing: Doc | None) -> Items:
    """The derived item of a create, edit or delete (`doc` None) moving the unlisted count: +1 when
    the document becomes unlisted, -1 when an unlisted one is listed again or deleted, else nothing."""
    if not filtered(resource):
        return []
    was = existing is not None and not listed(resource, existing)
    now = doc is not None and not listed(resource, doc)
    if was == now:
        return []
    return [(_counter_kind(resource), 0, store.Tally(1 if now else -1))]


def total(resource: Resource) -> int:
    """The number of documents an unfiltered list shows: the kind's count (one GetItem), less the
    unlisted count when the resource has list filters (both in one BatchGetItem)."""
    if not filtered(resource):
        return store.count(resource.kind)
    names = [f"count#{resource.kind}", _counter(resource)]
    values = store.counters(names)
    return max(values[names[0]] - values[names[1]], 0)


def recount(resources: Iterable[Resource]) -> list[dict[str, JSON]]:
    """Set the unlisted count of each filtered resource to what its stored documents hold (those stored
    before the count existed); per kind the documents it found unlisted and how far the count moved.
    A kind whose count a write moved while it was read is left as it was (`moved` None): run it again.
    One GetItem, one Query per 1 MB of the kind, one GetItem and one UpdateItem per kind."""
    results: list[dict[str, JSON]] = []
    for resource in filter(filtered, resources):
        name = _counter(resource)
        before = store.counters([name])[name]
        found = sum(1 for doc in store.iterate(resource.kind) if not listed(resource, doc))
        after = store.counters([name])[name]
        moved = found - after if after == before else None
        if moved:
            store.add(name, moved)
        results.append({"kind": resource.kind, "unlisted": found, "moved": moved})
    return results
