"""The resources of points: point actions, point triggers and point groups."""
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import Resource, ref
from chalicelib.domain.points.catalog import TRIGGER_EVENT_TYPES
from chalicelib.domain.points.groups import PointGroupHooks
from chalicelib.domain.points.points import PointActionHooks, TriggerHooks


t, i, b, o = a.text, a.integer, a.boolean, a.obj


POINT = Resource(
    "point", "points", "point", "points", keyed_list=False, category="title", permission="point:points",
    attrs=(t("name", required=True), t("description"), t("type", required=True), i("delta"), o("properties"),
           b("repeatable"), ref("group", "pointgroup")),
    commands=frozenset({"ids"}), hooks=PointActionHooks())

TRIGGER = Resource(
    "trigger", "points/triggers", "trigger", "triggers", keyed_list=False, category="title",
    permission="point:triggers",
    attrs=(t("name", required=True), t("description"), a.Attr("scoreId", a.as_int), i("points"), t("color"),
           b("triggerExistingLeads"), ref("group", "pointgroup")),
    nested=(a.Nested("events", "triggerevent", (a.choice("type", *TRIGGER_EVENT_TYPES, required=True), t("name"),
                                                t("description"), i("order"), o("properties"))),),
    commands=frozenset({"ids"}), minimal_exclude=("events",), hooks=TriggerHooks())

POINT_GROUP = Resource(
    "pointgroup", "points/groups", "pointGroup", "pointGroups", audit="A-", keyed_list=False,
    permission="point:groups",
    attrs=(t("name", required=True), t("description")),
    commands=frozenset({"ids", "is:published", "is:unpublished"}), summary=("id", "name", "description"),
    hooks=PointGroupHooks())
