"""What SES reports back about a sent email (Mautic's transport callback rules): a permanent bounce
makes the recipient do-not-contact on `email`, reason bounced (2), with SES's diagnostic; a
complaint, reason unsubscribed (1); transient bounces are counted and EMAIL_SOFT_BOUNCE_LIMIT of them
within EMAIL_SOFT_BOUNCE_WINDOW_HOURS count as a permanent one; deliveries are counted.

A notification finds its send record by the `X-Mautic-Tracking` header SES echoes back, else by
SES's message id (`sesmessage` / hash of the id, written with the send record). SNS delivers at
least once: each notification's feedback id is written on the send record under its revision
before anything else is counted, so a repeated one changes nothing; the do-not-contact entry is
added only when the contact has none on `email`.
"""

import json
import time
from typing import cast

from chalicelib import config, observe
from chalicelib.domain.kernel import retries, timeline
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


def counter(event: str, email_id: int | str) -> str:
    """The counter of an email's bounces, complaints or deliveries (`COUNTERS`)."""
    return email_stats.feedback_counter(event, email_id)


def counts(email_id: int | str) -> dict[str, int]:
    """{"bounce", "complaint", "delivery"}: what SES reported for an email's sends. One BatchGetItem."""
    found = store.counters([counter(event, email_id) for event in COUNTERS])
    return {event: found.get(counter(event, email_id), 0) for event in COUNTERS}


def unwrap(body: Doc) -> Doc:
    """The SES notification of a queue message: SNS's envelope (`Message`, a JSON string) or the
    notification itself (raw delivery)."""
    message = body.get("Message") if body.get("Type") == "Notification" else body
    if isinstance(message, str):
        return cast(Doc, json.loads(message))
    return message if isinstance(message, dict) else {}


def _stat_of(mail: Doc) -> SendRecord | None:
    """The send record of a notification's `mail`: the tracking header, else the message id."""
    for header in mail.get("headers") or []:
        if str(header.get("name", "")).lower() == TRACKING_HEADER:
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
    return str(part.get("feedbackId") or f"{kind}:{(notification.get('mail') or {}).get('messageId')}")


def handle(body: Doc) -> str:
    """One notification of the feedback queue; what it did (for logs and tests)."""
    notification = unwrap(body)
    kind = _kind(notification)
    if kind not in KINDS:
        return "ignored"
    stat = _stat_of(notification.get("mail") or {})
    if stat is None:
        observe.metrics({"Feedback": kind}, UnmatchedFeedback=1)
        return "unmatched"
    part: Doc = notification.get(kind.lower()) or {}
    ctx = Context()
    first = _note(stat, _feedback_id(notification, kind), kind, part)
    if first is None:
        return "repeated"
    stat = first
    if kind == "Delivery":
        store.add(counter("delivery", stat["email"]["id"]))
        return "delivered"
    if kind == "Complaint":
        store.add(counter("complaint", stat["email"]["id"]))
        reputation.count("complaint")
        _dnc(stat, UNSUBSCRIBED, f"Complaint ({part.get('complaintFeedbackType') or 'abuse'}) reported by SES.", ctx)
        return "complained"
    return _bounce(stat, part, ctx)


def _note(stat: SendRecord, feedback_id: str, kind: str, part: Doc) -> SendRecord | None:
    """Record the notification on the send record (failed on a bounce); None when it was already."""
    read = [stat]

    def attempt() -> SendRecord | None:
        current = read.pop() if read else tracking.stat_of(stat["trackingHash"])
        if feedback_id in (current.get("feedback") or []):
            return None
        doc = cast(SendRecord, dict(current))
        doc["feedback"] = list(current.get("feedback") or []) + [feedback_id]
        if kind == "Bounce":
            doc["isFailed"] = True
            doc["bounced"] = str(part.get("bounceType") or "Undetermined")
        elif kind == "Complaint":
            doc["complained"] = True
        else:
            doc["delivered"] = True
        email_stats.save(doc)
        return doc

    return retries.settled(attempt)


def diagnostic(part: Doc, address: str) -> str:
    """SES's words about a bounce: the recipient's diagnostic code, else its status and the bounce type."""
    recipients = part.get("bouncedRecipients") or []
    mine = next((r for r in recipients if str(r.get("emailAddress", "")).lower() == address.lower()), None)
    chosen = mine or (recipients[0] if recipients else {})
    text = chosen.get("diagnosticCode") or chosen.get("status") or ""
    kind = f"{part.get('bounceType') or 'Undetermined'}/{part.get('bounceSubType') or 'General'}"
    return f"{kind}: {text}".rstrip(": ").strip()


def _bounce(stat: SendRecord, part: Doc, ctx: Context) -> str:
    """A bounce: permanent → do-not-contact (bounced) at once; transient → counted in the contact's
    current window, the EMAIL_SOFT_BOUNCE_LIMIT-th makes it do-not-contact."""
    store.add(counter("bounce", stat["email"]["id"]))
    reason = diagnostic(part, stat.get("emailAddress") or "")
    if part.get("bounceType") == "Permanent":
        _dnc(stat, BOUNCED, reason, ctx)
        if part.get("bounceSubType") not in SUPPRESSED:
            reputation.count("bounce")
        return "bounced"
    window = max(1, int(config.EMAIL_SOFT_BOUNCE_WINDOW_HOURS * 3600))
    seen = store.add(f"softbounce#{stat['lead']['id']}#{int(time.time()) // window}")
    _event(stat, "email.softbounce", reason, ctx)
    if config.EMAIL_SOFT_BOUNCE_LIMIT > 0 and seen >= config.EMAIL_SOFT_BOUNCE_LIMIT:
        hours = config.EMAIL_SOFT_BOUNCE_WINDOW_HOURS
        _dnc(stat, BOUNCED, f"{seen} transient bounces within {hours:g} h: {reason}", ctx)
        return "bounced"
    return "softbounced"


def _event(stat: SendRecord, event_type: str, reason: str, ctx: Context) -> None:
    details = {"emailId": stat["email"]["id"], "statId": stat["id"], "reason": reason}
    sending.write_contact(stat["lead"]["id"], lambda doc: [timeline.event(event_type, reason, details)], ctx)


def _dnc(stat: SendRecord, reason: int, comments: str, ctx: Context) -> None:
    """Do-not-contact on `email` for the contact the send went to (sending.mark_dnc)."""
    sending.mark_dnc(stat["lead"]["id"], stat["email"]["id"], reason, comments, ctx)
