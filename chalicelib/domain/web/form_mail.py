"""The messages of form follow-ups that are not a send of an email to the contact: an email (the
resource) to users, a form's results to addresses (`form.email`) and the notice of a failed repost.

Each message goes to one recipient, without tracking, from the instance's sender (a user email from
the email's). The submitted values fill `{formfield=<alias>}` tokens as plain text (escaped in HTML);
the contact's tokens come from the contact as it was stored with the submission. `deliver_each`
sends each recipient at most once: a marker per message, attempt and address is claimed before
SES is called, and the addresses reached travel with a retried message.
"""

import hashlib
from collections.abc import Iterable
from html import escape

from chalicelib import config
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import email_messages, rendering
from chalicelib.domain.web import limits
from chalicelib.domain.web.form_checks import addresses, flag
from chalicelib.ports import mail, window_counters
from chalicelib.store import port as store

HIDDEN = "*********"
Outcome = tuple[str, str | None]  # "ok", "retry" (not done: may try again) or "failed", and why


def form_tokens(job: Doc) -> dict[str, rendering.Text]:
    """`{formfield=<alias>}` → the submitted value, as plain text; a file field's is its download's URL
    (Mautic's FieldValueTransformer)."""
    results = dict(job["submission"].get("results") or {}, **(job["submission"].get("links") or {}))
    return {"{formfield=%s}" % alias: rendering.Text(value) for alias, value in results.items()}


def results_table(job: Doc) -> str:
    """The submitted values as an HTML table (password fields hidden)."""
    hidden = set(job["form"].get("passwords") or [])
    rows = "".join(
        f'<tr><td style="vertical-align: top"><strong>{escape(alias)}</strong></td>'
        f"<td>{escape(HIDDEN if alias in hidden else str(value))}</td></tr>"
        for alias, value in (job["submission"].get("results") or {}).items()
    )
    return f"<table>{rows}</table>"


def _name(doc: Doc) -> str:
    """A user's or a contact's name."""
    first = doc.get("firstName") or doc.get("firstname") or ""
    return f"{first} {doc.get('lastName') or doc.get('lastname') or ''}".strip()


def _mail(
    sender: tuple[str, str], to: str, subject: str, html: str, reply_to: str = "", to_name: str = ""
) -> mail.Mail:
    return mail.Mail(
        sender=sender[0],
        sender_name=sender[1],
        to=to,
        to_name=to_name,
        subject=subject,
        html=html,
        text=rendering.html_to_text(html),
        reply_to=reply_to,
    )


def user_mails(email: Doc, job: Doc, users: Iterable[Doc], ctx: Context) -> list[mail.Mail]:
    """The email rendered for the submitting contact (form tokens too), one message per user."""
    contact = job["contact"]
    rendered = rendering.render_email(
        email_messages.themed(email), email_messages.contact_sources(contact, ctx, form_tokens(job))
    )
    sender = email_messages.sender(email, email_messages.owner_of(contact, ctx), ctx)
    return [
        mail.Mail(
            sender=sender[0],
            sender_name=sender[1],
            to=user["email"],
            to_name=_name(user),
            subject=rendered.subject,
            html=rendered.html,
            text=rendered.text,
            reply_to=email.get("replyToAddress") or "",
        )
        for user in users
        if user.get("email")
    ]


def results_mails(job: Doc, props: Doc, ctx: Context) -> list[mail.Mail]:
    """`form.email`: subject and message (default: the results table) with the contact's and the
    form's tokens, to `to`, `cc`, `bcc`, the owner (`email_to_owner`) and the contact (`copy_lead`,
    within the relay cap of `limits.relay`); replies go to the contact unless `set_replyto` is off."""
    contact = job["contact"]
    sources = email_messages.contact_sources(contact, ctx, form_tokens(job))
    subject = rendering.render_text(props.get("subject") or f"Form submission: {job['form'].get('name')}", sources)[0]
    message = str(props.get("message") or "")
    html = rendering.render_text(message, sources, html=True)[0] if message.strip() else results_table(job)
    sender = email_messages.sender({}, None, ctx)
    own = (contact.get("values") or {}).get("email") or ""
    reply_to = own if flag(props, "set_replyto", True) else ""
    wanted = [address for name in ("to", "cc", "bcc") for address in addresses(props.get(name))]
    owner = email_messages.owner_of(contact, ctx) if flag(props, "email_to_owner") else None
    wanted += [owner["email"]] if owner and owner.get("email") else []
    mails = [_mail(sender, address, subject, html, reply_to) for address in dict.fromkeys(wanted)]
    if flag(props, "copy_lead") and own and limits.relay():
        mails.append(_mail(sender, own, subject, html, to_name=_name(contact.get("values") or {})))
    return mails


def repost_failed_mails(job: Doc, props: Doc, reason: str | None, ctx: Context) -> list[mail.Mail]:
    """The notice of a repost that failed, with the results, to `failure_email`."""
    form, submission = job["form"], job["submission"]
    link = f"{email_messages.base_url(ctx)}/api/forms/{form['id']}/submissions/{submission['id']}"
    html = (
        f"<p>The results of a submission of the form {escape(str(form.get('name')))} could not be posted to "
        f"{escape(str(props.get('post_url')))}: {escape(reason or 'unknown error')}.</p>"
        f"<p>The submission: {escape(link)}</p>" + results_table(job)
    )
    sender = email_messages.sender({}, None, ctx)
    subject = f"Failed to repost the form {form.get('name')}"
    return [_mail(sender, address, subject, html) for address in addresses(props.get("failure_email"))]


def _hashed(address: str) -> str:
    """What a marker keeps of an address: its SHA-256, so no marker names a person (docs/privacy.md)."""
    return hashlib.sha256(address.strip().lower().encode()).hexdigest()


def deliver_each(message: Doc, mails: Iterable[mail.Mail]) -> Outcome:
    """Send the mails whose address `message["sent"]` lacks, noting each; ("ok", None), ("retry",
    reason) when SES is unavailable, or ("failed", reasons) when SES refused some."""
    refused: list[str] = []
    for item in mails:
        if item.to in message["sent"]:
            continue
        if store.claim(f"formmail#{message['id']}#{message['attempt']}#{_hashed(item.to)}"):
            window_counters.acquire("email", config.active().EMAIL_SEND_RATE)
            try:
                mail.send(item)
            except mail.Unavailable as error:
                return "retry", str(error)
            except mail.Rejected as error:
                refused.append(f"{item.to}: {error}")
        message["sent"].append(item.to)
    return ("failed", "; ".join(refused)) if refused else ("ok", None)
