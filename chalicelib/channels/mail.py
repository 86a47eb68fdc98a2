"""Email transport: Amazon SES with a raw MIME message (so attachments travel), and a copy in the
local outbox (`.eml`). Failures are `Rejected` (SES refused this message: sending again will not
help) or `Unavailable` (throttling, outage, network: try again later)."""
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formataddr, formatdate, make_msgid

from chalicelib import aws, config
from chalicelib.channels import outbox
from chalicelib.channels.failures import Rejected, Unavailable, translated  # noqa: F401 (re-exported)

PERMANENT = {"MessageRejected", "MailFromDomainNotVerifiedException", "MailFromDomainNotVerified",
             "InvalidParameterValue", "ConfigurationSetDoesNotExist", "AccountSendingPausedException"}


@dataclass
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
    bcc: list = field(default_factory=list)
    headers: dict = field(default_factory=dict)
    attachments: list = field(default_factory=list)


def mime(mail):
    """The message as RFC 5322 bytes: text and HTML alternatives, then the attachments."""
    message = EmailMessage()
    message["From"] = formataddr((mail.sender_name or "", mail.sender))
    message["To"] = formataddr((mail.to_name or "", mail.to))
    message["Subject"] = mail.subject
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid(domain=mail.sender.rpartition("@")[2] or None)
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


def send(mail):
    """Send through SES; returns SES's message id. Raises Rejected (also for a message that cannot be
    built, such as a header value with a line break) or Unavailable."""
    try:
        raw = mime(mail)
    except ValueError as error:
        raise Rejected(f"The message cannot be built: {error}") from None
    options = {"ConfigurationSetName": config.SES_CONFIGURATION_SET} if config.SES_CONFIGURATION_SET else {}
    with translated(PERMANENT):
        answer = aws.client("ses").send_raw_email(Source=formataddr((mail.sender_name or "", mail.sender)),
                                                  Destinations=[mail.to] + list(mail.bcc), RawMessage={"Data": raw},
                                                  **options)
    outbox.write(answer["MessageId"], "eml", raw)
    return answer["MessageId"]


def verify_sender(address):
    """Ask SES to verify a sender address (the local stack does it for the configured sender)."""
    aws.client("ses").verify_email_identity(EmailAddress=address)

