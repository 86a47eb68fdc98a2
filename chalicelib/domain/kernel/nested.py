"""Nested collections written through the parent payload (form fields and actions, events...).

An item with the id of an existing item edits it; any other item (no id, or a client-side
temporary id such as `new1`) is new: it keeps the client's id as a placeholder, which hooks
may use to link items, until the whole request is valid and it gets an id from the counter.
With replace (PUT), existing items absent from the payload go away.
"""

from collections.abc import Iterable, Mapping

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.store import port as store

Pending = list[tuple[a.Nested, JSON, Doc]]  # new items awaiting ids: (collection, client id, item)


def _existing_id(raw_id: JSON, by_id: Mapping[int, Doc]) -> int | None:
    """The id of the existing item a payload item with `raw_id` edits, or None for a new item."""
    try:
        number = int(raw_id)
    except (TypeError, ValueError):
        return None
    return number if number in by_id else None


def merge(
    spec: a.Nested, existing: list[Doc], incoming: JSON, replace: bool, errors: dict[str, list[str]]
) -> tuple[list[Doc], Pending]:
    """The collection after applying `incoming`; returns (items, new items awaiting ids)."""
    try:
        incoming = a.as_list(incoming)
    except a.Invalid as error:
        errors[spec.name] = [str(error)]
        return existing, []
    by_id = {item["id"]: item for item in existing}
    result: dict[object, Doc] = {} if replace else {item["id"]: item for item in existing}
    new: Pending = []
    for index, raw in enumerate(incoming):
        if not isinstance(raw, dict):
            errors[f"{spec.name}[{index}]"] = ["This value should be an object."]
            continue
        known = _existing_id(raw.get("id"), by_id)
        item = dict(by_id[known]) if known is not None else {x.name: x.fresh_default() for x in spec.attrs}
        _apply_item(spec, item, raw, index, errors)
        if known is None:
            item["id"] = raw.get("id")
            new.append((spec, raw.get("id"), item))
            result[("new", index)] = item
        else:
            result[known] = item
    items = list(result.values())
    for position, item in enumerate(items, start=1):
        if "order" in item and not item.get("order"):
            item["order"] = position
    return items, new


def _apply_item(spec: a.Nested, item: Doc, raw: Doc, index: int, errors: dict[str, list[str]]) -> None:
    """Apply one payload item's attributes to `item`; messages go to `errors` by item and attribute."""
    for attr in spec.attrs:
        if attr.name in raw and attr.writable:
            try:
                item[attr.name] = attr.clean(raw[attr.name])
            except a.Invalid as error:
                errors[f"{spec.name}[{index}][{attr.name}]"] = [str(error)]
    for attr in spec.attrs:
        if attr.required and item.get(attr.name) in (None, ""):
            errors.setdefault(f"{spec.name}[{index}][{attr.name}]", ["A value is required."])


def assign_ids(pending: Iterable[tuple[a.Nested, JSON, Doc]]) -> dict[tuple[str, str], int]:
    """Give the new items their ids (one counter call per collection kind).

    Returns {(collection name, client id): new id} for items that came with a temporary id."""
    mapping: dict[tuple[str, str], int] = {}
    by_kind: dict[str, Pending] = {}
    for spec, client_id, item in pending:
        by_kind.setdefault(spec.id_kind, []).append((spec, client_id, item))
    for kind, group in by_kind.items():
        for new_id, (spec, client_id, item) in zip(store.allocate_ids(kind, len(group)), group, strict=True):
            item["id"] = new_id
            if client_id not in (None, ""):
                mapping[(spec.name, str(client_id))] = new_id
    return mapping
