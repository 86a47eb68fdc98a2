"""An email (the resource) about a contact, sent to users and addresses: Mautic's SendEmailToUser
(EmailBundle/Model/SendEmailToUser.php, EmailToUserAccessor, EmailModel::sendEmailToUser), behind the
point trigger event `email.send_to_user` and the automation action `email.send.to.user`. Properties:

- `useremail.email`: the email; a missing or unpublished one fails the event;
- `user_id`: users by id; `to_owner`: the contact's owner too (once, when not listed already);
- `to`, `cc`, `bcc`: comma-separated addresses, or `{contactfield=<alias>|<default>}` tokens of the
  contact's email fields (another field gives the default); an invalid address is dropped.

One message per `to` address, then one per user; `cc` and `bcc` go with the first message only (Mautic's
first queue flush clears them). The email is rendered with the contact's tokens, without tracking and
without a send record, from the email's sender, through the same transport as every send
(`channels/mail.py`). Each message is claimed before SES is called, so a retried job never sends it twice.
"""

import hashlib
import re

from chalicelib import config
from chalicelib.domain.contacts.custom_fields import definitions
from chalicelib.domain.kernel import addresses
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import email_messages, email_sends, recipients, rendering
from chalicelib.ports import mail, queues, window_counters
from chalicelib.store import port as store

FIELD_TOKEN = r"^\{contactfield=([\w-]+)(?:\|([^}]*))?\}$"
Outcome = tuple[str, str | None]  # ("ok" | "failed", reason)


def after_trigger(doc: Doc, item: Doc, ctx: Context) -> bool:
    """The point trigger event `email.send_to_user`: queued, sent once the change that fired it is
    stored (as the trigger's `email.send`). False when it names no email."""
    props = item.get("properties") or {}
    if _email_id(props) is None:
        return False
    body = {"type": "trigger-to-user", "contact": doc["id"], "event": item["id"], "properties": props}
    queues.send(recipients.QUEUE, [body])
    return True


def trigger(contact: int, event: JSON, properties: Doc) -> None:
    """The sends worker's step: once the trigger's firing is stored (else later), send its messages."""
    if not email_sends.fired(contact, event):
        raise recipients.SendLater(f"trigger event {event} is not stored on contact {contact} yet")
    found = store.get("contact", contact)
    if found is not None:
        send(properties, found, f"trigger#{event}#{contact}", Context())


def send(props: Doc, contact: Doc, marker: str, ctx: Context) -> Outcome:
    """Send the messages `props` describe about `contact`; `marker` names this run (its claims)."""
    email_id = _email_id(props)
    email = store.get("email", email_id) if email_id is not None else None
    if email is None or not is_published(email, ctx.now):
        return "failed", "Email not found or published"
    mails = _messages(email, contact, props, ctx)
    if not mails:
        return "failed", "No user or address to send to."
    refused = [reason for reason in (_deliver(item, marker) for item in mails) if reason]
    return ("failed", "; ".join(refused)) if refused else ("ok", None)


def _email_id(props: Doc) -> int | None:
    """`useremail.email`, the email's id."""
    useremail = props.get("useremail")
    return a.id_or_none(useremail.get("email") if isinstance(useremail, dict) else None)


def _messages(email: Doc, contact: Doc, props: Doc, ctx: Context) -> list[mail.Mail]:
    """The messages: one per `to` address, then one per user; cc and bcc on the first."""
    rendered = rendering.render_email(email_messages.themed(email), email_messages.contact_sources(contact, ctx))
    sender = email_messages.sender(email, email_messages.owner_of(contact, ctx), ctx)
    targets = [(address, "") for address in _addresses(props.get("to"), contact, ctx)]
    targets += [(u["email"], _name(u)) for u in _users(props, contact) if addresses.normalized(u.get("email"))]
    mails = [
        mail.Mail(
            sender=sender[0],
            sender_name=sender[1],
            to=to,
            to_name=name,
            subject=rendered.subject,
            html=rendered.html,
            text=rendered.text,
            reply_to=email.get("replyToAddress") or "",
        )
        for to, name in targets
    ]
    if mails:
        mails[0].cc = _addresses(props.get("cc"), contact, ctx)
        mails[0].bcc = _addresses(props.get("bcc"), contact, ctx)
    return mails


def _users(props: Doc, contact: Doc) -> list[Doc]:
    """The users of `user_id`, then the owner when `to_owner` and not among them (EmailToUserAccessor)."""
    wanted = sorted(i for i in a.ids_in(props.get("user_id") or []) if isinstance(i, int))
    owner = a.id_or_none(contact.get("owner"))
    if props.get("to_owner") not in (None, False, "", 0, "0") and owner is not None and owner not in wanted:
        wanted.append(owner)
    found = store.batch_get("user", wanted)
    return [found[i] for i in wanted if i in found]


def _addresses(value: JSON, contact: Doc, ctx: Context) -> list[str]:
    """The valid addresses of a comma-separated list, contact field tokens replaced."""
    emails = {f["alias"] for f in definitions("lead", ctx) if f.get("type") == "email"}
    values = contact.get("values") or {}
    found = []
    for part in (p.strip() for p in str(value or "").split(",")):
        token = re.match(FIELD_TOKEN, part)
        if token:
            alias, default = token.group(1), token.group(2) or ""
            part = str(values.get(alias) or default) if alias in emails else default
        address = addresses.normalized(part) if part else None
        if address:
            found.append(address)
    return found


def _name(user: Doc) -> str:
    return f"{user.get('firstName') or ''} {user.get('lastName') or ''}".strip()


def _deliver(item: mail.Mail, marker: str) -> str | None:
    """Send one message unless this run sent it already; the refusal's reason, or None."""
    key = hashlib.sha256(f"{item.to}|{','.join(item.cc + item.bcc)}".lower().encode()).hexdigest()
    if not store.claim(f"usermail#{marker}#{key}"):
        return None
    window_counters.acquire("email", config.active().EMAIL_SEND_RATE)
    try:
        mail.send(item)
    except (mail.Rejected, mail.Unavailable) as error:  # at most once: an unavailable SES is not retried
        return f"{item.to}: {error}"
    return None
