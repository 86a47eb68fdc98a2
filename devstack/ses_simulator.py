"""SES's mailbox simulator in the embedded SES: a message sent to one of its addresses gets, for that
very message, the notifications SES sends for it, through the topic SES would use (the one set for
the sender's address, else its domain: `schema.ensure_resources` sets the default sender's domain's),
hence the topic's subscription, the `feedback` queue and the worker, as on AWS.

| Recipient (`+label` allowed) | Notifications |
|---|---|
| success@simulator.amazonses.com | Delivery |
| bounce@… | Bounce, Permanent/General, `smtp; 550 5.1.1 user unknown` |
| ooto@… | Delivery (the auto-reply goes to the Return-Path mailbox; none here) |
| complaint@… | Delivery, then Complaint (abuse) |
| suppressionlist@… | Bounce, Permanent/Suppressed |

Each carries the message's id, its headers (the `X-Mautic-Tracking` one included, as the
configuration set's event publishing does on AWS) and the stack's account as `sendingAccountId`.
moto's own canned notification (sent for any address containing "bounce", "complaint" or "success",
with an id that matches no message) is not sent. `later(seconds)`: the local stack publishes a
second after the send, as SES answers after it (a worker must not see the bounce before the send
is recorded); tests publish at once, inside the send.
"""

from __future__ import annotations

import email
import json
import threading
import time
import uuid
from email.utils import getaddresses, parseaddr
from typing import TYPE_CHECKING, Any

from devstack import capture

if TYPE_CHECKING:
    from moto.ses.models import RawMessage, SESBackend

DOMAIN = "simulator.amazonses.com"
BOUNCE = {"bounceType": "Permanent", "bounceSubType": "General", "status": "5.1.1"}
DIAGNOSTIC = "smtp; 550 5.1.1 user unknown"
SUPPRESSED = "Amazon SES has suppressed sending to this address because it has a recent history of bouncing."
SCENARIOS = {
    "success": ("Delivery",),
    "ooto": ("Delivery",),
    "bounce": ("Bounce",),
    "complaint": ("Delivery", "Complaint"),
    "suppressionlist": ("Bounce",),
}
_delay = [0.0]


def later(seconds: float) -> None:
    """Publish the notifications `seconds` after the send (0: inside it)."""
    _delay[0] = seconds


def scenario(address: str) -> str | None:
    """The simulator mailbox an address names (`bounce+label@…` is `bounce`), or None."""
    local, _, domain = address.strip().lower().rpartition("@")
    name = local.split("+", 1)[0]
    return name if domain == DOMAIN and name in SCENARIOS else None


def recipients(message: RawMessage) -> list[str]:
    """The message's recipient addresses, once each (moto lists the Destinations and the To, Cc and
    Bcc headers' addresses)."""
    return list(dict.fromkeys(address for _name, address in getaddresses(message.destinations) if address))


def _iso(moment: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(moment)) + f".{int(moment * 1000) % 1000:03d}Z"


def _mail(backend: SESBackend, message: RawMessage, identity: str, moment: float) -> dict[str, Any]:
    """The `mail` object of the message's notifications."""
    parsed = email.message_from_string(message.raw_data)
    return {
        "timestamp": _iso(moment),
        "messageId": message.id,
        "source": message.source,
        "sourceArn": f"arn:aws:ses:{backend.region_name}:{backend.account_id}:identity/{identity}",
        "sourceIp": "127.0.0.1",
        "sendingAccountId": backend.account_id,
        "destination": recipients(message),
        "headersTruncated": False,
        "headers": [{"name": name, "value": str(value)} for name, value in parsed.items()],
        "commonHeaders": {
            "from": [str(parsed["From"] or "")],
            "to": [str(parsed["To"] or "")],
            "messageId": str(parsed["Message-ID"] or ""),
            "subject": str(parsed["Subject"] or ""),
        },
    }


def _part(kind: str, mailbox: str, address: str, moment: float) -> dict[str, Any]:
    """The bounce, complaint or delivery object for one simulator recipient."""
    common = {"timestamp": _iso(moment + 0.5), "feedbackId": f"{uuid.uuid4().hex}-000000"}
    if kind == "Delivery":
        return {
            "timestamp": common["timestamp"],
            "processingTimeMillis": 500,
            "recipients": [address],
            "smtpResponse": "250 2.6.0 Message received",
            "reportingMTA": "a8-1.smtp-out.amazonses.com",
        }
    if kind == "Complaint":
        recipients = [{"emailAddress": address}]
        return dict(common, complainedRecipients=recipients, complaintFeedbackType="abuse", userAgent="Amazon SES")
    suppressed = mailbox == "suppressionlist"
    recipient = {"emailAddress": address, "action": "failed", "status": BOUNCE["status"]}
    recipient["diagnosticCode"] = SUPPRESSED if suppressed else DIAGNOSTIC
    subtype = "Suppressed" if suppressed else BOUNCE["bounceSubType"]
    return dict(common, bounceType=BOUNCE["bounceType"], bounceSubType=subtype, bouncedRecipients=[recipient])


def notifications(backend: SESBackend, message: RawMessage) -> list[tuple[str, dict[str, Any]]]:
    """(topic ARN, notification) for each simulator recipient of the message and each notification
    its mailbox answers with, when the sender's identity has a topic for that kind."""
    sender = parseaddr(message.source)[1].lower()
    topics: dict[str, str] = {}
    for identity in (sender.rpartition("@")[2], sender):  # the address's own settings win
        topics.update(backend.sns_topics.get(identity, {}))
    identity = sender if sender in backend.sns_topics else sender.rpartition("@")[2]
    moment = time.time()
    found = []
    for address in recipients(message):
        mailbox = scenario(address)
        for kind in SCENARIOS.get(mailbox or "", ()):
            if kind in topics:
                body = {"notificationType": kind, "mail": _mail(backend, message, identity, moment)}
                body[kind.lower()] = _part(kind, mailbox or "", address, moment)
                found.append((topics[kind], body))
    return found


def _publish(backend: SESBackend, found: list[tuple[str, dict[str, Any]]]) -> None:
    """Publish the notifications to their topics (holding the embedded AWS, as any call does)."""
    from moto.sns.models import sns_backends

    with capture.serialized():
        for topic, body in found:
            sns_backends[backend.account_id][backend.region_name].publish(json.dumps(body), arn=topic)


def install() -> None:
    """Replace moto's canned feedback by the simulator's (idempotent)."""
    from moto.ses.models import SESBackend

    if getattr(SESBackend.send_raw_email, "simulated", False):
        return
    send_raw_email = SESBackend.send_raw_email

    def simulated_send(self: SESBackend, source: str, destinations: list[str], raw_data: str) -> RawMessage:
        message = send_raw_email(self, source, destinations, raw_data)
        found = notifications(self, message)
        if found and _delay[0] > 0:
            timer = threading.Timer(_delay[0], _publish, (self, found))
            timer.daemon = True
            timer.start()
        elif found:
            _publish(self, found)
        return message

    def no_canned_feedback(self: SESBackend, source: str, destinations: Any) -> None:
        """Not sent: the simulator answers instead of the embedded SES's canned notification."""

    capture.replace(SESBackend, "send_raw_email", capture.marked(simulated_send, simulated=True))
    capture.replace(SESBackend, "__process_sns_feedback__", no_canned_feedback)
