"""An email's preview page (Mautic's `/email/preview/{id}`, `PublicController::previewAction`): the
email as a recipient would see it, with nothing tracked (no pixel, no send record, no open).

Anyone may see a published email whose `publicPreview` is set; a signed-in user sees any email they may
view. Contact tokens show placeholders, each field's label in brackets (`[Email]`), unless an
administrator names a contact (`contactId`), whose values then fill them (`PreviewFunctionalTest`)."""

from chalicelib.domain.contacts.custom_fields import definitions
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import access
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import Forbidden, NotFound
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import email_messages
from chalicelib.domain.messaging.declarations import EMAIL
from chalicelib.store import port as store

NO_HASH = "xxxxxxxxxxxxxx"  # Mautic's bogus tracking hash of a preview: its links track nobody


def _email(email_id: str, signed_in: bool, ctx: Context) -> Doc:
    """The email to preview: 404 when unknown, 403 when the viewer may not see it."""
    email = store.get(EMAIL.kind, int(email_id)) if email_id.isdigit() else None
    if email is None:
        raise NotFound()
    public = email.get("isPublished") is not False and bool(email.get("publicPreview"))
    if not (access.allowed(ctx, EMAIL, Action.VIEW, email) if signed_in else public):
        raise Forbidden()
    return email


def _placeholder(ctx: Context) -> Doc:
    """A contact whose every field shows its label in brackets, as Mautic's preview fakes one."""
    return {
        "id": 0,
        "values": {field["alias"]: f"[{field.get('label') or field['alias']}]" for field in definitions("lead", ctx)},
    }


def _contact(contact_id: str | None, signed_in: bool, ctx: Context) -> Doc:
    """The named contact for an administrator (Mautic shows contact data to admins only), else the placeholder."""
    if signed_in and contact_id and contact_id.isdigit() and access.unrestricted(ctx):
        found = store.get(CONTACT.kind, int(contact_id))
        if found is not None:
            return found
    return _placeholder(ctx)


def preview(email_id: str, contact_id: str | None, signed_in: bool, ctx: Context) -> str:
    """The preview's HTML; `signed_in` says whether `ctx.user` is a user (else an anonymous visitor)."""
    email = _email(email_id, signed_in, ctx)
    contact = _contact(contact_id, signed_in, ctx)
    return email_messages.render(email, contact, NO_HASH, None, ctx, pixel=False).html
