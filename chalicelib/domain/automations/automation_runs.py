"""Running automations in the background (the `automations` queue and the minute job).

- `fire`: a pending event fell due: it moves to ready in the contact's write, which runs it (and
  whatever follows at once). An action that reaches outside is claimed in that write (status
  `running`), performed after it, and completed by a second write: it runs at most once.
- `dispatch` (every minute): due items falling due within LOOKAHEAD are queued with an SQS delay
  for their exact time (past the watermark of the previous run); items still there STALE after
  their time lost their message and are queued again. Items naming an `email` are deferred sends
  (`messaging/frequency_caps.py`): they go to the `sends` queue. Writes queue their own near events at once.
- `enroll` / `enroll_batch`: a new source segment's members enter (in batches of contacts).
- `purge`: the memberships of a deleted automation are dropped from its members' documents.
"""

import copy
import json
import math
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from urllib.parse import urlencode

from chalicelib import config
from chalicelib.domain.automations import automation_graph as graph
from chalicelib.domain.automations import company_actions, journey_entry, journey_items, journey_routing, journeys
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import cache_keys, clock, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.subscribers import Change
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import (
    deferred_sends,
    email_messages,
    marketing_messages,
    rendering,
    sending,
    user_emails,
)
from chalicelib.domain.segments import membership, rebuilds
from chalicelib.ports import http, queues
from chalicelib.store import port as store

QUEUE = "automations"
LOOKAHEAD = journey_routing.LOOKAHEAD
STALE = timedelta(minutes=10)
SWEEP_MAX = 1000
ENROLL_BATCH = 100
MARKS = "duemark"

Outcome = tuple[str, str | None]  # (status ok | failed, reason)
ExternalAction = Callable[[Doc, Doc, Doc, Context], Outcome]  # action(properties, contact, event, ctx)


def _contact_kind() -> Resource:
    return CONTACT


# --- telling the worker ----------------------------------------------------------------------------


def _send(targets: Iterable[tuple[int, int, datetime]], now: datetime) -> None:
    """Queue fire messages for [(contact id, due id, due at)], each delayed until its time."""
    by_delay: dict[int, list[Doc]] = {}
    for contact_id, due, at in targets:
        delay = int(min(max((at - now).total_seconds(), 0), queues.MAX_DELAY))
        by_delay.setdefault(delay, []).append({"type": "fire", "contact": contact_id, "due": due})
    for delay, bodies in by_delay.items():
        queues.send(QUEUE, bodies, delay=delay)


def on_contact_stored(change: Change) -> None:
    """Subscriber to stored contact writes: queue the events the write scheduled to run soon."""
    if change.doc is not None:
        queue_due(change.doc, change.existing)


def queue_due(doc: Contact, existing: Contact | None) -> None:
    """After a contact write: queue the events it scheduled that fall due soon (the rest wait for
    `dispatch`). If SQS fails, the due items are still stored and `dispatch` sweeps them."""
    now = clock.now()
    try:
        _send(journey_items.queue_targets(doc, existing, now + LOOKAHEAD), now)
    except queues.QueueError:
        pass


def dispatch() -> None:
    """Queue the events falling due soon, shard by shard, and those whose message was lost."""
    now = clock.now()
    horizon = journey_routing.due_id_floor(now + LOOKAHEAD)
    for shard in range(config.active().AUTOMATION_DUE_SHARDS):
        kind = f"due#{shard}"
        mark = store.get(MARKS, shard) or {"id": shard, "upTo": 0}
        coming = list(store.iterate(kind, between=(mark["upTo"] + 1, horizon)))
        lost = list(
            store.iterate(
                kind, between=(0, min(journey_routing.due_id_floor(now - STALE), mark["upTo"])), limit=SWEEP_MAX
            )
        )
        events = [item for item in coming + lost if not deferred_sends.is_send(item)]
        _send([(item["contact"], item["id"], clock.parse(item["dueAt"])) for item in events], now)
        deferred_sends.wake([item for item in coming + lost if deferred_sends.is_send(item)], now)
        store.put(MARKS, {"id": shard, "upTo": max(horizon, mark["upTo"])})


# --- firing a due event ----------------------------------------------------------------------------


def fire(contact: int, due: int) -> None:
    """Run the pending event `due` of a contact (a no-op when it is gone: done, cancelled, retried)."""
    ctx = Context()
    contacts = _contact_kind()

    def attempt() -> tuple[str, list[tuple[int, int]]]:
        ctx.cache[cache_keys.JOURNEYS_EXTERNAL] = []
        existing = store.get(contacts.kind, contact)
        if existing is None:
            return "gone", []
        doc = copy.deepcopy(existing)
        outcome, events = journeys.take_due(doc, due, ctx)
        if outcome == "taken":
            service.save_change(contacts, existing, doc, ctx, events, stamp=False)
        return outcome, ctx.cache[cache_keys.JOURNEYS_EXTERNAL]

    outcome, claimed = service.retrying(attempt, ctx)
    if outcome == "early":
        queues.send(
            QUEUE,
            [{"type": "fire", "contact": contact, "due": due}],
            delay=min(queues.MAX_DELAY, max(1, (due // journey_routing.ID_SCALE) / 1000 - clock.now().timestamp())),
        )
    for automation_id, event_id in claimed:
        run_external(contact, automation_id, event_id)


def run_external(contact_id: int, automation_id: int, event_id: int) -> None:
    """Perform a claimed outside action, then record its outcome (children reached on success)."""
    ctx = Context()
    automation = journey_routing.by_id(ctx).get(automation_id)
    event = graph.event(automation, event_id) if automation else None
    contact = store.get(_contact_kind().kind, contact_id)
    if automation is None or event is None or contact is None:
        return
    status, reason = EXTERNAL_ACTIONS[event["type"]](event.get("properties") or {}, contact, event, ctx)
    if event["type"] != "lead.deletecontact" or status != "ok":
        _complete(contact_id, automation, event, status, reason, ctx)


def _complete(contact_id: int, automation: Doc, event: Doc, status: str, reason: str | None, ctx: Context) -> None:
    contacts = _contact_kind()

    def attempt() -> None:
        existing = service.load(contacts, contact_id)
        doc = copy.deepcopy(existing)
        entry = journey_entry.entries(doc).get(str(automation["id"]))
        if entry is None or journey_entry.done_status(entry, event["id"]) != "running":
            return
        events = journeys.complete(doc, entry, automation, event, (status, reason), ctx)
        service.save_change(contacts, existing, doc, ctx, events, stamp=False)

    try:
        service.retrying(attempt, ctx)
    except NotFound:
        pass  # deleted meanwhile


# --- outside actions -------------------------------------------------------------------------------


def _pairs(value: JSON) -> dict[str, str]:
    """Key/value pairs from Mautic's `{"list": [{"label", "value"}]}`, a list of those, or an object."""
    if isinstance(value, dict) and "list" in value:
        value = value["list"]
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    return {
        str(p.get("label")): str(p.get("value") or "") for p in value or [] if isinstance(p, dict) and p.get("label")
    }


def _tokens(text: str, contact: Doc, ctx: Context) -> str:
    return rendering.render_text(text, email_messages.contact_sources(contact, ctx))[0]


def _timeout(value: JSON, ceiling: float) -> float:
    """The event's `timeout` in seconds (Mautic's form: a number, 10 by default), kept within the
    service's ceiling; a value that is not a positive finite number takes the ceiling."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return ceiling
    return min(seconds, ceiling) if math.isfinite(seconds) and seconds > 0 else ceiling


def _webhook(props: Doc, contact: Doc, event: Doc, ctx: Context) -> Outcome:
    """`campaign.sendwebhook` (compat 5.4): GET sends the data as a query string; other methods send
    JSON when a JSON content type is configured, else a form; only 200 and 201 count as success."""
    method = str(props.get("method") or "post").upper()
    headers = {k: _tokens(v, contact, ctx) for k, v in _pairs(props.get("headers")).items()}
    data = {k: _tokens(v, contact, ctx) for k, v in _pairs(props.get("additional_data")).items()}
    url, body = str(props.get("url") or ""), None
    if method in ("GET", "DELETE"):
        url += ("&" if "?" in url else "?") + urlencode(data) if data else ""
    elif any(k.lower() == "content-type" and "json" in v.lower() for k, v in headers.items()):
        body = json.dumps(data).encode()
    else:
        body = urlencode(data).encode()
        headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
    timeout = _timeout(props.get("timeout"), config.active().WEBHOOK_TIMEOUT)
    result = http.request(method, url, body, headers, timeout, http.networks(config.active().WEBHOOK_ALLOWED_NETWORKS))
    if result.status in (200, 201):
        return "ok", None
    return "failed", result.error or f"HTTP {result.status}"


def _delete_contact(props: Doc, contact: Doc, event: Doc, ctx: Context) -> Outcome:
    try:
        service.delete(_contact_kind(), contact["id"], ctx)
    except NotFound:
        pass
    return "ok", None


def _send_message(kind: str, key: str) -> ExternalAction:
    def send(props: Doc, contact: Doc, event: Doc, ctx: Context) -> Outcome:
        message = next(iter(a.ids_in(props.get(key))), None)
        if message is None:
            return "failed", f"No {kind} chosen."
        send_one = getattr(sending, f"send_{kind}")
        if kind == "email" and props.get("email_type") == "marketing":
            send_one = deferred_sends.send_marketing  # capped by the contact's frequency rule
        try:
            outcome = send_one(message, contact["id"], ctx, source=("campaign", event["id"]))
        except NotFound:
            return "failed", f"The {kind} {message} does not exist."
        if outcome.get("success") or outcome.get("deferred"):  # a capped text message passes (Mautic's passWithError)
            return "ok", None
        return "failed", str(outcome.get("reason") or outcome)

    return send


def _send_marketing_message(props: Doc, contact: Doc, event: Doc, ctx: Context) -> Outcome:
    """`message.send` (`marketingMessage`): the message's first enabled channel that reaches the
    contact (email, then text message: one refused for do-not-contact, a missing address... falls
    through to the next); web notifications and tweets cannot be sent here."""
    message_id = next(iter(a.ids_in(props.get("marketingMessage"))), None)
    message = store.get("message", message_id) if message_id else None
    if message is None:
        return (
            "failed",
            "No marketing message chosen."
            if message_id is None
            else f"The marketing message {message_id} does not exist.",
        )
    reasons = []
    for channel, content_id in marketing_messages.enabled_channels(message):
        send = getattr(sending, f"send_{channel}", None)
        if send is None:
            reasons.append(f"{channel}: not available in this service")
            continue
        try:
            outcome = send(content_id, contact["id"], ctx, source=("campaign", event["id"]))
        except NotFound:
            reasons.append(f"{channel}: {content_id} does not exist")
            continue
        if outcome.get("success"):
            return "ok", None
        reasons.append(f"{channel}: {outcome.get('reason')}")
    return "failed", "; ".join(reasons) or "The message has no enabled channel."


def _email_users(props: Doc, contact: Doc, event: Doc, ctx: Context) -> Outcome:
    """`email.send.to.user`: the email about the contact to users and addresses (messaging/user_emails.py);
    its messages are claimed per event, contact and rotation."""
    return user_emails.send(props, contact, f"campaign#{journey_entry.run_key(contact, event['id'])}", ctx)


EXTERNAL_ACTIONS = {
    "campaign.sendwebhook": _webhook,
    "lead.deletecontact": _delete_contact,
    "email.send": _send_message("email", "email"),
    "sms.send_text_sms": _send_message("sms", "sms"),
    "message.send": _send_marketing_message,
    "email.send.to.user": _email_users,
    "lead.scorecontactscompanies": company_actions.score_companies,
}


# --- entering from source segments, purging ---------------------------------------------------------


def enroll(automation: int) -> None:
    """Queue the members of a published automation's source segments for entry, in batches."""
    found = journey_routing.by_id(Context()).get(automation)
    if found is None:
        return
    members: dict[int, None] = {}  # an ordered set
    for segment in found.get("lists") or []:
        members.update(
            (row["id"], None) for row in store.iterate(membership.members_kind(segment)) if membership.is_member(row)
        )
    ordered = sorted(members)
    queues.send(
        QUEUE,
        [
            {"type": "enroll-batch", "contacts": ordered[i : i + ENROLL_BATCH]}
            for i in range(0, len(ordered), ENROLL_BATCH)
        ],
    )


def enroll_batch(contacts: Sequence[int]) -> None:
    """Bring these contacts' journeys up to date (those in a source segment enter)."""
    ctx = Context()
    for doc in store.batch_get(_contact_kind().kind, contacts).values():
        rebuilds.refresh_contact(doc, ctx)


def purge(automation: int) -> None:
    """After an automation is deleted: drop its memberships and scheduled events from its members."""
    ctx = Context()
    for row in list(store.iterate(journey_routing.enrolled_kind(automation))):
        doc = store.get(_contact_kind().kind, row["id"])
        if doc is None:
            store.remove(journey_routing.enrolled_kind(automation), row["id"])
        else:
            rebuilds.refresh_contact(doc, ctx)


STEPS = {"fire": fire, "enroll": enroll, "enroll-batch": enroll_batch, "purge": purge}
