"""Who a browser is: the contact a signed visitor token names, never a bare id.

A browser is given a token for a contact only with proof that the contact is its own: the anonymous
contact created for it, a contact its own form submission created, or the recipient of an email
link it followed (click, web view). Mautic's `mtc_id` cookie is still set, holding the bare id for
scripts that read it, but identity comes from the signed token alone.
"""

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import keys
from chalicelib.domain.kernel.context import Context
from chalicelib.store.port import EntityId

PURPOSE = "visitor"


def token(contact_id: EntityId, ctx: Context) -> str:
    """The signed token naming `contact_id`: `<id>.<signature>`."""
    return f"{int(contact_id)}.{keys.sign(PURPOSE, str(int(contact_id)), ctx)}"


def contact_of(value: str | None, ctx: Context) -> int | None:
    """The contact id a token names, or None when it is missing, malformed or not signed by us."""
    number, _, signature = str(value or "").partition(".")
    if not a.digits(number) or not keys.signed(PURPOSE, number, signature, ctx):
        return None
    return int(number)
