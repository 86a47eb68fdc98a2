"""Forms: field aliases unique within the form, generated from labels; known action types and the
properties they need (domain/web/form_checks.py), `file` fields' limits (domain/web/form_uploads.py); the
`cachedHtml` rendered for the caller's base URL."""

from collections.abc import Sequence

from chalicelib.domain.kernel import aliases
from chalicelib.domain.kernel.aliases import AliasHooks
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Write
from chalicelib.domain.kernel.types import Doc, Events
from chalicelib.domain.web import form_checks, form_html, form_uploads, upload_purge
from chalicelib.store.port import Derived

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
        _check_file_fields(doc.get("fields") or [], write.errors)

    def present(self, doc: Doc, out: Doc, ctx: Context) -> None:
        """`cachedHtml`: the form's HTML for the caller's base URL."""
        out["cachedHtml"] = form_html.render(doc, ctx.base_url)

    def consequences(
        self, doc: Doc | None, existing: Doc | None, ctx: Context, events: Sequence[Doc]
    ) -> tuple[list[Derived], Events]:
        """A delete, or an edit that removes `file` fields, purges their uploads: the job, in the same
        transaction (domain/web/upload_purge.py)."""
        return upload_purge.jobs(doc, existing, ctx), []

    def stored(self, doc: Doc | None, existing: Doc | None, ctx: Context) -> None:
        """After the commit: queue the purge job, if the write added one."""
        upload_purge.queue(ctx)


def _check_file_fields(fields: list[Doc], errors: dict[str, list[str]]) -> None:
    """A `file` field's properties as Mautic checks them on save (docs/public-endpoints.md, "File uploads"):
    no blacklisted extension, no size above what a request can carry."""
    for index, field in enumerate(fields):
        if field.get("type") == "file":
            for name, message in form_uploads.field_errors(field).items():
                errors[f"fields[{index}][properties][{name}]"] = [message]
