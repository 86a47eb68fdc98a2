"""Forms: field aliases unique within the form, generated from labels; known action types and the
properties they need (domain/web/form_checks.py); the `cachedHtml` rendered for the caller's base URL."""

from chalicelib.domain.kernel import aliases
from chalicelib.domain.kernel.aliases import AliasHooks
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Write
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.web import form_checks, form_html

ACTION_TYPES = (
    "asset.download",
    "email.send.user",
    "email.send.lead",
    "form.email",
    "form.repost",
    "lead.pointschange",
    "lead.changelist",
    "lead.changetags",
    "lead.addutmtags",
    "lead.remove_do_not_contact",
    "lead.scorecontactscompanies",
    "plugin.leadpush",
    "stage.change",  # not one of Mautic's core actions: docs/stages.md
)


class FormHooks(AliasHooks):
    """Forms: an alias from the name, field aliases, checked actions and the rendered HTML."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """Field aliases unique within the form (from the labels when missing); known action types with
        the properties they need."""
        super().prepare(doc, write)
        taken = set()
        for field in doc.get("fields") or []:
            base = aliases.clean(field.get("alias") or field.get("label"), "_") or "field"
            alias, number = base, 1
            while alias in taken:
                number += 1
                alias = f"{base}{number}"
            field["alias"] = alias
            taken.add(alias)
        for index, action in enumerate(doc.get("actions") or []):
            if action.get("type") and action["type"] not in ACTION_TYPES:
                write.errors[f"actions[{index}][type]"] = [
                    f"Unknown form action type '{action['type']}'; one of: {', '.join(ACTION_TYPES)}."
                ]
        form_checks.check(doc.get("actions"), write.errors, write.ctx)

    def present(self, doc: Doc, out: Doc, ctx: Context) -> None:
        """`cachedHtml`: the form's HTML for the caller's base URL."""
        out["cachedHtml"] = form_html.render(doc, ctx.base_url)
