"""An A/B test starts over when a version of it changes, as Mautic's `VariantModelTrait`
(`preVariantSaveEntity`, `postVariantSaveEntity`, `resetVariants`) does for pages and emails: the
test's stored counts (`Hooks.variant_counts`) go back to 0 and its `variantStartDate` becomes now,
on the document written and on the related ones Mautic's `getRelatedEntityIds` names.

A write restarts when the document, as written, is a variant (it has a `variantParent` or
`variantChildren`; for pages also a translation of a variant), it is new or changed one of its
writable attributes, and it is published or its `isPublished` changed. The related documents are
the test's parent and children with the translations of the one written and of each child (not the
parent's translations when a child is written: Mautic appends those of `$this`, then the children's).

Everything happens in the edit's own transaction: the related documents are put at the revision
read (`store.Checked`: a write meanwhile makes the edit `Stale`, run again on a fresh read), and the
live counters are moved back by what was read (`Hooks.zero_variant_counts`), so a hit or send
counted between the read and the commit counts for the new test, and two restarts of one test can
not both subtract the same counts (both check the same documents). A test whose restart needs more
than `RESTART_ITEMS` items (about 16 emails with all five counters moved, 80 pages) is refused (400
on `variantParent`), nothing written: a DynamoDB transaction holds 100 items."""

import copy
from collections.abc import Iterable

from chalicelib.domain.kernel import references
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import ValidationError
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.types import JSON, Doc, Items
from chalicelib.store import port as store

RESTART_ITEMS = store.TRANSACTION_ITEMS - 20  # the restart's share of the edit's transaction (the rest: the
# document, its timeline events, webhook outbox, counts)


class _Test:
    """The documents of one test as the write leaves them: the one written, the parents' lists the
    write already changes (`Checked` items of `derived`), the rest read on demand with the request's
    memo of references (one BatchGetItem per round: the parent, then the children and translation
    parents, then their translations; none for what the request read already)."""

    def __init__(self, kind: str, doc: Doc, derived: Items, ctx: Context) -> None:
        self.kind = kind
        self.ctx = ctx
        self.docs: dict[int, Doc | None] = {int(doc["id"]): doc}
        self.revs: dict[int, int] = {}
        for item_kind, item_id, item in derived:
            if item_kind == kind and isinstance(item, store.Checked):
                self.docs[int(item_id)] = item.doc
                self.revs[int(item_id)] = item.rev

    def load(self, ids: Iterable[JSON]) -> list[Doc]:
        """The documents of `ids` (absent ones left out), reading those not yet in hand at once."""
        wanted = [int(i) for i in ids if i is not None]
        missing = [i for i in dict.fromkeys(wanted) if i not in self.docs]
        found = references.referenced(self.kind, missing, self.ctx) if missing else {}
        for i in missing:
            self.docs[i] = copy.deepcopy(found[i]) if i in found else None
            if i in found:
                self.revs[i] = int(found[i]["_rev"])
        return [doc for doc in (self.docs[i] for i in wanted) if doc is not None]

    def one(self, doc_id: JSON) -> Doc | None:
        """The document of `doc_id`, or None."""
        found = self.load([doc_id])
        return found[0] if found else None


def _is_variant(doc: Doc | None) -> bool:
    """Mautic's `isVariant()`: a variant parent or variant children."""
    return bool(doc and (doc.get("variantParent") or doc.get("variantChildren")))


def _changes(resource: Resource, doc: Doc, existing: Doc) -> set[str]:
    """The writable attributes the write changed (Mautic's `getChanges()`), counts aside (their setters
    record no change)."""
    counts = set(resource.hooks.variant_counts) | set(resource.hooks.untracked)
    return {
        attr.name
        for attr in resource.all_attrs
        if attr.writable and attr.name not in counts and doc.get(attr.name) != existing.get(attr.name)
    }


def _restarts(resource: Resource, doc: Doc, existing: Doc | None, test: _Test) -> bool:
    """Whether the write restarts the test (`preVariantSaveEntity`): a variant (or a translation of
    one, where the resource says so) that is new, or changed and published or (un)published now."""
    variant = _is_variant(doc)
    if not variant and resource.hooks.translations_restart and doc.get("translationParent"):
        variant = _is_variant(test.one(doc["translationParent"]))
    if not variant:
        return False
    if existing is None:
        return True  # every attribute of a new document is a change, `isPublished` too when false
    changed = _changes(resource, doc, existing)
    return bool(changed) and (bool(doc.get("isPublished")) or "isPublished" in changed)


def _translations(doc: Doc, test: _Test) -> list[int]:
    """Mautic's `appendTranslationEntityIds`: the document's translation parent and that parent's
    translations (or, without one, its own translations)."""
    parent = test.one(doc["translationParent"]) if doc.get("translationParent") else None
    if parent is None:
        return [int(i) for i in doc.get("translationChildren") or []]
    return [int(parent["id"])] + [int(i) for i in parent.get("translationChildren") or []]


def _related(doc: Doc, test: _Test) -> list[Doc]:
    """Mautic's `getRelatedEntityIds()` of the document written, as documents (itself included)."""
    parent = (test.one(doc["variantParent"]) if doc.get("variantParent") else None) or doc
    ids = [int(parent["id"]), int(doc["id"]), *_translations(doc, test)]
    children = test.load(parent.get("variantChildren") or [])
    test.load([child["translationParent"] for child in children if child.get("translationParent")])
    for child in children:
        ids += [int(child["id"]), *_translations(child, test)]
    return test.load(dict.fromkeys(ids))


def restart(resource: Resource, doc: Doc | None, existing: Doc | None, ctx: Context, derived: Items) -> Items:
    """`derived` with the restart of the test the write of `doc` changes, when it does: `doc` and its
    related documents get `variantStartDate` now and their counts 0, the related ones put at their
    revision read, their live counters taken back to 0; else `derived` as it was."""
    if doc is None or not resource.hooks.variant_counts:
        return derived
    test = _Test(resource.kind, doc, derived, ctx)
    if not _restarts(resource, doc, existing, test):
        return derived
    members = _related(doc, test)
    for member in members:
        member["variantStartDate"] = ctx.now
    counters = resource.hooks.zero_variant_counts(members)
    others = {int(m["id"]): m for m in members if m is not doc}
    kept = [item for item in derived if not (item[0] == resource.kind and int(item[1]) in others)]
    puts = [(resource.kind, i, store.Checked(m, test.revs[i])) for i, m in others.items()]
    if len(puts) + len(counters) > RESTART_ITEMS:
        raise ValidationError({"variantParent": [f"An A/B test this large ({len(members)} versions) can not restart."]})
    return kept + puts + counters
