"""What automation events do: actions applied to the contact document, conditions evaluated on it,
decisions matched against the contact's timeline events, and the actions that reach outside
(a webhook, a message, deleting the contact), which the automations worker runs after a write.
"""

import fnmatch
from collections.abc import Callable, Mapping

from chalicelib.domain.contacts import contact_actions, contacts, custom_values
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.contacts.custom_fields import definitions
from chalicelib.domain.kernel import addresses, clock
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import DomainError, NotFound
from chalicelib.domain.kernel.references import referenced
from chalicelib.domain.kernel.types import JSON, Doc, Event, Events
from chalicelib.domain.points import group_scores, points_engine
from chalicelib.domain.segments import filters, membership
from chalicelib.domain.stages import stages

# An action on the contact document: step(properties, contact, automation, ctx) -> its timeline events
# (None: none); raises Passed, or a.Invalid, DomainError or ValueError (the action failed).
Step = Callable[[Doc, Contact, Doc, Context], Events | None]
Condition = Callable[[Doc, Contact, Context], bool | None]  # check(properties, contact, ctx)

EXTERNAL = frozenset(
    {
        "campaign.sendwebhook",
        "email.send",
        "sms.send_text_sms",
        "lead.deletecontact",
        "message.send",
        "email.send.to.user",
        "lead.scorecontactscompanies",
    }
)
UNAVAILABLE = "This event type is not available in this service."
DECISIONS: dict[
    str | None, tuple[str, str, str]
] = {  # decision type: (timeline event type, properties holding the ids it is limited to, detail)
    "form.submit": ("form.submitted", "forms", "form"),
    "page.pagehit": ("page.hit", "pages", "page"),
    "asset.download": ("asset.download", "assets", "asset"),
    "email.open": ("email.read", "emails", "emailId"),
    "email.click": ("page.hit", "emails", "emailId"),
    "email.reply": ("email.replied", "emails", "emailId"),
    "sms.reply": ("sms_reply", "sms", "smsId"),
}
COMPARE = {
    "=": lambda x, y: x == y,
    "!=": lambda x, y: x != y,
    "gt": lambda x, y: x > y,
    "gte": lambda x, y: x >= y,
    "lt": lambda x, y: x < y,
    "lte": lambda x, y: x <= y,
}


def _names(value: JSON) -> list[str]:
    return points_engine.tag_names(value)


# --- decisions -------------------------------------------------------------------------------------


def decided(decision: Doc, automation: Doc, event: Event) -> bool:
    """Whether a timeline event of the contact satisfies a waiting decision (its yes path)."""
    if decision.get("type") == "dwc.decision":  # a page asked for its slot (automations/dwc_requests.py)
        slot = (event.get("details") or {}).get("slot")
        return event.get("event") == "dynamiccontent.requested" and slot == (decision.get("properties") or {}).get(
            "dwc_slot_name"
        )
    wanted = DECISIONS.get(decision.get("type"))
    if wanted is None or event.get("event") != wanted[0]:
        return False
    details, props = event.get("details") or {}, decision.get("properties") or {}
    if decision["type"] in ("email.open", "email.click", "email.reply"):
        if decision["type"] == "email.click" and details.get("emailId") is None:
            return False
        limit = a.ids_in(props.get("emails")) or _parent_email(decision, automation)
    else:
        if decision["type"] == "page.pagehit" and details.get("emailId") is not None:
            return False
        limit = a.ids_in(props.get(wanted[1]))
    if limit and not {a.id_or_none(details.get(wanted[2])), a.id_or_none(details.get("requestedEmailId"))} & limit:
        return False
    return _url_matches(decision, details)


def _parent_email(decision: Doc, automation: Doc) -> set[int | str]:
    parent = next((e for e in automation.get("events") or [] if e["id"] == decision.get("parent")), None)
    if not parent or parent.get("type") != "email.send":
        return set()
    return a.ids_in((parent.get("properties") or {}).get("email"))


def _url_matches(decision: Doc, details: Doc) -> bool:
    pattern = str((decision.get("properties") or {}).get("url") or "").strip()
    if decision["type"] != "page.pagehit" or not pattern:
        return True
    return fnmatch.fnmatchcase(str(details.get("url") or ""), pattern if "*" in pattern else f"*{pattern}*")


# --- conditions ------------------------------------------------------------------------------------


def condition(event: Doc, doc: Contact, ctx: Context) -> bool | None:
    """True (yes path) / False (no path) for a condition on the contact; None when this service
    cannot evaluate that condition type."""
    props = event.get("properties") or {}
    check = CONDITIONS.get(event.get("type"))
    return None if check is None else check(props, doc, ctx)


def _field_value(props: Doc, doc: Contact, ctx: Context) -> bool | None:
    field = props.get("field")
    types = {f["alias"]: f.get("type") or "text" for f in definitions("lead", ctx)}
    item = {
        "glue": "and",
        "field": field,
        "object": "lead",
        "type": (types.get(field) or filters.SPECIAL_FIELDS.get(field)) if isinstance(field, str) else None,
        "operator": props.get("operator") or "=",
        "properties": {"filter": props.get("value")},
    }
    if filters.validate([item], {"lead": types}):
        return None
    subject = membership.subject(doc, ctx, False)
    return filters.compile_filters([item]).matches(subject, clock.parse(ctx.now))


def _points(props: Doc, doc: Contact, ctx: Context) -> bool | None:
    """Mautic's `lead.points`: the contact's points, or with `group` its score in that point group,
    compared with `score`; a contact without a score in the group (or a group gone) is on the no path,
    whatever the operator (Mautic's `GroupContactScoreRepository::compareScore` finds no row)."""
    compare = COMPARE.get(props.get("operator") or "gte")
    try:
        score = a.as_int(props.get("score", props.get("points", 0)) or 0)
    except a.Invalid:
        return None
    if compare is None:
        return None
    if props.get("group") in (None, ""):
        return compare(int(doc["values"].get("points") or 0), score)
    group_id = a.id_or_none(props.get("group"))
    if group_id not in group_scores.groups(ctx) or str(group_id) not in (doc.get("groupScores") or {}):
        return False
    return compare(group_scores.score(doc, group_id), score)


def _tags(props: Doc, doc: Contact, ctx: Context) -> bool:
    wanted = {str(t).lower() for t in a.as_list(props.get("tags") or [])}
    return any(str(t["id"]) in wanted or t["tag"].lower() in wanted for t in doc.get("tags") or [])


def _valid_email(props: Doc, doc: Contact, ctx: Context) -> bool:
    return addresses.normalized(doc["values"].get("email") or "") is not None


def _in_automations(props: Doc, doc: Contact, ctx: Context) -> bool:
    wanted = a.ids_in(props.get("campaigns"))
    return any(
        int(k) in wanted and e.get("active") and not e.get("manuallyRemoved")
        for k, e in (doc.get("automations") or {}).items()
    )


CONDITIONS: dict[str | None, Condition] = {
    "lead.field_value": _field_value,
    "lead.points": _points,
    "lead.tags": _tags,
    "lead.segments": lambda p, d, c: any(
        membership.is_member((d.get("segments") or {}).get(str(s))) for s in a.ids_in(p.get("segments"))
    ),
    "lead.owner": lambda p, d, c: d.get("owner") in a.ids_in(p.get("owner")),
    "lead.campaigns": _in_automations,
    "lead.dnc": lambda p, d, c: any(
        e["channel"] in set(a.as_list(p.get("channels") or ["email"])) for e in d.get("doNotContact") or []
    ),
    "email.validate.address": _valid_email,
    "lead.stages": lambda p, d, c: d.get("stage") in a.ids_in(p.get("stages")),
    "lead.device": lambda p, d, c: False,  # names Matomo brand and OS codes, which devices.py does not give
    "notification.has.active": lambda p, d, c: False,  # no web push subscriptions
}


# --- actions on the contact document ---------------------------------------------------------------


class Passed(Exception):
    """An action that leaves the contact as it is and still passes, with its reason (Mautic's
    `passWithError`: the journey goes on)."""


def act(
    event: Doc, doc: Contact, automation: Doc, ctx: Context, actions: Mapping[str | None, Step] | None = None
) -> tuple[str, str | None, Events]:
    """Apply an action to the contact document: (status `ok`/`failed`, reason, timeline events).
    `actions` adds to ACTIONS (the journey moves of `journeys`)."""
    action = (actions or {}).get(event.get("type")) or ACTIONS.get(event.get("type"))
    if action is None:
        return "failed", UNAVAILABLE, []
    try:
        return ("ok", None, action(event.get("properties") or {}, doc, automation, ctx) or [])
    except Passed as passed:
        return "ok", str(passed), []
    except (a.Invalid, DomainError, ValueError) as error:
        return "failed", str(error) or type(error).__name__, []


def _change_points(props: Doc, doc: Contact, automation: Doc, ctx: Context) -> Events:
    """Mautic's `lead.changepoints`: `points` added to the contact's points, or with `group` (a point
    group that exists) to its score in that group; the triggers the change crosses fire."""
    old = int(doc["values"].get("points") or 0)
    delta = a.as_int(props.get("points") or 0)
    label, details = (
        f"Automation {automation.get('name')}",
        {"action": automation.get("name"), "type": "campaign.event"},
    )
    found = group_scores.groups(ctx).get(a.id_or_none(props.get("group")) or 0)
    if delta == 0:  # Mautic does nothing for no points (`!empty($points)`)
        return []
    if found is not None:  # an unknown group scores the points, as Mautic's subscriber falls back
        event = group_scores.adjust(doc, found, "plus", delta, label, details, ctx)
    else:
        event = contact_actions.adjust_points(doc, "plus", delta, label, details)
    caused: Events = []
    if event:
        points_engine.run_triggers(doc, old, [event], ctx, caused)
    return [event, *caused] if event else []


def _update_fields(props: Doc, doc: Contact, automation: Doc, ctx: Context) -> Events:
    """Mautic's `lead.updatelead`: each field given a value takes it; `points` too, set to the number
    given (`CampaignSubscriberFunctionalTest::testUpdateLeadAction`), as a points change that the
    point triggers see."""
    known = {f["alias"]: f for f in definitions("lead", ctx)}
    for alias, value in props.items():
        if alias in known and value not in (None, "") and alias != "points":
            try:
                doc["values"][alias] = custom_values.coerce_value(known[alias], value)
            except a.Invalid as error:
                raise a.Invalid(f"{alias}: {error}") from None
    if props.get("points") in (None, ""):
        return []
    try:
        wanted = a.as_int(props["points"])
    except a.Invalid as error:
        raise a.Invalid(f"points: {error}") from None
    return _change_points({"points": wanted - int(doc["values"].get("points") or 0)}, doc, automation, ctx)


def _change_owner(props: Doc, doc: Contact, automation: Doc, ctx: Context) -> None:
    owner = a.id_or_none(props.get("owner"))
    if owner is None or not referenced("user", [owner], ctx):
        raise a.Invalid(f"No user with id {props.get('owner')}.")
    doc["owner"] = owner


def _channels(props: Doc) -> list[str]:
    return [str(c) for c in a.as_list(props.get("channels") or ["email"])]


def _add_dnc(props: Doc, doc: Contact, automation: Doc, ctx: Context) -> Events:
    comment = props.get("reason") or f"Automation {automation.get('name')}"
    return [contact_actions.set_dnc(doc, channel, 3, comment, None, ctx) for channel in _channels(props)]


def _remove_dnc(props: Doc, doc: Contact, automation: Doc, ctx: Context) -> Events:
    return [e for e in (contact_actions.clear_dnc(doc, channel) for channel in _channels(props)) if e]


def _add_to_company(props: Doc, doc: Contact, automation: Doc, ctx: Context) -> None:
    company_id = a.id_or_none(props.get("company"))
    company = referenced("company", [company_id], ctx).get(company_id) if company_id else None
    if company is None:
        raise NotFound()
    contact_actions.link_company(doc, company, ctx)


def _change_stage(props: Doc, doc: Contact, automation: Doc, ctx: Context) -> Events:
    """Mautic's `stage.change`: into the stage `stage` unless it is gone or unpublished, the contact
    is in it, or in a stage of higher weight (each passes with its reason)."""
    stage_id = a.id_or_none(props.get("stage"))
    stage = referenced("stage", [stage_id], ctx).get(stage_id) if stage_id else None
    reason = stages.refusal(doc, stage, ctx)
    if reason:
        raise Passed(reason)
    assert stage is not None  # refusal() names a missing stage
    event = contact_actions.set_stage(doc, stage, f"Automation {automation.get('name')}")
    return [event] if event else []  # refusal() names the stage the contact is in: an event


def _change_segments(props: Doc, doc: Contact, automation: Doc, ctx: Context) -> Events:
    points_engine.change_segments(doc, props.get("addToLists"), props.get("removeFromLists"), ctx)
    return []


ACTIONS: dict[str | None, Step] = {
    "lead.changepoints": _change_points,
    "lead.changelist": _change_segments,
    "lead.changetags": lambda p, d, auto, c: contacts.change_tags(
        d, _names(p.get("add_tags")), _names(p.get("remove_tags")), c
    ),
    "lead.updatelead": _update_fields,
    "lead.changeowner": _change_owner,
    "lead.adddnc": _add_dnc,
    "lead.removednc": _remove_dnc,
    "lead.addtocompany": _add_to_company,
    "stage.change": _change_stage,
}
