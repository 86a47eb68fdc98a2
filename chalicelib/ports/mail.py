"""The outbound mail port: one message to one recipient, as RFC 5322 bytes. AWS: SES
(`channels/mail.py`); in memory: `devstack/memory/channels.py`, which keeps what was sent. Both
raise `Rejected` (`Suppressed` for an address on the suppression list) or `Unavailable`, and copy
each message sent to the local outbox."""

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from chalicelib.ports.failures import Rejected, Unavailable
from chalicelib.ports.slot import Slot

__all__ = ["Attachment", "Mail", "Mailer", "Rejected", "Suppressed", "Unavailable", "mime", "send"]

Attachment = tuple[str, bytes, str | None]  # (file name, bytes, MIME type: None for octet-stream)


class Suppressed(Rejected):
    """The recipient is on the account's suppression list: the sender treats it as a hard bounce
    (do-not-contact, bounced)."""


@dataclass(eq=False, repr=False)
class Mail:
    """One message to one recipient. `attachments`: (file name, bytes, MIME type)."""

    sender: str
    sender_name: str
    to: str
    to_name: str
    subject: str
    html: str
    text: str
    reply_to: str = ""
    bcc: list[str] = field(default_factory=list)
    cc: list[str] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    attachments: list[Attachment] = field(default_factory=list)


def mime(mail: Mail) -> bytes:
    """The message as RFC 5322 bytes: text and HTML alternatives, then the attachments. The email
    package is imported here: the functions that send nothing (the request authorizer) never load it."""
    from email.message import EmailMessage
    from email.utils import formataddr, formatdate, make_msgid

    message = EmailMessage()
    message["From"] = formataddr((mail.sender_name or "", mail.sender))
    message["To"] = formataddr((mail.to_name or "", mail.to))
    message["Subject"] = mail.subject
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid(domain=mail.sender.rpartition("@")[2] or None)
    if mail.cc:
        message["Cc"] = ", ".join(mail.cc)
    if mail.reply_to:
        message["Reply-To"] = mail.reply_to
    for name, value in mail.headers.items():
        message[name] = str(value)
    message.set_content(mail.text or "")
    if mail.html:
        message.add_alternative(mail.html, subtype="html")
    for name, data, mime_type in mail.attachments:
        main, _, sub = (mime_type or "application/octet-stream").partition("/")
        message.add_attachment(data, maintype=main, subtype=sub or "octet-stream", filename=name)
    return message.as_bytes()


class Mailer(Protocol):
    """Sends mail."""

    def send(self, mail: Mail) -> str:
        """Send one message; the carrier's message id. Raises Rejected (also for a message that
        cannot be built) or Unavailable."""

    def erase_copies(self, recipients: Iterable[str]) -> int:
        """Delete the copies kept of messages sent to these recipients (email addresses or E.164
        numbers: the local outbox's, mail and SMS alike); how many went (none where no copy is kept)."""


slot: Slot[Mailer] = Slot("mail")


def send(mail: Mail) -> str:
    """Send one message; its message id. Raises Rejected or Unavailable."""
    return slot.get().send(mail)


def erase_copies(recipients: Iterable[str]) -> int:
    """Delete the copies kept of messages sent to these recipients; how many went."""
    return slot.get().erase_copies(recipients)
