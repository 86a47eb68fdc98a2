"""Email transport: Amazon SES with a raw MIME message (so attachments travel), and a copy in the
local outbox (`.eml`). Failures are `Rejected` (SES refused this message: sending again will not
help; `Suppressed` when the recipient is on the account's suppression list) or `Unavailable`
(throttling, outage, network: try again later).

SES sends only from verified identities. Locally a sender is verified on its first use (any
`fromAddress` works); on AWS an unverified sender fails the send with a message naming the address
and SES identity verification. The AWS implementation of the mail port (`ports/mail.py`)."""

from collections.abc import Iterable
from email.utils import formataddr

from chalicelib import aws, config
from chalicelib.channels import outbox
from chalicelib.channels.failures import translated
from chalicelib.ports.mail import Attachment, Mail, Rejected, Suppressed, Unavailable, mime

__all__ = [
    "Attachment",
    "Mail",
    "Rejected",
    "Suppressed",
    "Unavailable",
    "erase_copies",
    "mime",
    "send",
    "verify_sender",
]

PERMANENT = {
    "MessageRejected",
    "MailFromDomainNotVerifiedException",
    "MailFromDomainNotVerified",
    "InvalidParameterValue",
    "ConfigurationSetDoesNotExist",
    "AccountSendingPausedException",
}


def send(mail: Mail) -> str:
    """Send through SES; returns SES's message id. Raises Rejected (also for a message that cannot be
    built, such as a header value with a line break) or Unavailable."""
    try:
        raw = mime(mail)
    except ValueError as error:
        raise Rejected(f"The message cannot be built: {error}") from None
    try:
        message_id = _send_raw(mail, raw)
    except Rejected as error:
        if "suppression list" in str(error).lower():
            raise Suppressed(str(error)) from None
        if not _unverified(error):
            raise
        if not config.active().LOCAL:
            raise Rejected(_unverified_message(mail, error)) from None
        verify_sender(mail.sender)
        message_id = _send_raw(mail, raw)
    outbox.write(message_id, "eml", raw)
    return message_id


def _unverified(error: Exception) -> bool:
    """Whether SES refused the message because an address is not a verified identity (SES: "Email
    address is not verified"; the embedded SES: "Did not have authority to send from email")."""
    reason = str(error).lower()
    return "not verified" in reason or "did not have authority" in reason


def _unverified_message(mail: Mail, error: Exception) -> str:
    """The failure of an unverified identity: the address and how to verify it. SES names the
    identities that failed; a sandbox account also checks the recipients."""
    reason = str(error)
    recipient = mail.to.lower() in reason.lower() and mail.sender.lower() not in reason.lower()
    address = mail.to if recipient else mail.sender
    role = "sender" if address == mail.sender else "recipient (the SES account is in the sandbox)"
    return (
        f"The {role} {address} is not verified in Amazon SES: verify the address or its domain "
        f"(SES identity verification, e.g. aws ses verify-email-identity --email-address {address}). "
        f"SES said: {reason}"
    )


def _send_raw(mail: Mail, raw: bytes) -> str:
    """One SendRawEmail of the built message to the recipient, the Cc and the Bcc addresses; SES's message id."""
    options = (
        {"ConfigurationSetName": config.active().SES_CONFIGURATION_SET} if config.active().SES_CONFIGURATION_SET else {}
    )
    with translated(PERMANENT):
        answer = aws.client("ses").send_raw_email(
            Source=formataddr((mail.sender_name or "", mail.sender)),
            Destinations=[mail.to] + list(mail.cc) + list(mail.bcc),
            RawMessage={"Data": raw},
            **options,
        )
    return answer["MessageId"]


def erase_copies(recipients: Iterable[str]) -> int:
    """Delete the local outbox's copies sent to these recipients (none on AWS: SES keeps no copy here)."""
    return outbox.erase(recipients)


def verify_sender(address: str) -> None:
    """Ask SES to verify a sender address (the local stack does it for the configured sender)."""
    aws.client("ses").verify_email_identity(EmailAddress=address)
