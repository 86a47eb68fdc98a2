"""Segments: alias and the stored shape of their filters (evaluation comes with the filter engine)."""
from chalicelib.domain.aliases import AliasHooks

FILTER_KEYS = ("glue", "field", "object", "type", "operator")


class SegmentHooks(AliasHooks):
    """Filters keep Mautic's shape: legacy top-level `filter`/`display` move into `properties`."""

    def prepare(self, resource, doc, write):
        super().prepare(resource, doc, write)
        filters = []
        for index, raw in enumerate(doc.get("filters") or []):
            if not isinstance(raw, dict):
                write.errors[f"filters[{index}]"] = ["This value should be an object."]
                continue
            missing = [k for k in ("field", "operator") if not raw.get(k)]
            if missing:
                write.errors[f"filters[{index}][{missing[0]}]"] = ["A value is required."]
            properties = dict(raw.get("properties") or {})
            for legacy in ("filter", "display"):
                if legacy in raw and legacy not in properties:
                    properties[legacy] = raw[legacy]
            item = {key: raw.get(key) for key in FILTER_KEYS}
            item["glue"] = "and" if not filters else (item["glue"] or "and")
            item["object"] = item["object"] or "lead"
            item["properties"] = properties
            filters.append(item)
        doc["filters"] = filters
