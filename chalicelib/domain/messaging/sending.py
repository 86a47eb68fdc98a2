"""Sending one email or text message to one contact, now: the checks (published, do-not-contact,
a valid address; a text message's frequency cap), rendering, the transport (SES / SNS, throttled to
EMAIL_SEND_RATE / SMS_SEND_RATE), the send record and the contact's timeline.

`send_email` and `send_sms` are what the API, segment sends (`email_sends`), automations and point
triggers call. They raise NotFound for an unknown message or contact and answer
`{"success": False, "reason": ...}` for everything else that stops a send. Contact-side effects go
through `service.save_change` (segment, automation and webhook hooks see them); the transport is
called before any contact write, and a failed contact write after a send is logged, never retried
into a second send.
"""

import copy
import hashlib
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from chalicelib import config
from chalicelib.domain.contacts import contact_categories, contact_merge, frequency_rules
from chalicelib.domain.contacts.contact_actions import DNC_REASONS
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import addresses, clock, service, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound, Stale
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import (
    email_hooks,
    email_messages,
    email_stats,
    frequency_caps,
    rendering,
    reputation,
    versions,
)
from chalicelib.domain.messaging.declarations import EMAIL, SMS
from chalicelib.domain.messaging.records import SendOutcome, SendRecord, SmsRecord
from chalicelib.domain.points import points_engine
from chalicelib.ports import mail, outages, window_counters
from chalicelib.ports import sms as sms_channel
from chalicelib.store import port as store
from chalicelib.store.port import EntityId

log = logging.getLogger(__name__)
Source = Sequence[JSON] | None  # what sent a message: (source, id within it), e.g. ("campaign", <event id>)
UNSUBSCRIBED, BOUNCED = 1, 2  # do-not-contact reasons (Mautic's)
SCHEDULED = "Scheduled"  # a capped text message's answer (Mautic's `mautic.sms.timeline.status.scheduled`)
Hold = Callable[[Doc, Doc], SendOutcome | None]  # hold(email, contact): an answer instead of the send, or None


@dataclass(eq=False, repr=False)
class Prepared:
    """An email rendered for one contact, with its send record's id and tracking hash."""

    email: Doc
    contact: Doc
    stat_id: int
    tracking_hash: str
    rendered: rendering.Rendered
    mail: mail.Mail
    tokens: dict[str, str]
    sent_at: str | None = None
    variant: int | None = None  # the A/B test's variant picked (versions.py), counted for its test
    requested: int | None = None  # the email the send asked for, when the contact got another version


def address_of(contact: Doc) -> str | None:
    """The contact's email address, normalised, or None when it has no valid one."""
    raw = (contact.get("values") or {}).get("email")
    if not raw:
        return None
    return addresses.normalized(raw)


def number_of(contact: Doc) -> str | None:
    """The contact's mobile (else phone) number in E.164, or None."""
    values = contact.get("values") or {}
    return sms_channel.e164(values.get("mobile")) or sms_channel.e164(values.get("phone"))


def blocked(contact: Doc, channel: str) -> bool:
    """Whether the contact is marked do-not-contact on a channel."""
    return any(entry.get("channel") == channel for entry in contact.get("doNotContact") or [])


def refusal(email: Doc, contact: Doc, transactional: bool, now: str) -> str | None:
    """Why the email may not go to the contact now, or None."""
    if not transactional and not is_published(email, now):
        return "The email is not published."
    if not transactional and blocked(contact, "email"):
        return "The contact does not want emails (do not contact)."
    if address_of(contact) is None:
        return "The contact has no valid email address."
    return None


def category_refusal(email: Doc, contact: Doc) -> str | None:
    """Why a segment send, broadcast or automation may not send this email to the contact: it
    unsubscribed from the email's category (Mautic's pending query and CampaignSubscriber; a direct
    send through the API does not look)."""
    if contact_categories.unsubscribed(contact, email.get("category")):
        return "The contact unsubscribed from the email's category."
    return None


def prepare(
    email: Doc,
    contact: Doc,
    ctx: Context,
    tokens: JSON = None,
    attachments: Iterable[int] | None = (),
    transactional: bool = False,
) -> Prepared:
    """Render the version of the email the contact gets (its A/B variant and translation:
    versions.py) under a new tracking hash; the send is recorded on that version."""
    version = versions.choose(email, contact, ctx)
    requested = email["id"] if version.doc["id"] != email["id"] else None
    email = version.doc
    stat_id, tracking_hash = email_stats.allocate("email", email["id"])
    rendered = email_messages.render(email, contact, tracking_hash, tokens, ctx)
    attached = email_messages.attachments(list(email.get("assetAttachments") or []) + list(attachments or []), ctx)
    message = email_messages.compose(
        email, contact, address_of(contact) or "", tracking_hash, rendered, attached, ctx, transactional
    )
    normalised = rendering.normalise_tokens(tokens)
    return Prepared(
        email,
        contact,
        stat_id,
        tracking_hash,
        rendered,
        message,
        normalised,
        variant=version.variant,
        requested=requested,
    )


def deliver(prepared: Prepared) -> str:
    """Hand the message to SES once the rate allows (noting when: the record's `dateSent`); SES's
    message id. Raises mail.Rejected/Unavailable."""
    return hand_over(prepared, window_counters.acquire("email", config.active().EMAIL_SEND_RATE))


def hand_over(prepared: Prepared, moment: float) -> str:
    """Hand the message to SES, the send rate having let it through at `moment` (Unix seconds: the
    record's `dateSent`); SES's message id. Raises mail.Rejected/Unavailable."""
    prepared.sent_at = clock.iso(datetime.fromtimestamp(moment, tz=timezone.utc))
    return mail.send(prepared.mail)


def _content_hash(email: Doc) -> str:
    """Mautic's content hash: the MD5 of the email's HTML template (an identifier, not a secret)."""
    return hashlib.md5((email.get("customHtml") or "").encode(), usedforsecurity=False).hexdigest()


def _source(source: Source) -> list[JSON] | None:
    return list(source) if source else None


def after_accepted(write: Callable[[], object], what: str) -> None:
    """A secondary write once SES accepted the message and its send record is stored: AWS being
    unavailable is logged, not raised, since failing now would have the email sent again for a note
    (feedback then finds the send by its tracking header) or a count (the guard judges a day's sends)."""
    try:
        write()
    except Exception as error:
        if not outages.unavailable(error):
            raise
        log.warning("a sent email's %s was not stored: %s", what, error)


def send_record(prepared: Prepared, message_id: str, source: Source) -> SendRecord:
    """The send record of a message SES accepted (not stored yet)."""
    email, contact = prepared.email, prepared.contact
    stat: SendRecord = {
        "id": prepared.stat_id,
        "email": {"id": email["id"]},
        "lead": {"id": contact["id"]},
        "emailAddress": prepared.mail.to,
        "ipAddress": None,
        "dateSent": prepared.sent_at,
        "isRead": False,
        "isFailed": False,
        "dateRead": None,
        "retryCount": 0,
        "source": source[0] if source else None,
        "sourceId": source[1] if source and len(source) > 1 else None,
        "openCount": 0,
        "lastOpened": None,
        "trackingHash": prepared.tracking_hash,
        "viewedInBrowser": False,
        "clickCount": 0,
        "replied": False,
        "subject": prepared.rendered.subject,
        "messageId": message_id,
        "contentHash": _content_hash(email),
        "tokens": prepared.rendered.tokens,
        "sendTokens": prepared.tokens,
        "headers": prepared.mail.headers,
    }
    if prepared.variant is not None:
        stat["variant"] = prepared.variant
    if prepared.requested is not None:
        stat["requestedEmailId"] = prepared.requested
    return stat


def record_sent(prepared: Prepared, message_id: str, source: Source, ctx: Context) -> SendRecord:
    """Store the send record (counted in the email's sentCount) and `email.sent` on the contact."""
    stat = send_record(prepared, message_id, source)
    email_stats.create("email", prepared.email["id"], stat, variant=prepared.variant)
    after_accepted(lambda: email_stats.remember(message_id, stat["trackingHash"]), "its message-id note")
    after_accepted(lambda: reputation.count("sent"), "the reputation guard's count")
    write_contact(prepared.contact["id"], sent_event(stat, source, ctx), ctx)
    return stat


def sent_event(stat: SendRecord, source: Source, ctx: Context) -> Callable[[Doc], list[Doc]]:
    """What a sent message writes on its contact: `email.sent` and the points of `email.send`."""
    email_id = stat["email"]["id"]
    details = {
        "emailId": email_id,
        "statId": stat["id"],
        "subject": stat["subject"],
        "source": _source(source),
        **requested_of(stat),
    }
    return lambda doc: (
        [timeline.event("email.sent", stat["subject"], details)] + points_engine.award(doc, "email.send", email_id, ctx)
    )


def refused(email_id: EntityId, contact_id: EntityId, error: Exception, ctx: Context) -> None:
    """SES refused the message: `email.failed` on the timeline, and when the address is on the
    account's suppression list, do-not-contact (bounced) as a hard bounce would."""
    record_failed("email", email_id, contact_id, str(error), ctx)
    if isinstance(error, mail.Suppressed):
        mark_dnc(contact_id, email_id, BOUNCED, f"Suppressed by SES: {error}", ctx)


def mark_dnc(contact_id: EntityId, email_id: EntityId, reason: int, comments: str, ctx: Context) -> None:
    """Do-not-contact on `email` with `reason` unless the contact has an entry on `email` already;
    the change fires what any do-not-contact change fires (timeline, webhooks, segments)."""

    def build(doc: Doc) -> list[Doc]:
        if blocked(doc, "email"):
            return []
        doc["doNotContact"].append(
            {
                "id": store.allocate_ids("donotcontact")[0],
                "dateAdded": ctx.now,
                "channel": "email",
                "reason": reason,
                "comments": comments,
                "channelId": int(email_id),
            }
        )
        details: dict[str, JSON] = {
            "channel": "email",
            "reason": reason,
            "comments": comments,
            "emailId": int(email_id),
        }
        return [timeline.event("lead.donotcontact", f"email: {DNC_REASONS[reason]}", details)]

    write_contact(contact_id, build, ctx)


def record_failed(channel: str, message_id: EntityId, contact_id: EntityId, reason: str, ctx: Context) -> None:
    """`email.failed` / `sms.failed` on the contact's timeline."""
    details = {f"{channel}Id": message_id, "reason": reason}
    write_contact(contact_id, lambda doc: [timeline.event(f"{channel}.failed", reason, details)], ctx)


def write_contact(
    contact_id: EntityId, build: Callable[[Doc], list[Doc]], ctx: Context, known: Doc | None = None
) -> Doc | None:
    """Store `build(doc)`'s changes and timeline events on the contact (re-read when it changed
    meanwhile; `known`, the contact as just read, saves the first read). A contact that cannot be
    written is logged: the message is already gone."""
    read = [known] if known is not None else []

    def write() -> Doc:
        existing = read.pop() if read else contact_merge.load(CONTACT, contact_id)
        doc = copy.deepcopy(existing)
        return service.save_change(CONTACT, existing, doc, ctx, build(doc), stamp=False)

    try:
        return service.retrying(write, ctx)
    except (Stale, NotFound):
        log.warning("contact %s not updated after a send", contact_id, exc_info=True)
        return None


def touch(doc: Doc, now: str) -> None:
    """Move the contact's last activity to now."""
    doc["lastActive"] = now
    doc.setdefault("values", {})["last_active"] = clock.parse(now).strftime("%Y-%m-%d %H:%M:%S")


def requested_of(stat: SendRecord) -> dict[str, int]:
    """`requestedEmailId` for a send's timeline events when the contact got another version (a
    variant or translation) of the email the send asked for: an automation's decision on that email
    is met by it, as Mautic's `getRelatedEntityIds` check is."""
    requested = stat.get("requestedEmailId")
    return {"requestedEmailId": requested} if requested is not None else {}


def _failure(reason: str, retryable: bool = False) -> SendOutcome:
    return {"success": False, "reason": reason, "retryable": retryable}


def send_email(
    email_id: EntityId,
    contact_id: EntityId,
    ctx: Context,
    source: Source = None,
    tokens: JSON = None,
    transactional: bool = False,
    attachments: Iterable[int] | None = None,
    hold: Hold | None = None,
) -> SendOutcome:
    """Send an email to a contact now (do-not-contact respected unless `transactional`); `hold`, given
    the email and contact once they may be sent to, answers instead when it holds the send back.

    Returns {"success": True, "statId", "trackingHash"} or {"success": False, "reason", "retryable"};
    raises NotFound for an unknown email or contact, Forbidden when the caller may not view one of
    its attachments (the email's or `attachments`). `source`: e.g. ("campaign", <event id>)."""
    email = service.load(EMAIL, email_id)
    email_hooks.require_viewable_assets(list(email.get("assetAttachments") or []) + list(attachments or []), ctx)
    contact = service.load(CONTACT, contact_id)
    reason = refusal(email, contact, transactional, ctx.now)
    if not reason and source and source[0] == "campaign":
        reason = category_refusal(email, contact)
    if reason:
        return _failure(reason)
    held = hold(email, contact) if hold else None
    if held is not None:
        return held
    prepared = prepare(email, contact, ctx, tokens, attachments, transactional)
    try:
        message_id = deliver(prepared)
    except (mail.Rejected, mail.Unavailable) as error:
        refused(email["id"], contact["id"], error, ctx)
        return _failure(str(error), isinstance(error, mail.Unavailable))
    stat = record_sent(prepared, message_id, source, ctx)
    return {"success": True, "statId": stat["id"], "trackingHash": stat["trackingHash"]}


def sms_refusal(message: Doc, contact: Doc, now: str) -> str | None:
    """Why the text message may not go to the contact now, or None."""
    if not is_published(message, now):
        return "The text message is not published."
    if blocked(contact, "sms"):
        return "The contact does not want text messages (do not contact)."
    if number_of(contact) is None:
        return "The contact has no valid mobile number (E.164, such as +14155550100)."
    return None


def sms_text(message: Doc, contact: Doc, ctx: Context) -> str:
    """The text message rendered for the contact (its tokens)."""
    return rendering.render_sms(message.get("message"), email_messages.contact_sources(contact, ctx))


def sms_record(message: Doc, contact: Doc, stat_id: int, message_id: str, sent_at: str, source: Source) -> SmsRecord:
    """The send record of a text message SNS accepted (not stored yet)."""
    return {
        "id": stat_id,
        "sms": {"id": message["id"]},
        "lead": {"id": contact["id"]},
        "phone": number_of(contact),
        "dateSent": sent_at,
        "source": source[0] if source else None,
        "sourceId": source[1] if source and len(source) > 1 else None,
        "messageId": message_id,
    }


def sms_sent(message: Doc, stat_id: int, content: str) -> Callable[[Doc], list[Doc]]:
    """What a sent text message writes on its contact: `sms.sent` (statId: its record, for retention)."""
    details = {"smsId": message["id"], "statId": stat_id, "content": content}
    return lambda doc: [timeline.event("sms.sent", message.get("name"), details)]


def send_sms(
    sms_id: EntityId,
    contact_id: EntityId,
    ctx: Context,
    source: Source = None,
    attempts: int = 0,
    after: str | None = None,
) -> SendOutcome:
    """Send a text message to a contact's mobile number now (do-not-contact on `sms` respected), at
    SMS_SEND_RATE; a contact its frequency rule on `sms` caps gets it later (`_scheduled`). `attempts`,
    `after`: a scheduled send's tries so far and its due time (`text_deferrals.py`).

    Returns {"success": True, "statId", "content"} or {"success": False, "reason", "retryable"} (with
    `deferred` when scheduled); raises NotFound for an unknown text message or contact."""
    message = service.load(SMS, sms_id)
    contact = service.load(CONTACT, contact_id)
    reason = sms_refusal(message, contact, ctx.now)
    if reason:
        return _failure(reason)
    time = frequency_caps.capped(contact, ctx.now, "sms")
    if time is not None:
        return _scheduled(message, contact, time, source, (attempts, after), ctx)
    content = sms_text(message, contact, ctx)
    moment = window_counters.acquire("sms", config.active().SMS_SEND_RATE)
    try:
        message_id = sms_channel.send(number_of(contact) or "", content)  # sms_refusal: a number is there
    except (sms_channel.Rejected, sms_channel.Unavailable) as error:
        record_failed("sms", message["id"], contact["id"], str(error), ctx)
        return _failure(str(error), isinstance(error, sms_channel.Unavailable))
    stat_id = email_stats.allocate("sms", message["id"])[0]
    sent_at = clock.iso(datetime.fromtimestamp(moment, tz=timezone.utc))
    email_stats.create("sms", message["id"], sms_record(message, contact, stat_id, message_id, sent_at, source))
    write_contact(contact["id"], sms_sent(message, stat_id, content), ctx)
    return {"success": True, "statId": stat_id, "content": content}


def _scheduled(
    message: Doc, contact: Doc, time: str, source: Source, tries: tuple[int, str | None], ctx: Context
) -> SendOutcome:
    """A capped contact (Mautic's `SmsModel::sendSms` -> `processFrequencyRules('sms')`): the send is
    queued one DAY/WEEK/MONTH on (a due item and `message.queue`: `text_deferrals.py` sends it then),
    unless this message is queued for the contact already (its `message.queue` is then within the
    last period: one Query more), and answered "Scheduled" (not sent); after frequency_caps.ATTEMPTS
    tries from the queue it is given up."""
    attempts, after = tries
    if attempts >= frequency_caps.ATTEMPTS:
        return _failure(f"Frequency cap: not sent after {attempts} attempts.")
    since = frequency_rules.shifted(clock.parse(ctx.now), time, -1)
    if attempts or not frequency_caps.queued(contact["id"], "sms", message["id"], since):
        at = frequency_rules.shifted(clock.parse(after or ctx.now), time)
        extra: Doc = {"direct": True, "attempts": attempts, "source": _source(source)}
        frequency_caps.defer(message, contact["id"], at, _source(source), attempts, ctx, "sms", extra)
    return {"success": False, "reason": SCHEDULED, "retryable": False, "deferred": True}
