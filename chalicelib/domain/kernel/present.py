"""Response representations of stored documents (the properties of each resource's Get).

A reference to another document (an attribute with `ref`: a category, an owner, an email's
segments...) is shown as that document's summary, the object Mautic's serializer nests there, with
the category it names as an object too. A referenced document the caller may not view is shown as
its bare `{"id": N}` (the reference keeps its shape; nothing of the document shows). The documents a
page references are read together: one BatchGetItem per 100 of them, then one for their categories."""

from collections.abc import Iterable, Sequence

from chalicelib.domain.kernel import access, cache_keys, capability_hooks, children, counters, registry
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.references import referenced_many
from chalicelib.domain.kernel.resources import AUDIT_KEYS, Resource
from chalicelib.domain.kernel.types import JSON, Doc

CATEGORY_KEYS = ("id", "title", "alias", "description", "color", "bundle")


def present(resource: Resource, docs: Iterable[Doc], ctx: Context, minimal: bool = False) -> list[Doc]:
    """Representations of documents, in order; what they reference (and what hooks prefetch, such
    as the rebuild progress of segments) fetched once for the whole page."""
    docs = counters.with_counts(resource, list(docs), ctx)  # a page hit's counters, one read per page
    _prefetch(resource, docs, ctx)
    resource.hooks.prefetch(docs, ctx)
    return [_one(resource, doc, ctx, minimal) for doc in docs]


def present_one(resource: Resource, doc: Doc, ctx: Context) -> Doc:
    """The representation of one document."""
    return present(resource, [doc], ctx)[0]


def _ids(value: JSON) -> list[JSON]:
    """The ids a reference holds: a list of them, one, or none."""
    return value if isinstance(value, list) else ([] if value is None else [value])


def _prefetch(resource: Resource, docs: Sequence[Doc], ctx: Context) -> None:
    """Read what the documents reference, then the categories of those, into the request's cache."""
    wanted: dict[str, list[JSON]] = {}
    for attr in resource.all_attrs:
        if attr.ref:
            wanted.setdefault(attr.ref, []).extend(i for doc in docs for i in _ids(doc.get(attr.name)))
    found = referenced_many(wanted, ctx) if any(wanted.values()) else {}
    categories = [
        d.get("category")
        for kind, docs_of in found.items()
        if kind != "category" and "category" in registry.resource(kind).summary
        for d in docs_of.values()
        if d.get("category")
    ]
    if categories:
        referenced_many({"category": categories}, ctx)


def _cached(kind: str, entity_id: JSON, ctx: Context) -> Doc | None:
    """A document of `kind` the request read already, or None."""
    return ctx.cache.get(cache_keys.ref(kind), {}).get(entity_id) if entity_id is not None else None


def _one(resource: Resource, doc: Doc, ctx: Context, minimal: bool) -> Doc:
    """The representation of one document (audit keys, id, attributes, nested items, hooks' additions)."""
    out: Doc = {}
    if resource.audit:
        out.update({key: doc.get(key) for key in AUDIT_KEYS})
    out["id"] = doc.get("id")
    for attr in resource.all_attrs:
        if not attr.hidden:
            value = doc.get(attr.name)
            out[attr.name] = (
                attr.fresh_default() if value is None and (attr.is_array or attr.name not in doc) else value
            )
            if attr.children_of:
                out[attr.name] = children.published_first(out[attr.name], lambda i: _cached(resource.kind, i, ctx))
            if attr.ref and attr.name != "category":
                out[attr.name] = _reference(attr.ref, out[attr.name], ctx)
    for spec in resource.nested:
        out[spec.name] = [dict(item) for item in doc.get(spec.name) or []]
    if resource.category:
        out["category"] = _category(_cached("category", doc.get("category"), ctx), resource.category, ctx)
    resource.hooks.present(doc, out, ctx)
    if minimal:
        for key in resource.minimal_exclude:
            out.pop(key, None)
    return out


def _reference(kind: str, value: JSON, ctx: Context) -> Doc | list[Doc] | None:
    """The summary (or summaries, for a list) of what `value` references; a vanished one is left out."""
    if isinstance(value, list):
        return [s for s in (_summary(kind, _cached(kind, i, ctx), ctx) for i in value) if s is not None]
    return _summary(kind, _cached(kind, value, ctx), ctx)


def _summary(kind: str, doc: Doc | None, ctx: Context) -> Doc | None:
    """What a reference shows of `doc`: its summary (category nested), its bare id if the caller may
    not view it, None when it is gone."""
    if doc is None:
        return None
    referenced = registry.resource(kind)
    if not _viewable(kind, doc, ctx):
        return {"id": doc["id"]}
    out = capability_hooks.summary(referenced, doc, ctx)
    if "category" in out:
        out["category"] = _category(_cached("category", doc.get("category"), ctx), "object", ctx)
    return out


def _viewable(kind: str, doc: Doc, ctx: Context) -> bool:
    """True when the caller may view the referenced `doc`: else only its id shows, whatever path
    presents it (a note's contact, an email's assets, a contact's owner...)."""
    return access.allowed(ctx, registry.resource(kind), Action.VIEW, doc)


def _category(category: Doc | None, style: str, ctx: Context) -> JSON:
    """The category as `style` shows it; one the caller may not view is its bare id (or, shown by
    title, None: a title is all that style has)."""
    if category is None:
        return None
    if not _viewable("category", category, ctx):
        return None if style == "title" else {"id": category["id"]}
    if style == "title":
        return category.get("title")
    return {key: category.get(key) for key in CATEGORY_KEYS}
