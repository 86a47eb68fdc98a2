"""The automation resource and its events."""

from chalicelib.domain.automations.automations import AutomationHooks, as_ref, as_refs
from chalicelib.domain.automations.send_windows import as_days, as_hour
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import Resource, refs

EVENT_ATTRS = (
    a.text("name"),
    a.text("description"),
    a.text("type", required=True),
    a.choice("eventType", "action", "decision", "condition", required=True),
    a.integer("order"),
    a.obj("properties"),
    a.choice("triggerMode", "immediate", "interval", "date", default="immediate"),
    a.datetime_("triggerDate"),
    a.Attr("triggerInterval", a.as_int),
    a.choice("triggerIntervalUnit", "i", "h", "d", "m", "y", default="d"),
    a.Attr("triggerHour", as_hour),
    a.Attr("triggerRestrictedStartHour", as_hour),
    a.Attr("triggerRestrictedStopHour", as_hour),
    a.Attr("triggerRestrictedDaysOfWeek", as_days, default=[]),
    a.choice("decisionPath", "yes", "no"),
    a.text("channel"),
    a.Attr("channelId", a.as_int),
    a.Attr("parent", as_ref),
    a.Attr("children", as_refs, default=[]),
)

AUTOMATION = Resource(
    kind="automation",
    prefix="automations",
    singular="automation",
    plural="automations",
    routes="marketing",
    category="object",
    permission="campaign:campaigns",
    attrs=(
        a.text("name", required=True),
        a.text("description"),
        a.text("alias"),
        refs("lists", "segment"),
        refs("forms", "form"),
        a.obj("canvasSettings"),
        a.boolean("allowRestart"),
        a.boolean("removeOnSegmentExit", default=True),
    ),
    nested=(a.Nested("events", "automationevent", EVENT_ATTRS),),
    minimal_exclude=("events", "canvasSettings"),
    uniques=("alias",),
    hooks=AutomationHooks(),
)

# The resources this capability declares, registered by `domain/wiring.py`.
RESOURCES = (AUTOMATION,)
