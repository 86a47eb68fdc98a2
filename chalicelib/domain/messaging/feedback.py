"""What SES reports back about a sent email (Mautic's transport callback rules): a permanent bounce
makes the recipient do-not-contact on `email`, reason bounced (2), with SES's diagnostic; a
complaint, reason unsubscribed (1); transient bounces are counted and EMAIL_SOFT_BOUNCE_LIMIT of them
within EMAIL_SOFT_BOUNCE_WINDOW_HOURS count as a permanent one; deliveries are counted.

A notification finds its send record by the `X-Mautic-Tracking` header SES echoes back, else by
SES's message id (`sesmessage` / hash of the id, written with the send record). Each send counts at
most one bounce, one complaint and one delivery, whatever the feedback ids: the kind is written on
the send record under its revision before anything else is counted, so a repeated notification (SNS
delivers at least once) or a forged series of them changes nothing, and the reputation guard moves
at most once per send. The do-not-contact entry is added only when the contact has none on `email`.
Only the stack's own account's feedback counts (`foreign`); a message that is not an SES
notification at all is `Poison`, dropped once by the worker.
"""

import json
import logging
import time
from typing import cast

from chalicelib import config, observe
from chalicelib.domain.kernel import nesting, retries, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import email_stats, reputation, sending, tracking
from chalicelib.domain.messaging.records import SendRecord
from chalicelib.store import port as store

UNSUBSCRIBED, BOUNCED = sending.UNSUBSCRIBED, sending.BOUNCED
SUPPRESSED = ("OnAccountSuppressionList", "Suppressed")  # SES did not try: no count in its bounce rate
TRACKING_HEADER = "x-mautic-tracking"
COUNTERS = email_stats.FEEDBACK
KINDS = ("Bounce", "Complaint", "Delivery")
MAX_DEPTH = 32  # nesting levels of a notification (as the API's JSON bodies)
log = logging.getLogger(__name__)


def counter(event: str, email_id: int | str) -> str:
    """The counter of an email's bounces, complaints or deliveries (`COUNTERS`)."""
    return email_stats.feedback_counter(event, email_id)


def counts(email_id: int | str) -> dict[str, int]:
    """{"bounce", "complaint", "delivery"}: what SES reported for an email's sends. One BatchGetItem."""
    found = store.counters([counter(event, email_id) for event in COUNTERS])
    return {event: found.get(counter(event, email_id), 0) for event in COUNTERS}


class Poison(ValueError):
    """A queue message that can never be handled (not JSON, nested too deep, not an object): the
    worker drops it once with a log line instead of failing it into the DLQ."""


def loads(text: str) -> Doc:
    """An SES notification from its JSON text (SNS's `Message`); Poison unless a JSON object of at
    most MAX_DEPTH levels (an SES notification has about five)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise Poison("The notification is not JSON.") from None
    return _object(data)


def _object(data: object) -> Doc:
    """`data` when it is a JSON object of at most MAX_DEPTH levels, else Poison."""
    if not isinstance(data, dict):
        raise Poison("The notification is not a JSON object.")
    if nesting.depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise Poison(f"The notification nests more than {MAX_DEPTH} levels.")
    return cast(Doc, data)


def unwrap(body: Doc) -> Doc:
    """The SES notification of a queue message: SNS's envelope (`Message`, a JSON string) or the
    notification itself (raw delivery); Poison when it cannot be one."""
    if body.get("Type") != "Notification":
        return _object(body)
    message = body.get("Message")
    if not isinstance(message, str):
        raise Poison("The SNS notification has no Message text.")
    return loads(message)


def account_of(arn: object) -> str:
    """The account of an ARN (`arn:<partition>:<service>:<region>:<account>:...`), "" when none."""
    parts = str(arn or "").split(":")
    return parts[4] if len(parts) > 5 and parts[0] == "arn" else ""


def foreign(body: Doc, notification: Doc) -> str | None:
    """Why a notification is not the stack's own SES feedback, or None: an SNS envelope's topic or
    the notification's `mail.sendingAccountId` names another account than STACK_ACCOUNT_ID (each
    checked when present: the queue takes only the stack's topic and the callback, which requires
    both)."""
    account = config.active().STACK_ACCOUNT_ID
    topic = body.get("TopicArn") if body.get("Type") == "Notification" else None
    if topic is not None and (not account or account_of(topic) != account):
        return f"topic {str(topic)[:200]!r} is not of account {account!r}"
    sender = (notification.get("mail") or {}).get("sendingAccountId")
    if sender is not None and (not account or str(sender) != account):
        return f"sendingAccountId {str(sender)[:20]!r} is not {account!r}"
    return None


def _stat_of(mail: Doc) -> SendRecord | None:
    """The send record of a notification's `mail`: the tracking header, else the message id."""
    for header in mail.get("headers") or []:
        if isinstance(header, dict) and str(header.get("name", "")).lower() == TRACKING_HEADER:
            found = email_stats.find(str(header.get("value", "")).strip())
            if found is not None:
                return found
    return email_stats.by_message_id(str(mail.get("messageId") or ""))


def _kind(notification: Doc) -> str:
    """Bounce, Complaint or Delivery (identity notifications say notificationType, event publishing
    eventType); else the part the notification carries."""
    named = str(notification.get("notificationType") or notification.get("eventType") or "")
    if named in KINDS:
        return named
    return next((kind for kind in KINDS if isinstance(notification.get(kind.lower()), dict)), named)


def _feedback_id(notification: Doc, kind: str) -> str:
    """What tells one notification from another: SES's feedback id, else the kind and message id."""
    part = notification.get(kind.lower()) or {}
    return str(part.get("feedbackId") or f"{kind}:{(notification.get('mail') or {}).get('messageId')}")[:200]


def handle(body: Doc) -> str:
    """One notification of the feedback queue; what it did (for logs and tests). Raises Poison for a
    message that can never be handled."""
    notification = unwrap(body)
    kind = _kind(notification)
    if kind not in KINDS:
        return "ignored"
    refusal = foreign(body, notification)
    if refusal is not None:
        log.warning("SES feedback dropped: %s", refusal)
        observe.metrics({"Feedback": kind}, ForeignFeedback=1)
        return "foreign"
    stat = _stat_of(notification.get("mail") or {})
    if stat is None:
        observe.metrics({"Feedback": kind}, UnmatchedFeedback=1)
        return "unmatched"
    part = notification.get(kind.lower())
    part = part if isinstance(part, dict) else {}
    noted = _note(stat, _feedback_id(notification, kind), kind, part)
    return "repeated" if noted is None else _count(*noted, kind, part)


def _count(stat: SendRecord, upgraded: bool, kind: str, part: Doc) -> str:
    """What a notification counts, the first time its kind reaches the send record."""
    ctx = Context()
    if kind == "Delivery":
        store.add(counter("delivery", stat["email"]["id"]))
        return "delivered"
    if kind == "Complaint":
        store.add(counter("complaint", stat["email"]["id"]))
        reputation.count("complaint")
        _dnc(stat, UNSUBSCRIBED, f"Complaint ({part.get('complaintFeedbackType') or 'abuse'}) reported by SES.", ctx)
        return "complained"
    return _bounce(stat, part, upgraded, ctx)


def _applies(current: SendRecord, kind: str, part: Doc) -> bool:
    """Whether a notification of `kind` still counts on the send record: one delivery, one complaint
    and one bounce per send, whatever the feedback ids; a permanent bounce after a transient one
    still makes the contact do-not-contact (it is not counted as a second bounce)."""
    if kind == "Delivery":
        return not current.get("delivered")
    if kind == "Complaint":
        return not current.get("complained")
    before = current.get("bounced")
    return not before or (before != "Permanent" and part.get("bounceType") == "Permanent")


def _note(stat: SendRecord, feedback_id: str, kind: str, part: Doc) -> tuple[SendRecord, bool] | None:
    """Record the notification on the send record (failed on a bounce): the record and whether a
    bounce upgrades an earlier transient one; None when its kind was recorded already."""
    read = [stat]

    def attempt() -> tuple[SendRecord, bool] | None:
        current = read.pop() if read else tracking.stat_of(stat["trackingHash"])
        if not _applies(current, kind, part):
            return None
        doc = cast(SendRecord, dict(current))
        doc["feedback"] = list(current.get("feedback") or []) + [feedback_id]
        if kind == "Bounce":
            doc["isFailed"] = True
            doc["bounced"] = str(part.get("bounceType") or "Undetermined")[:20]
        elif kind == "Complaint":
            doc["complained"] = True
        else:
            doc["delivered"] = True
        email_stats.save(doc)
        return doc, bool(current.get("bounced"))

    return retries.settled(attempt)


def diagnostic(part: Doc, address: str) -> str:
    """SES's words about a bounce: the recipient's diagnostic code, else its status and the bounce type."""
    recipients = part.get("bouncedRecipients") or []
    mine = next((r for r in recipients if str(r.get("emailAddress", "")).lower() == address.lower()), None)
    chosen = mine or (recipients[0] if recipients else {})
    text = chosen.get("diagnosticCode") or chosen.get("status") or ""
    kind = f"{part.get('bounceType') or 'Undetermined'}/{part.get('bounceSubType') or 'General'}"
    return f"{kind}: {text}".rstrip(": ").strip()


def _bounce(stat: SendRecord, part: Doc, upgraded: bool, ctx: Context) -> str:
    """A bounce: permanent → do-not-contact (bounced) at once; transient → counted in the contact's
    current window, the EMAIL_SOFT_BOUNCE_LIMIT-th makes it do-not-contact. `upgraded`: a permanent
    bounce after a transient one of the same send, counted in the email's bounces already."""
    if not upgraded:
        store.add(counter("bounce", stat["email"]["id"]))
    reason = diagnostic(part, stat.get("emailAddress") or "")
    if part.get("bounceType") == "Permanent":
        _dnc(stat, BOUNCED, reason, ctx)
        if part.get("bounceSubType") not in SUPPRESSED:
            reputation.count("bounce")
        return "bounced"
    window = max(1, int(config.active().EMAIL_SOFT_BOUNCE_WINDOW_HOURS * 3600))
    seen = store.add(f"softbounce#{stat['lead']['id']}#{int(time.time()) // window}")
    _event(stat, "email.softbounce", reason, ctx)
    if config.active().EMAIL_SOFT_BOUNCE_LIMIT > 0 and seen >= config.active().EMAIL_SOFT_BOUNCE_LIMIT:
        hours = config.active().EMAIL_SOFT_BOUNCE_WINDOW_HOURS
        _dnc(stat, BOUNCED, f"{seen} transient bounces within {hours:g} h: {reason}", ctx)
        return "bounced"
    return "softbounced"


def _event(stat: SendRecord, event_type: str, reason: str, ctx: Context) -> None:
    details = {"emailId": stat["email"]["id"], "statId": stat["id"], "reason": reason}
    sending.write_contact(stat["lead"]["id"], lambda doc: [timeline.event(event_type, reason, details)], ctx)


def _dnc(stat: SendRecord, reason: int, comments: str, ctx: Context) -> None:
    """Do-not-contact on `email` for the contact the send went to (sending.mark_dnc)."""
    sending.mark_dnc(stat["lead"]["id"], stat["email"]["id"], reason, comments, ctx)
