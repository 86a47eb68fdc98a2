"""The shapes of what messaging stores and other capabilities read: the send record of one email
to one contact (written by `sending`, found by `email_stats`, changed by `tracking`, read by the
stats API, segment sends and webhook payloads), a text message's, and the per-contact record of a
segment send.
"""

from typing import NotRequired, TypedDict

from chalicelib.domain.kernel.types import JSON


class Ref(TypedDict):
    """A reference to another document as the send record nests it (Mautic's shape)."""

    id: int


class SendRecord(TypedDict):
    """One email delivered to one contact (`emailstat#<email id>` / <stat id>, compat 13.2): Mautic's
    stat properties, the tracking hash that finds it, and what was sent (subject, tokens, headers).
    `_rev` is the store's revision, present once it was read."""

    id: int
    email: Ref
    lead: Ref
    emailAddress: str
    ipAddress: str | None
    dateSent: str | None
    isRead: bool
    isFailed: bool
    dateRead: str | None
    retryCount: int
    source: str | None  # what sent it: "api", "segment", "campaign", "trigger", "form"...
    sourceId: JSON  # the id within that source (an automation event, a run generation...)
    openCount: int
    lastOpened: str | None
    trackingHash: str
    viewedInBrowser: bool
    clickCount: int
    replied: bool
    subject: str
    messageId: str
    contentHash: str
    tokens: dict[str, str]  # token values the rendering used
    sendTokens: dict[str, str]  # the `tokens` given to the send (the web view renders with them again)
    headers: dict[str, str]
    feedback: NotRequired[list[str]]  # the SES notifications applied (domain/messaging/feedback.py)
    bounced: NotRequired[str]  # SES's bounce type: Permanent, Transient, Undetermined
    complained: NotRequired[bool]
    delivered: NotRequired[bool]
    variant: NotRequired[int]  # sent in an A/B test: the variant picked (its counts: ab_tests.py)
    downloaded: NotRequired[bool]  # an asset was downloaded through its tracked link (clickthrough.py)
    submitted: NotRequired[bool]  # a form was submitted by the browser that clicked its link (clickthrough.py)
    requestedEmailId: NotRequired[int]  # the email the send asked for, when another version was sent
    folded: NotRequired[str]  # past STATS_RETENTION_DAYS: slimmed, counted under this day (send_retention.py)
    _rev: NotRequired[int]


class SmsRecord(TypedDict):
    """One text message delivered to one contact (`smsstat#<sms id>` / <stat id>)."""

    id: int
    sms: Ref
    lead: Ref
    phone: str | None
    dateSent: str
    source: str | None
    sourceId: JSON
    messageId: str


class RecipientRecord(TypedDict):
    """A contact's record in the segment sends of one email (`emailsend#<email id>` / <contact id>):
    `status` is sending, sent, skipped, failed, retry, unknown or deferred (domain/messaging/email_sends.py);
    a deferred send's record names its due item (`due`, `dueAt`), `source`, tries from the queue
    (`queueAttempts`) and the base URL of its links."""

    id: int
    status: str
    statId: int | None
    attempts: int
    reason: str | None
    updatedAt: str
    due: NotRequired[int]
    dueAt: NotRequired[str]
    source: NotRequired[list[JSON]]
    queueAttempts: NotRequired[int]
    baseUrl: NotRequired[str]
    _rev: NotRequired[int]


class SendOutcome(TypedDict, total=False):
    """What `sending.send_email` and `send_sms` answer: success with the send record's `statId` (and
    `trackingHash` or `content`), or the `reason` it did not go out and whether trying again may help."""

    success: bool
    statId: int
    trackingHash: str
    content: str
    reason: str
    retryable: bool
    deferred: bool  # held back by the contact's frequency cap, sent later (send_marketing; send_sms: "Scheduled")
