"""What a form submission's actions do (compat 15.3; docs/public-endpoints.md).

- `run`: the actions on the submitting contact (points, tags, segments, UTM tags, do-not-contact
  removal, the stage), applied to the contact document before it is stored; their timeline events.
  `plugin.leadpush` is recorded as a failed action: this service has no integrations to push to.
- `followups` / `queue`: the actions that reach beyond the contact (`form.repost`, the emails,
  `lead.scorecontactscompanies`) become one follow-up item, written in the submission's own
  transaction and queued once it commits; domain/web/form_followups.py performs them in the `webhooks`
  worker, and its minute sweep queues again an item whose message was lost.
- `download_url`: where `asset.download` sends the visitor once the submission is stored.
The properties each action needs are checked when the form is saved (domain/web/form_checks.py).
"""

import secrets
import time
from collections.abc import Iterable, Sequence
from urllib.parse import parse_qsl, urlparse

from chalicelib.domain.contacts import contact_actions, contacts
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import email_messages
from chalicelib.domain.points import group_scores, points_engine
from chalicelib.domain.web import form_uploads
from chalicelib.domain.web.hits import Visit
from chalicelib.ports import queues
from chalicelib.store import port as store
from chalicelib.store.port import Derived

KIND = "formfollowup"
QUEUE = "webhooks"
NOT_OWN_CONSENT = "Only the contact's own browser may change its consent: this email was typed in by another."
FOLLOWUP_TYPES = ("form.repost", "email.send.lead", "email.send.user", "form.email", "lead.scorecontactscompanies")
FAILED = "form.action.failed"
NO_INTEGRATION = "No integration is configured in this service: the contact was not pushed."
ID_SCALE = 10**6  # follow-up ids: nanoseconds since the epoch, then six random digits
OPERATOR_NAMES: dict[JSON, str] = {"+": "plus", "-": "minus", "*": "times", "/": "divide"}  # Mautic's symbols


def ordered(form: Doc) -> list[Doc]:
    """The form's actions in their `order`."""
    return sorted(form.get("actions") or [], key=lambda x: x.get("order") or 0)


def run(form: Doc, doc: Doc, visit: Visit, ctx: Context) -> list[Doc]:
    """Apply the form's submit actions to the contact document; their timeline events."""
    events: list[Doc] = []
    for action in ordered(form):
        props = action.get("properties") or {}
        kind_ = action.get("type")
        if kind_ == "lead.pointschange":
            event = _points_action(doc, action, props, ctx)
            events += [event] if event else []
        elif kind_ == "lead.changetags":
            contacts.change_tags(
                doc,
                points_engine.tag_names(props.get("add_tags")),
                points_engine.tag_names(props.get("remove_tags")),
                ctx,
            )
        elif kind_ == "lead.changelist":
            points_engine.change_segments(doc, props.get("addToLists"), props.get("removeFromLists"), ctx)
        elif kind_ == "lead.remove_do_not_contact" and not visit.owns_contact:
            events.append(failure_event(form, action, NOT_OWN_CONSENT))
        elif kind_ == "lead.remove_do_not_contact":
            channel = str(props.get("channel") or "email")
            doc["doNotContact"] = [e for e in doc.get("doNotContact") or [] if e.get("channel") != channel]
        elif kind_ == "lead.addutmtags":
            events += _utm_action(doc, visit, ctx)
        elif kind_ == "plugin.leadpush":
            events.append(failure_event(form, action, NO_INTEGRATION))
        elif kind_ == "stage.change":
            events += _stage_action(form, action, doc, ctx)
    return events


def _stage_action(form: Doc, action: Doc, doc: Doc, ctx: Context) -> list[Doc]:
    """`stage.change`: the contact enters the stage `stage`, as the stage's add endpoint puts it (its
    `stage.changed` event, none when it is there already); a stage deleted since the form was saved
    is a failed action."""
    origin = f"Form {form.get('name')}"
    try:
        event = contact_actions.enter_stage(doc, (action.get("properties") or {}).get("stage"), origin, ctx)
    except NotFound as missing:
        return [failure_event(form, action, str(missing))]
    return [event] if event else []


def failure_event(form: Doc, action: Doc, reason: str | None, **details: JSON) -> Doc:
    """`form.action.failed` on the contact's timeline: the form, the action and why."""
    return timeline.event(
        FAILED,
        action.get("name") or action.get("type"),
        dict(
            details,
            form={"id": form.get("id"), "name": form.get("name")},
            reason=reason,
            action={k: action.get(k) for k in ("id", "type", "name")},
        ),
    )


def _points_action(doc: Doc, action: Doc, props: Doc, ctx: Context) -> Doc | None:
    """`lead.pointschange`: the contact's points, or with `group` its score in that point group (Mautic
    5's `FormSubscriber::onFormSubmitActionChangePoints`; a group deleted since the form was saved
    scores the points, as Mautic's falls back when the group is not found)."""
    operator = OPERATOR_NAMES.get(props.get("operator"), props.get("operator") or "plus")
    try:
        delta = a.as_int(props.get("points") or 0)
    except a.Invalid:
        delta = 0
    if operator not in contact_actions.OPERATORS:
        return None
    label, details = action.get("name") or "Form submitted", {"action": action.get("name"), "type": "form.submit"}
    group = group_scores.groups(ctx).get(a.id_or_none(props.get("group")) or 0)
    if group is not None:
        return group_scores.adjust(doc, group, operator, delta, label, details, ctx)
    return contact_actions.adjust_points(doc, operator, delta, label, details)


def _utm_action(doc: Doc, visit: Visit, ctx: Context) -> list[Doc]:
    query = dict(parse_qsl(urlparse(visit.referer or "").query))
    query.update({k: v for k, v in visit.query.items() if isinstance(v, str)})
    entry = {
        "id": None,
        "dateAdded": ctx.now,
        "query": query,
        "url": visit.referer,
        "referer": visit.referer,
        "remoteHost": visit.ip,
        "userAgent": None,
    }
    entry.update({key: query.get(name) for name, key in contact_actions.UTM_FIELDS.items() if name.startswith("utm_")})
    return [contact_actions.record_utm(doc, entry)]


# --- after the submission: follow-ups and the download --------------------------------------------


def followups(form: Doc, submission: Doc, contact: Doc, ctx: Context) -> list[tuple[str, int, Doc]]:
    """The derived items ([(kind, id, item)]) to write in the submission's transaction: one follow-up
    item with the form's outside actions, the submission and the contact as stored; [] when none."""
    actions = [action for action in ordered(form) if action.get("type") in FOLLOWUP_TYPES]
    if not actions:
        return []
    form_facts = {k: form.get(k) for k in ("id", "name", "alias")}
    form_facts["passwords"] = [f["alias"] for f in form.get("fields") or [] if f.get("type") == "password"]
    item: Doc = {
        "id": time.time_ns() * ID_SCALE + secrets.randbelow(ID_SCALE),
        "queuedAt": ctx.now,
        "baseUrl": ctx.base_url,
        "actions": actions,
        "form": form_facts,
        "submission": dict(
            {k: submission.get(k) for k in ("id", "dateSubmitted", "referer", "ipAddress", "results")},
            links={
                alias: form_uploads.link(ctx.base_url, form["id"], submission["id"], alias)
                for alias in submission.get("files") or {}
            },
        ),
        "contact": {k: contact.get(k) for k in ("id", "owner", "values", "companies")},
    }
    return [(KIND, item["id"], item)]


def messages(ids: Iterable[int]) -> list[Doc]:
    """The queue messages of follow-up items, by id."""
    return [{"type": "formfollowup", "id": item_id} for item_id in ids]


def queue(derived: Sequence[Derived]) -> None:
    """After the commit: queue the follow-up items among the derived items. Never raises: if SQS
    fails they stay stored and the sweep queues them."""
    queues.send_stored(QUEUE, derived, KIND, "formfollowup")


def download_url(form: Doc, ctx: Context) -> str | None:
    """The download URL of the published asset of the form's first `asset.download` action, or None."""
    for action in ordered(form):
        if action.get("type") != "asset.download":
            continue
        asset_id = a.id_or_none((action.get("properties") or {}).get("asset"))
        asset = store.get("asset", asset_id) if asset_id else None
        if asset and is_published(asset, ctx.now):
            return f"{email_messages.base_url(ctx)}/asset/{asset['id']}:{asset.get('alias')}"
    return None
