"""The lists of children a parent document shows: an email's or a page's `translationChildren` and
`variantChildren`, a dynamic content's `variantChildren` (attributes declared with
`resources.children`), the ids of the documents whose parent reference names it.

They are kept on the parent, so that reading it stays one GetItem and a page of parents one
BatchGetItem for everything they reference: a create, edit or delete of a child that changes its
parent reference also puts the parents it leaves and joins, in the child's own transaction, each
only at the revision read (`store.Checked`). A parent written meanwhile (another child, an edit of
it) makes the whole write `Stale`, and it runs again on a fresh read (kernel/retries.py). Listing an
id already listed or dropping one absent writes nothing, so a write run again leaves the lists true.

A deleted parent is not written to its children: their reference to it stays as stored and is shown
as null, as every reference to a vanished document (kernel/present.py), and a child's later write
moves nothing from it. (Mautic's `translation_parent_id` and `variant_parent_id` columns are
`ON DELETE CASCADE`, deleting the children with it: docs/api-contract.md.)
"""

import copy
from collections.abc import Callable, Sequence

from chalicelib.domain.kernel import access, references
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.types import JSON, Doc, Items
from chalicelib.store import port as store

Move = tuple[str, JSON, bool]  # (children attribute, parent id, True: joins / False: leaves)


def links(resource: Resource) -> list[a.Attr]:
    """The resource's children attributes."""
    return [attr for attr in resource.all_attrs if attr.children_of]


def upkeep(resource: Resource, doc: Doc | None, existing: Doc | None, ctx: Context) -> Items:
    """Derived items of a create, edit or delete (`doc` None) of a document: its parents' new
    lists, each `Checked` at the revision read; nothing when its parent references did not move.
    Joining a parent changes it: Forbidden unless the caller may edit that parent (leaving one, the
    caller's own document is taken out of its list)."""
    moves = _moves(links(resource), doc, existing)
    if not moves:
        return []
    child = (doc or existing or {})["id"]
    parents = references.referenced(resource.kind, list(dict.fromkeys(parent for _, parent, _ in moves)), ctx)
    changed: dict[JSON, Doc] = {}
    for name, parent_id, joins in moves:
        if parent_id not in parents:
            continue  # gone: nothing lists the child
        if joins:
            access.require(ctx, resource, Action.EDIT, parents[parent_id])
        parent = changed.setdefault(parent_id, copy.deepcopy(parents[parent_id]))
        ids = [i for i in parent.get(name) or [] if i != child]
        parent[name] = sorted(ids + [child]) if joins else ids
    return [
        (resource.kind, parent_id, store.Checked(parent, int(parent["_rev"])))
        for parent_id, parent in changed.items()
        if parent != parents[parent_id]
    ]


def _moves(attrs: Sequence[a.Attr], doc: Doc | None, existing: Doc | None) -> list[Move]:
    """The parents a write leaves and joins, per children attribute."""
    moves: list[Move] = []
    for attr in attrs:
        key = attr.children_of or ""
        old = existing.get(key) if existing else None
        new = doc.get(key) if doc else None
        if old == new:
            continue
        if old is not None:
            moves.append((attr.name, old, False))
        if new is not None:
            moves.append((attr.name, new, True))
    return moves


def own_parent_errors(resource: Resource, doc: Doc) -> dict[str, list[str]]:
    """A document named as its own parent (an edit: a new one has no id yet), by field."""
    return {
        key: ["A document can not be its own parent."]
        for key in {attr.children_of or "" for attr in links(resource)}
        if doc.get("id") is not None and doc.get(key) == doc.get("id")
    }


def published_first(ids: list[JSON], stored: Callable[[JSON], Doc | None]) -> list[JSON]:
    """Children in Mautic's order, published ones first (`isPublished DESC`), then by id."""
    return sorted(ids, key=lambda i: not (stored(i) or {}).get("isPublished", False))
