"""The resources of points: point actions, point triggers and point groups."""

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import Resource, ref
from chalicelib.domain.points.catalog import EXTRA_TRIGGER_EVENT_TYPES, TRIGGER_EVENT_TYPES
from chalicelib.domain.points.groups import PointGroupHooks
from chalicelib.domain.points.points import PointActionHooks, TriggerHooks

POINT = Resource(
    kind="point",
    prefix="points",
    singular="point",
    plural="points",
    routes="points",
    keyed_list=False,
    category="title",
    permission="point:points",
    attrs=(
        a.text("name", required=True),
        a.text("description"),
        a.text("type", required=True),
        a.Attr("delta", a.as_int32, default=0),  # PointEntityValidationTest: a 32-bit column
        a.obj("properties"),
        a.boolean("repeatable"),
        ref("group", "pointgroup"),
    ),
    commands=frozenset({"ids"}),
    hooks=PointActionHooks(),
)

TRIGGER = Resource(
    kind="trigger",
    prefix="points/triggers",
    singular="trigger",
    plural="triggers",
    routes="points",
    keyed_list=False,
    category="title",
    permission="point:triggers",
    attrs=(
        a.text("name", required=True),
        a.text("description"),
        a.Attr("scoreId", a.as_int),
        a.integer("points"),
        a.text("color"),
        a.boolean("triggerExistingLeads"),
        ref("group", "pointgroup"),
    ),
    nested=(
        a.Nested(
            "events",
            "triggerevent",
            (
                a.choice("type", *TRIGGER_EVENT_TYPES, *EXTRA_TRIGGER_EVENT_TYPES, required=True),
                a.text("name"),
                a.text("description"),
                a.integer("order"),
                a.obj("properties"),
            ),
        ),
    ),
    commands=frozenset({"ids"}),
    minimal_exclude=("events",),
    hooks=TriggerHooks(),
)

POINT_GROUP = Resource(
    kind="pointgroup",
    prefix="points/groups",
    singular="pointGroup",
    plural="pointGroups",
    routes="points",
    audit="A-",
    keyed_list=False,
    permission="point:groups",
    attrs=(a.text("name", required=True), a.text("description")),
    commands=frozenset({"ids", "is:published", "is:unpublished"}),
    summary=("id", "name", "description"),
    hooks=PointGroupHooks(),
)

# The resources this capability declares, registered by `domain/wiring.py`.
RESOURCES = (POINT, TRIGGER, POINT_GROUP)
