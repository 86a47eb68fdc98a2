"""Response representations of stored documents (the properties of each resource's Get)."""
from chalicelib.domain.kernel.resources import AUDIT_KEYS
from chalicelib.domain.kernel.service import referenced

CATEGORY_KEYS = ("id", "title", "alias", "description", "color", "bundle")


def present(resource, docs, ctx, minimal=False):
    """Representations of documents, in order; categories (and what hooks prefetch, such as
    contact owners) fetched once for the whole page."""
    docs = list(docs)
    categories = {}
    if resource.category:
        categories = referenced("category", [d["category"] for d in docs if d.get("category")], ctx)
    resource.hooks.prefetch(resource, docs, ctx)
    return [_one(resource, doc, ctx, categories, minimal) for doc in docs]


def present_one(resource, doc, ctx):
    return present(resource, [doc], ctx)[0]


def _one(resource, doc, ctx, categories, minimal):
    out = {}
    if resource.audit:
        out.update({key: doc.get(key) for key in AUDIT_KEYS})
    out["id"] = doc.get("id")
    for attr in resource.all_attrs:
        if not attr.hidden:
            out[attr.name] = doc.get(attr.name, attr.fresh_default())
    for spec in resource.nested:
        out[spec.name] = [dict(item) for item in doc.get(spec.name) or []]
    if resource.category:
        out["category"] = _category(categories.get(doc.get("category")), resource.category)
    resource.hooks.present(resource, doc, out, ctx)
    if minimal:
        for key in resource.minimal_exclude:
            out.pop(key, None)
    return out


def _category(category, style):
    if category is None:
        return None
    if style == "title":
        return category.get("title")
    return {key: category.get(key) for key in CATEGORY_KEYS}
