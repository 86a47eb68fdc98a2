"""Composing one email for one contact: sender, recipient, per-recipient links (open pixel, web view,
unsubscribe, signed click redirects), rendered content and attachments, as a `mail.Mail`."""

import base64
import hashlib
import hmac
from collections.abc import Iterable
from urllib.parse import quote

from chalicelib import config
from chalicelib.domain.kernel import cache_keys, cached, files, keys
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import dynamic_content, email_dynamic_content, rendering, theme_html, utm
from chalicelib.ports.mail import Attachment, Mail
from chalicelib.store import port as store
from chalicelib.store.port import EntityId


def base_url(ctx: Context) -> str:
    """The public base URL the links of a message point at."""
    return config.active().BASE_URL or ctx.base_url or "http://127.0.0.1:8000"


def _settings(ctx: Context) -> Doc:
    docs = cached.documents("setting", ctx)
    return docs[0] if docs else {}


def sender(email: Doc, owner: Doc | None, ctx: Context) -> tuple[str, str]:
    """(address, name) a message is sent from: the owner (`useOwnerAsMailer`), the email's own, or the
    instance's (`mailerFromEmail`/`mailerFromName` settings, else MAILER_FROM_EMAIL/NAME)."""
    if email.get("useOwnerAsMailer") and owner and owner.get("email"):
        name = f"{owner.get('firstName') or ''} {owner.get('lastName') or ''}".strip()
        return owner["email"], name
    stored = _settings(ctx)
    return (
        email.get("fromAddress") or stored.get("mailerFromEmail") or config.active().MAILER_FROM_EMAIL,
        email.get("fromName") or stored.get("mailerFromName") or config.active().MAILER_FROM_NAME,
    )


def reply_to(email: Doc, owner: Doc | None) -> str:
    """The Reply-To: the email's own, else the owner's address when the owner is the mailer
    (`MailHelper::setReplyToForSingleMessage`); none otherwise, so replies go to the sender."""
    if email.get("replyToAddress"):
        return str(email["replyToAddress"])
    if email.get("useOwnerAsMailer") and owner and owner.get("email"):
        return str(owner["email"])
    return ""


def signature(tracking_hash: str, url: str, ctx: Context, legacy: bool = False) -> str:
    """The signature of a click redirect: only links the service wrote redirect (no open redirect).
    Signed with the key derived for clicks; `legacy`: with the signing key itself, as links in
    emails sent before the derived keys were."""
    key = str(_settings(ctx).get("signingKey") or "").encode() if legacy else keys.derived("click", ctx)
    digest = hmac.new(key, f"click\n{tracking_hash}\n{url}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def click_url(tracking_hash: str, url: str, ctx: Context) -> str:
    """The signed click redirect of a link in the message with this tracking hash."""
    return f"{base_url(ctx)}/r/{tracking_hash}?url={quote(url, safe='')}&sig={signature(tracking_hash, url, ctx)}"


def _document(kind: str, entity_id: EntityId, ctx: Context) -> Doc | None:
    return ctx.memo(cache_keys.document(kind, entity_id), lambda: store.get(kind, entity_id))


def asset_url(asset_id: int, ctx: Context) -> str | None:
    """A published asset's download URL (`{assetlink=N}` of emails and landing pages), or None."""
    asset = _document("asset", asset_id, ctx)
    if asset is None or not is_published(asset, ctx.now):
        return None
    return f"{base_url(ctx)}/asset/{asset['id']}:{asset.get('alias')}"


def _page_url(page_id: int, ctx: Context) -> str | None:
    page = _document("page", page_id, ctx)
    if page is None or not is_published(page, ctx.now):
        return None
    return f"{base_url(ctx)}/{page.get('alias')}"


def _primary_company(contact: Doc, ctx: Context) -> Doc:
    link = next((c for c in contact.get("companies") or [] if c.get("isPrimary")), None)
    company = _document("company", link["id"], ctx) if link else None
    return (company or {}).get("values") or {}


def owner_of(contact: Doc, ctx: Context) -> Doc | None:
    """The contact's owner (a user document), or None."""
    return _document("user", contact["owner"], ctx) if contact.get("owner") else None


def contact_sources(
    contact: Doc, ctx: Context, tokens: JSON = None, links: rendering.Links | None = None
) -> rendering.Sources:
    """What the tokens of a message to `contact` resolve with: its fields, its primary company's, its owner."""
    return rendering.Sources(
        contact=contact.get("values") or {},
        company=_primary_company(contact, ctx),
        owner=owner_of(contact, ctx) or {},
        tokens=rendering.normalise_tokens(tokens),
        links=links or rendering.Links(),
    )


def sources(
    contact: Doc, tracking_hash: str, tokens: JSON, ctx: Context, pixel: bool = True, email: Doc | None = None
) -> rendering.Sources:
    """The sources of an email: the contact's, links carrying the tracking hash, and the email's own
    dynamic content (`dynamicContent`) judged for the contact."""
    base = base_url(ctx)
    links = rendering.Links(
        unsubscribe=f"{base}/email/unsubscribe/{tracking_hash}",
        webview=f"{base}/email/view/{tracking_hash}",
        pixel=f"{base}/email/{tracking_hash}.gif" if pixel else "",
        asset=lambda i: asset_url(i, ctx),
        page=lambda i: _page_url(i, ctx),
        dwc=lambda slot: dynamic_content.resolve(slot, contact, ctx),
        dynamic=lambda name: email_dynamic_content.content((email or {}).get("dynamicContent"), name, contact, ctx),
    )
    return contact_sources(contact, ctx, tokens, links)


def render(
    email: Doc, contact: Doc, tracking_hash: str, tokens: JSON, ctx: Context, pixel: bool = True
) -> rendering.Rendered:
    """The email rendered for the contact (in the frame of its theme: `themed`), links rewritten
    through the click redirect to their target with the email's `utmTags` (docs/email.md)."""
    found = sources(contact, tracking_hash, tokens, ctx, pixel, email)
    tags = email.get("utmTags")
    return rendering.render_email(
        themed(email), found, track=lambda url: click_url(tracking_hash, utm.tagged(url, tags), ctx)
    )


def themed(email: Doc) -> Doc:
    """The email with its `customHtml` placed in the theme its `template` names (domain/messaging/theme_html.py)."""
    return dict(email, customHtml=theme_html.themed(email, "email"))


def attachments(asset_ids: Iterable[int] | None, ctx: Context) -> list[Attachment]:
    """(name, bytes, MIME type) of the local files of the assets; remote assets are not attached."""
    found: list[Attachment] = []
    for asset_id in dict.fromkeys(asset_ids or []):
        asset = _document("asset", int(asset_id), ctx)
        if not asset or asset.get("storageLocation") != "local" or not asset.get("file"):
            continue
        try:
            data, mime = files.read_asset_file(asset["file"])
        except NotFound:
            continue  # the file was deleted meanwhile
        name = f"{asset.get('alias') or asset['id']}.{asset.get('extension') or 'bin'}"
        found.append((name, data, asset.get("mime") or mime))
    return found


def headers(email: Doc, tracking_hash: str, unsubscribe: str, transactional: bool) -> dict[str, str]:
    """The email's own headers, plus one-click unsubscribe (RFC 8058) on marketing sends."""
    extra = (
        {str(k): str(v) for k, v in (email.get("headers") or {}).items()}
        if isinstance(email.get("headers"), dict)
        else {}
    )
    extra["X-Mautic-Tracking"] = tracking_hash
    if not transactional:
        extra.update({"List-Unsubscribe": f"<{unsubscribe}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"})
    return extra


def compose(
    email: Doc,
    contact: Doc,
    address: str,
    tracking_hash: str,
    rendered: rendering.Rendered,
    attached: list[Attachment],
    ctx: Context,
    transactional: bool,
) -> Mail:
    """The `Mail` for one recipient."""
    owner = owner_of(contact, ctx)
    from_address, from_name = sender(email, owner, ctx)
    values = contact.get("values") or {}
    name = f"{values.get('firstname') or ''} {values.get('lastname') or ''}".strip()
    unsubscribe = f"{base_url(ctx)}/email/unsubscribe/{tracking_hash}"
    bcc = [b.strip() for b in str(email.get("bccAddress") or "").split(",") if b.strip()]
    return Mail(
        sender=from_address,
        sender_name=from_name,
        to=address,
        to_name=name,
        subject=rendered.subject,
        html=rendered.html,
        text=rendered.text,
        reply_to=reply_to(email, owner),
        bcc=bcc,
        headers=headers(email, tracking_hash, unsubscribe, transactional),
        attachments=attached,
    )
