"""A source document as the payload that creates its copy here: read-only and audit attributes left
out, every reference to another copied document replaced by the copy's id."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chalicelib.movein.mapping import IdMap

Doc = dict[str, Any]
Maps = Mapping[str, IdMap]

AUDIT = (
    "id",
    "dateAdded",
    "dateModified",
    "createdBy",
    "createdByUser",
    "modifiedBy",
    "modifiedByUser",
    "checkedOut",
    "checkedOutBy",
    "checkedOutByUser",
)

# Keys of form action and automation event `properties` that hold ids of copied kinds (Mautic's
# form and campaign action types: email.send.lead, lead.changelist, stage.change, asset.download...).
PROPERTY_REFS = {
    "email": "email",
    "emails": "email",
    "useremail": "email",
    "addToLists": "segment",
    "removeFromLists": "segment",
    "lists": "segment",
    "stage": "stage",
    "asset": "asset",
    "assets": "asset",
    "form": "form",
    "forms": "form",
    "page": "page",
    "pages": "page",
    "group": "pointgroup",
    "category": "category",
    "categories": "category",
}


def mapped(value: Any, mapping: IdMap | None) -> Any:
    """A reference (id, `{"id"}`, or a list of them) as the copies' ids; unknown ones left out (None)."""
    if mapping is None:
        return None
    if isinstance(value, list):
        return [new for new in (mapping.get(v) for v in value) if new is not None]
    if isinstance(value, dict) and "id" not in value:  # Mautic's PHP arrays keyed by index
        return [new for new in (mapping.get(v) for v in value.values()) if new is not None]
    return mapping.get(value)


def properties(props: Any, maps: Maps) -> Any:
    """Action or event properties with the ids they hold remapped (numbers of points kept)."""
    if not isinstance(props, dict):
        return props
    out = dict(props)
    for key, kind in PROPERTY_REFS.items():
        if key in out and out[key] not in (None, "", [], {}):
            out[key] = mapped(out[key], maps.get(kind))
    return out


def plain(doc: Doc, drop: tuple[str, ...], refs: Mapping[str, str], maps: Maps) -> Doc:
    """`doc` without audit and `drop` attributes, its `refs` (attribute -> kind) remapped."""
    out = {key: value for key, value in doc.items() if key not in AUDIT and key not in drop}
    for attribute, kind in refs.items():
        if out.get(attribute) not in (None, [], {}):
            out[attribute] = mapped(out[attribute], maps.get(kind))
    return out


def field_values(doc: Doc) -> Doc:
    """A contact's or company's field values (`fields.all`, or every group's values)."""
    fields = doc.get("fields") or {}
    values = fields.get("all") if isinstance(fields, dict) else None
    if isinstance(values, dict):
        return {k: v for k, v in values.items() if k != "id"}
    out: Doc = {}
    for group in fields.values() if isinstance(fields, dict) else ():
        if isinstance(group, dict):
            out.update({alias: f.get("value") for alias, f in group.items() if isinstance(f, dict)})
    return out


def filters(items: Any, maps: Maps) -> list[Doc]:
    """A segment's filters with the ids they compare with remapped (segments, tags, stages, categories,
    companies, emails); a filter none of whose references is copied yet is left out."""
    refs = {
        "leadlist": "segment",
        "tags": "tag",
        "stage": "stage",
        "globalcategory": "category",
        "lead_email_received": "email",
        "lead_email_sent": "email",
        "lead_email_read_count": "email",
        "campaign": "automation",
        "company": "company",
        "lead_asset_download": "asset",
        "page_id": "page",
        "email_id": "email",
    }
    out = []
    for item in items.values() if isinstance(items, dict) else items or []:
        copy = {k: v for k, v in item.items() if k != "id"}
        kind = refs.get(str(item.get("field")))
        if kind is not None and item.get("type") != "text" and not _remap_filter(copy, maps.get(kind)):
            continue
        out.append(copy)
    return out


def _remap_filter(item: Doc, mapping: IdMap | None) -> bool:
    """Remap the ids a filter compares with, at its top and in its `properties`; False when none of
    them is copied yet (the filter is left out; `memberships.refilter` sets it once they are)."""
    kept = True
    for holder in (item, item.get("properties") if isinstance(item.get("properties"), dict) else None):
        if holder is not None and holder.get("filter") not in (None, "", []):
            holder["filter"] = mapped(holder["filter"], mapping)
            kept = kept and holder["filter"] not in (None, [])
    return kept


def items(value: Any) -> list[Doc]:
    """A list that PHP may have sent as an object keyed by index or id."""
    listed = value.values() if isinstance(value, dict) else value or []
    return [item for item in listed if isinstance(item, dict)]
