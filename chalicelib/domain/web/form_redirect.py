"""The tokens of a form's post-submit redirect or message (Mautic's PublicController
`replacePostSubmitTokens`): `{formfield=<alias>}` the submitted value, `{contactfield=<alias>|<default>}`
the submitting contact's field, and `{pagelink=<id>}` a landing page's public URL. In a redirect the
values are URL-encoded, so a value cannot add parameters or change the address's host."""

import re
from collections.abc import Callable
from urllib.parse import quote

from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.store import port as store

TOKEN = r"(?:{|%7B)(formfield|contactfield|pagelink)=([^}%]*?)(?:\|([^}%]*))?(?:}|%7D)"


def replace(text: str, submission: Doc, contact: Doc | None, ctx: Context, in_url: bool) -> str:
    """`text` with its tokens replaced (URL-encoded when `in_url`)."""
    if "formfield=" not in text and "contactfield=" not in text and "pagelink=" not in text:
        return text
    encode: Callable[[str], str] = (lambda v: quote(v, safe="@")) if in_url else (lambda v: v)
    values = (contact or {}).get("values") or {}

    def one(match: re.Match[str]) -> str:
        kind, name, default = match.group(1), match.group(2).strip(), match.group(3) or ""
        if kind == "pagelink":
            return _page_url(name, ctx)
        found: JSON = (submission.get("results") or {}).get(name) if kind == "formfield" else values.get(name)
        return encode(str(found if found not in (None, "") else default))

    return re.sub(TOKEN, one, text)


def _page_url(page_id: str, ctx: Context) -> str:
    """A page's public address (`<base>/<alias>`), or "" for an unknown page."""
    page = store.get("page", int(page_id)) if page_id.isdigit() else None
    return f"{ctx.base_url}/{page['alias']}" if page and page.get("alias") else ""
