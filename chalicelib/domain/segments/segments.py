"""Segments: alias, filters validated against the field definitions, background rebuilds when
the filters change, and the rebuild's progress in the representation."""

import copy
from collections.abc import Sequence
from typing import Any

from chalicelib.domain.contacts.custom_fields import definitions
from chalicelib.domain.kernel import access, cache_keys, cached
from chalicelib.domain.kernel.aliases import AliasHooks
from chalicelib.domain.kernel.capability_hooks import Shared
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Write
from chalicelib.domain.kernel.types import Doc, Events
from chalicelib.domain.segments import dependents, membership, rebuilds
from chalicelib.domain.segments.filter_operators import effective_type
from chalicelib.domain.segments.filters import SPECIAL_FIELDS, segments_of, validate
from chalicelib.store.port import Derived

FILTER_KEYS = ("glue", "field", "object", "type", "operator")
SENT = "_filtersSent"  # the filters as the API answers them, in Mautic's shape (an internal key)
ANSWER_KEYS = ("object", "glue", "field", "type", "operator")  # in Mautic's order, then the others, properties


def _answered(raw: Any, legacy: bool) -> Any:
    """A filter as Mautic answers it (`ListApiController::prepareParametersForBinding`): a top-level
    `filter` fills `properties.filter` when that is null, a non-empty `display` fills a missing
    `properties.display`, and both top-level keys go. A PATCH's form starts from the stored filters as
    `LeadList::getFilters` gives them, so it answers (and keeps) both again, mirroring `properties`."""
    if not isinstance(raw, dict):
        return raw
    properties = raw.get("properties")
    properties = dict(properties) if isinstance(properties, dict) else {}
    if properties.get("filter") is None:
        properties["filter"] = raw.get("filter")
    if raw.get("display") and properties.get("display") is None:
        properties["display"] = raw["display"]
    out = {key: raw[key] for key in ANSWER_KEYS if key in raw}
    out.update((key, value) for key, value in raw.items() if key not in (*out, "filter", "display", "properties"))
    out["properties"] = properties
    if legacy:
        out["filter"], out["display"] = properties["filter"], properties.get("display")
    return out


def _normalised(raw: Doc, first: bool) -> Doc:
    """Mautic's shape: legacy top-level `filter`/`display` move into `properties`; first glue is `and`."""
    properties = _answered(raw, False)["properties"]
    item = {key: raw.get(key) for key in FILTER_KEYS}
    item["glue"] = "and" if first else (item["glue"] or "and")
    item["object"] = item["object"] or "lead"
    item["properties"] = properties
    return item


def _field_types(ctx: Context) -> dict[str, dict[str, str]]:
    """{object: {field: type}}: custom fields, and Mautic 5's `group_points_<id>` of each point group (a number;
    its filters name the object `groups`, or `lead`, where Mautic's filter choices put them)."""
    types = {
        name: {f["alias"]: f.get("type") or "text" for f in definitions(name, ctx)} for name in ("lead", "company")
    }
    types["groups"] = {membership.group_field(g["id"]): "number" for g in cached.documents(membership.GROUP_KIND, ctx)}
    return types


class SegmentHooks(AliasHooks, Shared):
    """Filters are checked (400 naming the filter) and stored normalised, with their field's type, for
    evaluation; the API answers them in Mautic's shape (`SENT`). A change of who matches queues a rebuild (see
    domain/segments/rebuilds.py). A global segment (`isGlobal`, the default) is seen by every caller
    who may view segments; a private one only by its author and who sees every segment (`viewother`),
    as Mautic's ListModel::getUserLists and segment list; only those may name it in a reference."""

    def seen_by_viewers(self, doc: Doc) -> bool:
        """Global segments are seen by every viewer of segments, whoever made them."""
        return bool(doc.get("isGlobal", True))

    def choosable(self, doc: Doc, ctx: Context) -> bool:
        """Mautic's segment choices (LeadListRepository::getLists): every global segment, the caller's
        own, and every one for who may view others' segments."""
        return (
            self.seen_by_viewers(doc)
            or access.owner_of(self.resource, doc, ctx) == ctx.user_id
            or access.has(ctx, "lead:lists:viewother")
        )

    def prepare(self, doc: Doc, write: Write) -> None:
        """Filters in Mautic's shape, checked against the fields, each with its field's type."""
        super().prepare(doc, write)
        raw_filters = doc.get("filters") or []
        if "filters" in write.payload or SENT not in doc:
            legacy = write.mode == "patch" and write.existing is not None
            doc[SENT] = [_answered(copy.deepcopy(raw), legacy) for raw in raw_filters]
        filters: list[Doc] = []
        for index, raw in enumerate(raw_filters):
            if not isinstance(raw, dict):
                write.errors[f"filters[{index}]"] = ["This value should be an object."]
                continue
            filters.append(_normalised(raw, not filters))
        doc["filters"] = filters
        if len(filters) == len(raw_filters) and "filters" not in write.errors:
            types = _field_types(write.ctx)
            errors = validate(filters, types)
            write.errors.update(errors)
            for item in [] if errors else filters:
                known = (
                    types.get(item["object"], {}).get(item["field"])
                    or types["groups"].get(item["field"])
                    or SPECIAL_FIELDS.get(item["field"])
                )
                item["type"] = effective_type(item["type"], known) if known else item["type"]
            if not errors:  # filters of a known shape only
                self._check_named(filters, write)

    def _check_named(self, filters: list[Doc], write: Write) -> None:
        """A `leadlist` filter names only segments the caller may choose (a private one of another
        user is refused as Mautic's choice list refuses it: 400 naming the filter's value)."""
        known = {d["id"]: d for d in cached.documents(self.resource.kind, write.ctx)}
        for index, item in enumerate(filters):
            hidden = sorted(i for i in segments_of(item) if i in known and not self.choosable(known[i], write.ctx))
            if hidden:
                write.errors[f"filters[{index}][properties][filter]"] = [
                    f"No segment found with id {', '.join(map(str, hidden))}."
                ]

    def consequences(
        self, doc: Doc | None, existing: Doc | None, ctx: Context, events: Sequence[Doc]
    ) -> tuple[list[Derived], Events]:
        """The rebuild state written with the segment (queued on a change of who matches, gone on delete);
        a segment others filter on is neither unpublished nor deleted (422)."""
        dependents.refuse_if_needed(doc, existing, ctx)
        if doc is None:
            assert existing is not None  # a delete names the document it removes
            return [(rebuilds.KIND, existing["id"], None)], []
        if not rebuilds.needed(doc, existing):
            return [], []
        item, ctx.cache[cache_keys.rebuild(doc["id"])] = rebuilds.queued(doc["id"], ctx.now)
        return [item], []

    def stored(self, doc: Doc | None, existing: Doc | None, ctx: Context) -> None:
        """After the commit: queue the rebuild's plan, or the purge of a deleted segment's members."""
        if doc is None:
            assert existing is not None  # a delete names the document it removes
            rebuilds.purge(existing["id"])
        elif cache_keys.rebuild(doc["id"]) in ctx.cache:
            rebuilds.enqueue(doc["id"], ctx.cache.pop(cache_keys.rebuild(doc["id"])))

    def before_delete(self, doc: Doc, ctx: Context) -> None:
        """Read the rebuild's progress first: the response shows the segment as it was."""
        self.prefetch([doc], ctx)  # the response shows the segment as it was

    def prefetch(self, docs: Sequence[Doc], ctx: Context) -> None:
        """The rebuild progress of a page of segments, in one batch read."""
        wanted = [d["id"] for d in docs if cache_keys.progress(d["id"]) not in ctx.cache]
        if wanted:
            found = rebuilds.progress(wanted)
            ctx.cache.update({cache_keys.progress(i): found.get(i) for i in wanted})

    def present(self, doc: Doc, out: Doc, ctx: Context) -> None:
        """The filters as Mautic answers them (see `_answered`), and the rebuild's progress. The
        normalised filters stay stored for evaluation."""
        out["filters"] = copy.deepcopy(doc[SENT]) if SENT in doc else out.get("filters") or []
        out["rebuild"] = ctx.cache.get(cache_keys.progress(doc["id"]))
        out["building"] = bool(out["rebuild"]) and out["rebuild"]["status"] != "done"
