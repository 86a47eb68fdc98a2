"""A form as websites get it (Mautic's PublicController and FormModel::getContent): for the visitor
its browser names, with progressive profiling and autofilled values (not in kiosk mode), GET
parameters filled in (`populateValuesWithGetParameters`); on the public form page `/form/{id}`, in
the embed script `/form/generate.js?id=N` that writes the form where it is included, and for
`{form=N}` tokens of landing pages."""

import json
import re
from collections.abc import Mapping
from html import escape

from chalicelib.domain.contacts import contact_timeline
from chalicelib.domain.kernel import registry, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.web import form_display, form_html
from chalicelib.domain.web.form_display import Visitor
from chalicelib.store import port as store

TOKEN = r"{form=(\d+)}"


def published(form_id: JSON, ctx: Context) -> Doc:
    """A published form by id, or NotFound (an unknown id, or not a number)."""
    try:
        form = service.load(registry.resource("form"), int(form_id))
    except (TypeError, ValueError):
        raise NotFound() from None
    if not is_published(form, ctx.now):
        raise NotFound()
    return form


def visitor(form: Doc, contact: Doc | None) -> Visitor:
    """What the form may know of the visitor: nothing in kiosk mode; else the contact's values, and its
    earlier submissions of this form when progressive profiling needs them (its timeline: one Query)."""
    if contact is None or form.get("inKioskMode"):
        return Visitor()
    submissions: list[Doc] = []
    if form_display.uses_progressive_profiling(form):
        submissions = [
            (e["details"].get("submission") or {})
            for e in contact_timeline.events_of(contact["id"])
            if e["event"] == "form.submitted" and (e["details"].get("form") or {}).get("id") == form["id"]
        ]
    return Visitor(values=contact.get("values") or {}, submissions=submissions, known=True)


def values(form: Doc, seen: Visitor, query: Mapping[str, JSON]) -> dict[str, JSON]:
    """The values the form starts with: the contact's for `isAutoFill` fields mapped to a contact field
    (Mautic's `populateValuesWithLead`), then GET parameters named by field alias (which win)."""
    filled: dict[str, JSON] = {}
    for field in form.get("fields") or []:
        mapped = field.get("mappedField")
        if field.get("isAutoFill") and mapped and (field.get("mappedObject") or "contact") == "contact":
            known = seen.values.get(mapped)
            filled.update({field["alias"]: known} if known not in (None, "", []) else {})
        if isinstance(query.get(field["alias"]), str):
            filled[field["alias"]] = query[field["alias"]]
    return filled


def content(form: Doc, contact: Doc | None, query: Mapping[str, JSON], ctx: Context) -> str:
    """The form's script tag and HTML for the visitor (Mautic's `getContent` with the script)."""
    seen = visitor(form, contact)
    html = form_html.render(form, ctx.base_url, seen, values(form, seen, query))
    return form_html.script(ctx.base_url) + html


def page(form: Doc, contact: Doc | None, query: Mapping[str, JSON], ctx: Context) -> str:
    """The public form page (Mautic's form.html.twig): the form alone, for iframes; `noIndex` in the
    robots meta tag."""
    robots = "noindex" if form.get("noIndex") else "index"
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="robots" content="{robots}">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1.0">'
        f"<title>{escape(form.get('name') or '')}</title></head>"
        f"<body>{content(form, contact, query, ctx)}</body></html>"
    )


def embed_script(form: Doc, contact: Doc | None, ctx: Context) -> str:
    """Mautic's `getAutomaticJavascript`: script that writes the form right after the `<script>` tag
    that loaded it (`document.currentScript`), then loads the form script once per page."""
    seen = visitor(form, contact)
    html = form_html.render(form, ctx.base_url, seen, values(form, seen, {}))
    source = json.dumps(ctx.base_url + form_html.SCRIPT)
    return (
        "(function () {\n"
        "  var scr = document.currentScript;\n"
        f"  var html = {json.dumps(html)};\n"
        "  if (scr) { scr.insertAdjacentHTML('afterend', html); } else { document.write(html); }\n"
        "  if (typeof window.MauticSDKLoaded === 'undefined') {\n"
        "    window.MauticSDKLoaded = true;\n"
        "    var script = document.createElement('script');\n"
        f"    script.src = {source};\n"
        "    script.onload = function () { window.MauticSDK && window.MauticSDK.onLoad(); };\n"
        "    document.getElementsByTagName('head')[0].appendChild(script);\n"
        "  } else if (window.MauticSDK) { window.MauticSDK.onLoad(); }\n"
        "})();\n"
    )


def replace_tokens(
    html: str, contact: Doc | None, query: Mapping[str, JSON], ctx: Context, page_id: JSON = None
) -> str:
    """A landing page's `{form=N}` tokens: the published form's content for the visitor, filled from
    the page's GET parameters, with the page's id in `mauticform[mauticpage]` so a submission knows
    its page (Mautic's FormBundle PageSubscriber); an unknown or unpublished form leaves nothing."""
    page_input = f'<input type="hidden" name="mauticform[mauticpage]" value="{int(str(page_id))}">' if page_id else ""
    cache: dict[str, str] = {}

    def one(match: re.Match[str]) -> str:
        if match.group(1) not in cache:
            try:
                html = content(published(match.group(1), ctx), contact, query, ctx)
                cache[match.group(1)] = html.replace("</form>", f"{page_input}</form>", 1)
            except NotFound:
                cache[match.group(1)] = ""
        return cache[match.group(1)]

    return re.sub(TOKEN, one, html) if "{form=" in html else html


def tracked(contact_id: JSON) -> Doc | None:
    """The visitor's contact document (its signed token's), or None."""
    return store.get("contact", int(contact_id)) if contact_id else None
