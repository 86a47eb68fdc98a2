"""What a recipient does with an email, by the tracking hash of its send record: opens (the pixel),
the web view, clicks (signed redirects), unsubscribes and replies.

The send record changes under an optimistic revision (re-read when another open wrote it); the
email's `readCount` grows once per record (the first read); the contact's changes and timeline
events go through `sending.write_contact`.
"""

import copy
import hmac
import secrets
from collections.abc import Callable, Iterable
from typing import Protocol

from chalicelib.domain.contacts.contact_actions import DNC_REASONS
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import retries, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import clickthrough, email_messages, email_stats, sending
from chalicelib.domain.messaging.declarations import EMAIL
from chalicelib.domain.messaging.records import SendRecord
from chalicelib.domain.points import points_engine
from chalicelib.store import port as store

UNSUBSCRIBED = 1


class Visitor(Protocol):
    """What tracking reads and sets of a public visit (`web.hits.Visit`): the client's address, and
    the contact the browser is shown to be (the recipient of the link it followed)."""

    ip: str | None
    contact_id: int | None
    clickthrough: str | None


def stat_of(tracking_hash: str) -> SendRecord:
    """The send record of a hash, or NotFound (Mautic's message)."""
    stat = email_stats.find(tracking_hash)
    if stat is None:
        raise NotFound(f"Email Stat with tracking hash {tracking_hash} was not found")
    return stat


def _update_stat(stat: SendRecord, change: Callable[[SendRecord], object]) -> tuple[SendRecord, bool]:
    """Apply change(stat) and store it, re-reading on a concurrent write; (stat, whether it was unread)."""
    read = [stat]

    def attempt() -> tuple[SendRecord, bool]:
        doc = copy.deepcopy(read.pop() if read else stat_of(stat["trackingHash"]))  # NotFound when removed
        unread = not doc.get("isRead")
        change(doc)
        email_stats.save(doc)
        return doc, unread

    return retries.settled(attempt)


def _read(doc: SendRecord, now: str, ip: str | None) -> None:
    doc["openCount"] = int(doc.get("openCount") or 0) + 1
    if not doc.get("folded"):  # a record past retention keeps no address nor open details (send_retention.py)
        doc["lastOpened"] = now
        doc["ipAddress"] = ip or doc.get("ipAddress")
    if not doc.get("isRead"):
        doc["isRead"], doc["dateRead"] = True, now


def _opened(stat: SendRecord, first: bool, ctx: Context, events: Iterable[Doc] = ()) -> None:
    """Count a first read on the email; the contact's last activity, `email.read` (first read) and
    `email.open` point actions."""
    email_id = stat["email"]["id"]
    if first:
        email_stats.count_read(email_id)
        email_stats.count_variant("read", stat)
    # never the hash: events are shown (docs/security.md)
    details = {"emailId": email_id, "statId": stat["id"], **sending.requested_of(stat)}

    def build(doc: Doc) -> list[Doc]:
        sending.touch(doc, ctx.now)
        found = [timeline.event("email.read", stat.get("subject"), details)] if first else []
        return found + list(events) + points_engine.award(doc, "email.open", email_id, ctx)

    sending.write_contact(stat["lead"]["id"], build, ctx)


def open_pixel(tracking_hash: str, visit: Visitor, ctx: Context) -> SendRecord | None:
    """The pixel was loaded: the send record is read (an unknown hash changes nothing)."""
    stat = email_stats.find(tracking_hash)
    if stat is None:
        return None
    stat, unread = _update_stat(stat, lambda doc: _read(doc, ctx.now, visit.ip))
    _opened(stat, unread, ctx)
    return stat


def web_view(tracking_hash: str, visit: Visitor, ctx: Context) -> str:
    """The email as it was sent, rendered again for the browser; counts as an open. The browser holds
    the recipient's link: `visit.contact_id` names the recipient (the visitor cookie's proof)."""
    stat = stat_of(tracking_hash)
    email, contact = store.get(EMAIL.kind, stat["email"]["id"]), store.get(CONTACT.kind, stat["lead"]["id"])
    if email is None or contact is None:
        raise NotFound()

    def change(doc: SendRecord) -> None:
        _read(doc, ctx.now, visit.ip)
        doc["viewedInBrowser"] = True

    stat, unread = _update_stat(stat, change)
    _opened(stat, unread, ctx)
    visit.contact_id = contact["id"]
    return email_messages.render(email, contact, tracking_hash, stat.get("sendTokens"), ctx, pixel=False).html


def verify_click(tracking_hash: str, url: str | None, signature: str | None, ctx: Context) -> bool:
    """Whether a click redirect was written by this service."""
    given = str(signature or "")
    if not url:
        return False
    return any(
        hmac.compare_digest(email_messages.signature(tracking_hash, url, ctx, legacy), given)
        for legacy in (False, True)
    )


def _clicked(doc: SendRecord) -> None:
    doc["clickCount"] = int(doc.get("clickCount") or 0) + 1


def click(tracking_hash: str, url: str | None, signature: str | None, visit: Visitor, ctx: Context) -> str | None:
    """Record a click on a link of a sent email (a `page.hit` from the email); the URL to redirect to
    (an asset download's with the click-through `ct`, `clickthrough.py`).
    NotFound when the signature does not match (no open redirect). `visit.contact_id` then names the
    recipient, whose link the browser followed (the visitor cookie's proof), `visit.clickthrough` the send."""
    if not verify_click(tracking_hash, url, signature, ctx):
        raise NotFound("This link is not valid.")
    stat = email_stats.find(tracking_hash)
    if stat is None:
        return url
    stat, _ = _update_stat(stat, _clicked)
    if stat.get("clickCount") == 1:  # its first click: the A/B test's click-through counts contacts
        email_stats.count_variant("click", stat)
    details = {"emailId": stat["email"]["id"], "statId": stat["id"], "url": url, "source": "email"}
    details.update(sending.requested_of(stat))

    def build(doc: Doc) -> list[Doc]:
        sending.touch(doc, ctx.now)
        return [timeline.event("page.hit", url, details)]  # url.hit points: the points subscriber

    sending.write_contact(stat["lead"]["id"], build, ctx)
    visit.contact_id, visit.clickthrough = stat["lead"]["id"], clickthrough.token(stat, ctx)
    return clickthrough.with_token(str(url), stat, ctx)


def unsubscribe(tracking_hash: str, ctx: Context) -> SendRecord:
    """Mark the recipient do-not-contact on email (reason 1, unsubscribed, naming the email)."""
    stat = stat_of(tracking_hash)
    email_id = stat["email"]["id"]

    def build(doc: Doc) -> list[Doc]:
        entry = next((e for e in doc["doNotContact"] if e["channel"] == "email"), None)
        if entry is not None:
            return []
        doc["doNotContact"].append(
            {
                "id": store.allocate_ids("donotcontact")[0],
                "dateAdded": ctx.now,
                "channel": "email",
                "reason": UNSUBSCRIBED,
                "comments": "User unsubscribed.",
                "channelId": email_id,
            }
        )
        return [
            timeline.event(
                "lead.donotcontact",
                f"email: {DNC_REASONS[UNSUBSCRIBED]}",
                {"channel": "email", "reason": UNSUBSCRIBED, "comments": "User unsubscribed.", "emailId": email_id},
            )
        ]

    sending.write_contact(stat["lead"]["id"], build, ctx)
    return stat


def reply(tracking_hash: str, ctx: Context) -> SendRecord:
    """A reply to a sent email: the send record is replied and read, `email.replied` on the contact with
    the reply's message id, `api-<random>` as Mautic's `EmailApiController::replyAction` names it."""
    stat = stat_of(tracking_hash)

    def change(doc: SendRecord) -> None:
        doc["replied"] = True
        if not doc.get("isRead"):
            doc["isRead"], doc["dateRead"] = True, ctx.now

    stat, unread = _update_stat(stat, change)
    replied = timeline.event(
        "email.replied",
        stat.get("subject"),
        {
            "emailId": stat["email"]["id"],
            "statId": stat["id"],
            "messageId": f"api-{secrets.token_hex(16)}",
            **sending.requested_of(stat),
        },
    )
    _opened(stat, unread, ctx, [replied])
    return stat
