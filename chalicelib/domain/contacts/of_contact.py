"""Documents about one contact (notes, devices), named by their `lead`: for own/other permissions
they are the contact's."""

from chalicelib.domain.kernel import registry
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.references import referenced
from chalicelib.domain.kernel.resources import Hooks
from chalicelib.domain.kernel.types import JSON, Doc


class OfContact(Hooks):
    """Hooks of documents about one contact: their permission user is their contact's."""

    owner_indexed = False  # whose they are follows their contact's owner, not their own writes

    def permission_user(self, doc: Doc, ctx: Context) -> JSON:
        """The contact's permission user (its owner, else whoever created it)."""
        contact_id = doc.get("lead")
        contact = referenced("contact", [contact_id], ctx).get(contact_id) if contact_id else None
        return registry.resource("contact").hooks.permission_user(contact, ctx) if contact else None
