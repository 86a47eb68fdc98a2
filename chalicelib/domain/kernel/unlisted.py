"""Documents a list leaves out: those with a reference of `Resource.list_filters` set, as Mautic's API
lists add the `listFilters` `<reference> isNull` to every list request (an email's A/B variants; a
page's variants and translations). A GET by id still answers them.

An unfiltered list in key order takes its `total` from counters, not from reading the kind: the
kind's count less `count#<kind>#unlisted`, the documents with such a reference set. That counter
moves by a `Tally` in the transaction of the write that sets the first reference or clears the last
one (a create naming a parent, an edit, a delete), so it moves whole with the document; the write
holds its revision check (a delete too: `service.delete`), so a write run again on a fresh read
(kernel/retries.py) counts once. A reference to a deleted parent keeps its document unlisted (Mautic
deletes the children with their parent) until it is cleared.
"""

from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.types import Doc, Items
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
    names = [f"count#{resource.kind}", f"count#{_counter_kind(resource)}"]
    values = store.counters(names)
    return max(values[names[0]] - values[names[1]], 0)
