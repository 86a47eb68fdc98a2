"""Forms: field aliases unique within the form, generated from labels; known action types and the
properties they need (domain/web/form_checks.py); the `cachedHtml` rendered for the caller's base URL."""

from chalicelib.domain.kernel import aliases
from chalicelib.domain.kernel.aliases import AliasHooks
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
)


class FormHooks(AliasHooks):
    def prepare(self, doc, write):
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

    def present(self, doc, out, ctx):
        out["cachedHtml"] = form_html.render(doc, ctx.base_url)
