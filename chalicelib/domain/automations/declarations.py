"""The automation resource and its events."""
from chalicelib.domain.automations.automations import AutomationHooks, as_ref, as_refs
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.resources import Resource, refs


t, i, b, dt, arr, o = a.text, a.integer, a.boolean, a.datetime_, a.array, a.obj


EVENT_ATTRS = (
    t("name"), t("description"), t("type", required=True),
    a.choice("eventType", "action", "decision", "condition", required=True), i("order"), o("properties"),
    a.choice("triggerMode", "immediate", "interval", "date", default="immediate"), dt("triggerDate"),
    a.Attr("triggerInterval", a.as_int), a.choice("triggerIntervalUnit", "i", "h", "d", "m", "y", default="d"),
    t("triggerHour"), t("triggerRestrictedStartHour"), t("triggerRestrictedStopHour"),
    arr("triggerRestrictedDaysOfWeek"), a.choice("decisionPath", "yes", "no"), t("channel"),
    a.Attr("channelId", a.as_int), a.Attr("parent", as_ref), a.Attr("children", as_refs, default=[]))

AUTOMATION = Resource(
    "automation", "automations", "automation", "automations", category="object", permission="campaign:campaigns",
    attrs=(t("name", required=True), t("description"), t("alias"), refs("lists", "segment"),
           refs("forms", "form"), o("canvasSettings"), b("allowRestart"), b("removeOnSegmentExit", default=True)),
    nested=(a.Nested("events", "automationevent", EVENT_ATTRS),),
    minimal_exclude=("events", "canvasSettings"), uniques=("alias",), hooks=AutomationHooks())
