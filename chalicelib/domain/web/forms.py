"""Forms: field aliases unique within the form, generated from labels; known action types and the
properties they need (domain/web/form_checks.py), `file` fields' limits (domain/web/form_uploads.py); the
`cachedHtml` rendered for the caller's base URL."""

from collections.abc import Sequence

from chalicelib.domain.kernel.aliases import AliasHooks
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound, ValidationError
from chalicelib.domain.kernel.resources import Write
from chalicelib.domain.kernel.types import JSON, Doc, Events
from chalicelib.domain.web import form_checks, form_fields, form_html, form_uploads, upload_purge
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
        """Field aliases as Mautic's API sets them (domain/web/form_fields.py), `leadField` and `mappedField`
        as one; known action types with the properties they need. A field id the form does not hold is a
        404 naming it (Mautic's FormApiController)."""
        super().prepare(doc, write)
        fields = doc.get("fields") or []
        raw = write.payload.get("fields")
        sent: list[JSON] = raw if isinstance(raw, list) else []
        old_ids = {f.get("id") for f in ((write.existing or {}).get("fields") or [])}
        _refuse_unknown_ids(sent, old_ids)
        given = _given_aliases(fields, sent, old_ids)
        taken = form_fields.assign_aliases(fields, form_fields.form_name(doc), given)
        if taken:  # Mautic refuses the request at once, with the message alone
            raise ValidationError(taken, next(iter(taken.values()))[0])
        for field in fields:
            form_fields.backfill_mapping(field)
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


def _number(raw_id: JSON) -> int | None:
    """A field id a client sent as a number (not a temporary id such as `new1`), or None."""
    try:
        return int(raw_id)
    except (TypeError, ValueError):
        return None


def _refuse_unknown_ids(sent: list[JSON], old_ids: set[JSON]) -> None:
    """A numeric field id the form does not hold: Mautic's 404 "Form Field ID <id> not found"."""
    for raw in sent:
        number = _number(raw.get("id")) if isinstance(raw, dict) else None
        if number is not None and number not in old_ids:
            raise NotFound(f"Form Field ID {number} not found")


def _given_aliases(fields: list[Doc], sent: list[JSON], old_ids: set[JSON]) -> set[int]:
    """The positions in `fields` of the items whose alias the request gave: the edited ones by id, the
    new ones in the request's order (they follow the kept ones in the merged list)."""
    by_id = {f.get("id"): i for i, f in enumerate(fields)}
    new_positions = iter(i for i, f in enumerate(fields) if f.get("id") not in old_ids)
    given = set()
    for raw in (r for r in sent if isinstance(r, dict)):
        number = _number(raw.get("id"))
        position = by_id.get(number) if number in old_ids else next(new_positions, None)
        if position is not None and raw.get("alias"):
            given.add(position)
    return given
