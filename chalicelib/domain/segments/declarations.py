"""The segment resource."""
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.segments.segments import SegmentHooks


t, b, arr = a.text, a.boolean, a.array


SEGMENT = Resource(
    "segment", "segments", "list", "lists", audit="A-", category="object", permission="lead:lists",
    attrs=(t("name", required=True), t("alias"), t("publicName"), t("description"), arr("filters"),
           b("isGlobal", default=True), b("isPreferenceCenter")),
    uniques=("alias",), summary=("id", "name", "publicName", "alias", "description", "category"),
    hooks=SegmentHooks())
