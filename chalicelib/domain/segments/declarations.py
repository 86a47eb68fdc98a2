"""The segment resource."""

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.segments.segments import SegmentHooks

SEGMENT = Resource(
    kind="segment",
    prefix="segments",
    singular="list",
    plural="lists",
    routes="marketing",
    audit="A-",
    category="object",
    permission="lead:lists",
    attrs=(
        a.text("name", required=True),
        a.text("alias"),
        a.text("publicName"),
        a.text("description"),
        a.array("filters"),
        a.boolean("isGlobal", default=True),
        a.boolean("isPreferenceCenter"),
    ),
    uniques=("alias",),
    summary=("id", "name", "publicName", "alias", "description", "category"),
    hooks=SegmentHooks(),
)

# The resources this capability declares, registered by `domain/wiring.py`.
RESOURCES = (SEGMENT,)
