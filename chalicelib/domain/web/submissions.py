"""Public form submissions: validated values, the contact found or created through the field
mappings, the form's actions, the stored submission and `form.submitted` on the timeline.

Submissions are documents of kind `submission#<form id>` (ids from the `submission` counter),
so a form's submissions are one Query and one of them one GetItem.
"""

import dataclasses
import re
from collections.abc import Callable, Collection, Mapping, Sequence

from chalicelib.domain.contacts import contact_actions, contact_merge, contacts, custom_values
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import access, references, registry, service, timeline
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import Forbidden, NotFound, ValidationError
from chalicelib.domain.kernel.listing import ListQuery, is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import clickthrough
from chalicelib.domain.points import points_engine
from chalicelib.domain.web import (
    form_actions,
    form_display,
    form_fields,
    form_pages,
    form_uploads,
    form_validation,
    limits,
    page_successes,
)
from chalicelib.domain.web.declarations import FORM
from chalicelib.domain.web.form_html import options
from chalicelib.domain.web.hits import Build, Visit
from chalicelib.store import port as store
from chalicelib.store.port import Derived, EntityId

NOT_INPUT = ("button", "freetext", "freehtml", "pagebreak", "plugin.loginSocial")
TEL = r"^\+?[0-9 ().\-/]{3,}$"


def kind(form_id: EntityId) -> str:
    """The kind of one form's submissions."""
    return f"submission#{int(form_id)}"


def _type_error(field: Doc, value: str) -> str | None:
    kind_ = field["type"]
    checks = {
        "email": _coerces,
        "url": _coerces,
        "datetime": _coerces,
        "tel": lambda k, v: re.match(TEL, v),
        "number": lambda k, v: re.match(r"^-?\d+(\.\d+)?$", v),
        "date": lambda k, v: re.match(r"^\d{4}-\d{2}-\d{2}$", v) and _coerces(k, v),
    }
    if kind_ in checks and not checks[kind_](kind_, value):
        return f"'{value}' is not a valid {kind_}."
    allowed = {v for v, _ in options(field)}
    if kind_ in ("select", "radiogrp", "checkboxgrp") and allowed:
        wrong = (
            [v for v in value.split("|") if v not in allowed]
            if kind_ == "checkboxgrp"
            else ([value] if value not in allowed else [])
        )
        if wrong:
            return f"'{wrong[0]}' is not one of the choices."
    return None


def _coerces(kind_: str, value: str) -> bool:
    """Whether a contact field of that type would take the value (one validation for both)."""
    try:
        custom_values.coerce_value({"type": kind_}, value)
        return True
    except a.Invalid:
        return False


def _value(field: Doc, raw: JSON) -> str:
    if isinstance(raw, dict):
        raw = list(raw.values())
    if isinstance(raw, list):
        items = [str(v).strip() for v in raw if str(v).strip()]
        return "|".join(items) if field["type"] == "checkboxgrp" else (items[0] if items else "")
    return "" if raw is None else str(raw).strip()


def _captcha_error(field: Doc, value: str) -> str | None:
    answer = str((field.get("properties") or {}).get("captcha") or "").strip()
    if answer.lower() != value.lower():
        return field.get("validationMessage") or ("This field must stay empty." if not answer else "Wrong answer.")
    return None


def validate(
    form: Doc,
    data: Doc,
    uploads: Mapping[str, form_uploads.Upload] | None = None,
    unseen: Collection[str] = (),
) -> tuple[dict[str, str], Doc, list[form_uploads.Pending]]:
    """(results by field alias, contact payload, the checked uploads to store) of a submission;
    ValidationError naming each bad field. A `file` field's value is its stored file name (Mautic's).
    A conditional field its parent's value hid is neither checked nor stored (Mautic's
    `showForConditionalField`); the errors of fields progressive profiling did not show the visitor
    (`unseen`) are dropped, as Mautic's SubmissionModel drops them."""
    results: dict[str, str] = {}
    payload: Doc = {}
    pending: list[form_uploads.Pending] = []
    errors: dict[str, list[str]] = {}
    fields = form.get("fields") or []
    for field in fields:
        if field["type"] in NOT_INPUT or not form_fields.shown_by_condition(field, fields, data):
            continue
        alias = field["alias"]
        value, message = _checked(field, data, uploads or {}, pending)
        if message:
            errors.update({} if alias in unseen else {alias: [message]})
            continue
        if field["type"] != "captcha" and field.get("saveResult", True):
            results[alias] = value
        target = _mapping(field)
        if target and value != "":
            payload[target] = value.split("|") if field["type"] == "checkboxgrp" else value
    if errors:
        raise ValidationError(errors)
    return results, payload, pending


def _checked(
    field: Doc, data: Doc, uploads: Mapping[str, form_uploads.Upload], pending: list[form_uploads.Pending]
) -> tuple[str, str | None]:
    """(value, error message or None) of one input field; a checked upload is added to `pending`."""
    if field["type"] == "file":
        upload, message = form_uploads.check(field, uploads.get(field["alias"]))
        if message:
            return "", message
        pending += [upload] if upload else []
        value = upload.name if upload else ""
    else:
        value = _value(field, data.get(field["alias"]))
    if field["type"] == "captcha":
        return value, _captcha_error(field, value)
    if value == "":
        required = field.get("validationMessage") or f"'{field.get('label')}' is required."
        unasked = field.get("showWhenValueExists") is False and field["alias"] not in data  # hidden: value known
        return value, required if field.get("isRequired") and not unasked else None
    return value, _type_error(field, value) or form_validation.error(field, value)


def _mapping(field: Doc) -> str | None:
    """The contact field alias a form field fills (`mappedObject`/`mappedField`, or legacy `leadField`)."""
    if field.get("mappedObject") == "company":
        return "company" if field.get("mappedField") == "companyname" else None
    if field.get("mappedField") and field.get("mappedObject") in (None, "contact"):
        return field["mappedField"]
    return field.get("leadField") or None


def published_form(form_id: EntityId, ctx: Context) -> Doc:
    """The form, or NotFound when it is missing or not published."""
    form = service.load(FORM, form_id)
    if not is_published(form, ctx.now):
        raise NotFound("This form is not published.")
    return form


def _contact(payload: Doc, visit: Visit, form: Doc, ctx: Context, build: Build, items: Sequence[Derived]) -> Doc:
    """The submitting contact, created or updated with the mapped values and `build`'s changes, stored
    with `items` in one transaction. The visitor's own contact (its signed token) takes the submission
    when it has no email or its own, or (an anonymous visitor) an email no contact holds; an email of
    another contact updates that contact but never makes the browser that contact (an email typed in
    proves nothing) nor merges the visitor into it; a new email makes a new contact, the browser's.
    `visit.contact_id` ends naming the contact the browser owns."""
    if visit.ip:
        payload = dict(payload, ipAddress=visit.ip)
    tracked = contact_merge.tracked(CONTACT, visit.contact_id)
    holder = CONTACT.hooks.duplicate_of({"values": payload}, ctx)
    takes = tracked is not None and _may_take(tracked, payload.get("email"), holder)
    visit.owns_contact = takes or holder is None
    try:
        chosen = tracked if takes else holder
        if chosen is not None:  # both documents are read already: no second look-up
            contact = service.update(CONTACT, chosen, payload, ctx, build, items)
        else:
            contact = service.create(CONTACT, payload, ctx, build=build, items=items)[0]
    except ValidationError as error:
        raise ValidationError(_form_errors(error.fields, form)) from None
    visit.contact_id = contact["id"] if visit.owns_contact else (tracked or {}).get("id")
    return contact


def _may_take(tracked: Doc, email: JSON, holder: Doc | None) -> bool:
    """Whether a submission of `email` belongs to the tracked contact: no email, the contact's own, or
    a contact without one yet (an anonymous visitor) when no other contact holds it."""
    own = (tracked.get("values") or {}).get("email")
    if not email or (own and own.strip().lower() == str(email).strip().lower()):
        return True
    return not own and (holder is None or holder["id"] == tracked["id"])


def _form_errors(contact_errors: Mapping[str, list[str]], form: Doc) -> dict[str, list[str]]:
    """Contact field errors renamed to the form fields that carried the values."""
    by_target = {_mapping(f): f["alias"] for f in form.get("fields") or [] if _mapping(f)}
    return {by_target.get(name, name): messages for name, messages in contact_errors.items()}


def submit(
    form_id: EntityId,
    data: Doc,
    visit: Visit,
    ctx: Context,
    uploads: Mapping[str, form_uploads.Upload] | None = None,
) -> tuple[Doc, Doc, Doc]:
    """Validate and store a submission with its contact (the form's actions and points applied), in
    one transaction; its uploads are put in the bucket first and removed again when the submission
    is not stored. In kiosk mode (`inKioskMode`: one device, many people) the tracked visitor is left
    out: the submission finds or creates its contact by email alone and the browser keeps its own
    (Mautic's SubmissionModel). A browser that came by an email's tracked link (`visit.clickthrough`)
    counts the submission for that email's A/B test. Returns (form, submission, contact)."""
    form = published_form(form_id, ctx)
    limits.submission(visit)
    results, payload, pending = validate(form, data, uploads, _unseen(form, visit.contact_id))
    submission = {
        "id": store.allocate_ids("submission")[0],
        "formId": form["id"],
        "contactId": None,
        "ipAddress": visit.ip,
        "referer": visit.referer,
        "page": _page(data, ctx),
        "trackingId": None,
        "dateSubmitted": ctx.now,
        "results": results,
    }
    if pending:
        submission["files"] = form_uploads.store(form["id"], submission["id"], pending)
        payload.update(_file_links(form, submission, ctx))

    def build(doc: Doc) -> list[Doc]:
        submission["contactId"] = doc["id"]
        events = [
            timeline.event(
                "form.submitted",
                form.get("name"),
                {
                    "form": {"id": form["id"], "name": form.get("name"), "alias": form.get("alias")},
                    "submission": {
                        k: submission[k] for k in ("id", "dateSubmitted", "referer", "ipAddress", "results")
                    },
                },
            )
        ]
        events += form_actions.run(form, doc, visit, ctx)
        events += points_engine.award(doc, "form.submit", form["id"], ctx)
        items[1:] = form_actions.followups(form, submission, doc, ctx) + form_uploads.lookup(submission)
        return events

    items: list[Derived] = [(kind(form["id"]), submission["id"], submission)]
    company = _company(form, results, ctx)
    builder: Build = build if company is None else _linking(build, company, ctx)
    who = dataclasses.replace(visit, contact_id=None) if form.get("inKioskMode") else visit
    try:
        contact = service.retrying(lambda: _contact(payload, who, form, ctx, builder, items), ctx)
    except Exception:
        form_uploads.remove((submission.get("files") or {}).values())  # a refused submission keeps no file
        raise
    form_actions.queue(items)
    if not form.get("inKioskMode"):  # a kiosk's device speaks for no one email
        clickthrough.count("submission", visit.clickthrough, ctx)
    if submission["page"]:
        page_successes.count("submission", submission["page"], f"c{contact['id']}", ctx)
    return form, submission, contact


def _page(data: Doc, ctx: Context) -> int | None:
    """The published landing page the form was posted from (`mauticpage`, Mautic's SubmissionModel)."""
    given = str(data.get("mauticpage") or "")
    return int(given) if a.digits(given) and page_successes.published(int(given), ctx) else None


def _company_values(form: Doc, results: Mapping[str, str]) -> Doc:
    """The company fields the submission fills (fields mapped to the company object, a `companyLookup`
    field's name among them), by company field alias."""
    return {
        f["mappedField"]: results[f["alias"]]
        for f in form.get("fields") or []
        if f.get("mappedObject") == "company" and f.get("mappedField") and results.get(f["alias"])
    }


def _company(form: Doc, results: Mapping[str, str], ctx: Context) -> Doc | None:
    """Mautic's IdentifyCompanyHelper: the company the submission names (`companyname`), found by name
    (any case) or created with the submitted company fields; None when no company name was given."""
    values = _company_values(form, results)
    name = str(values.get("companyname") or "").strip()
    if not name:
        return None
    wanted = name.lower()
    for company in store.iterate("company"):  # O(companies): only forms with a company name field
        if str((company.get("values") or {}).get("companyname") or "").strip().lower() == wanted:
            return company
    return service.create(registry.resource("company"), values, ctx)[0]


def _linking(build: Build, company: Doc, ctx: Context) -> Build:
    """`build` that also links the contact to the submission's company (primary when it is the first)."""

    def linked(doc: Doc) -> list[Doc]:
        contact_actions.link_company(doc, company, ctx)
        return build(doc)

    return linked


def _unseen(form: Doc, contact_id: int | None) -> set[str]:
    """The fields progressive profiling did not show this visitor (their errors are dropped, as Mautic's
    SubmissionModel drops them); none when the form does not use it or the visitor is unknown."""
    if not contact_id or not form_display.uses_progressive_profiling(form):
        return set()
    fields = form.get("fields") or []
    seen = form_pages.visitor(form, form_pages.tracked(contact_id))
    shown = form_display.displayed(form, fields, seen)
    return {f["alias"] for f in fields if f.get("parent") in (None, "") and f["alias"] not in shown}


def _file_links(form: Doc, submission: Doc, ctx: Context) -> Doc:
    """The contact fields that `file` fields fill: the download's URL, as Mautic's FieldValueTransformer."""
    return {
        target: form_uploads.link(ctx.base_url, form["id"], submission["id"], field["alias"])
        for field in form.get("fields") or []
        if field["type"] == "file" and field["alias"] in submission["files"] and (target := _mapping(field))
    }


ORDER_COLUMNS = {
    "id": "id",
    "date_submitted": "dateSubmitted",
    "datesubmitted": "dateSubmitted",
    "referer": "referer",
    "ip_address": "ipAddress",
    "ipaddress": "ipAddress",
    "lead_id": "contactId",
}


def _order_key(order_by: str | None) -> Callable[[Doc], JSON]:
    """A sort key for `orderBy`: `s.date_submitted`, `i.ip_address`, `r.<field alias>`... (prefixes of
    Mautic's joined tables); unknown columns are a 400."""
    prefix, _, column = (order_by or "s.id").rpartition(".")
    if prefix == "r":
        return lambda s: str((s.get("results") or {}).get(column) or "")
    name = ORDER_COLUMNS.get(column.lower())
    if name is None:
        raise ValidationError({"orderBy": [f"Unknown column '{order_by}'."]})
    return lambda s: (s.get(name) is None, s.get(name) if name == "id" else str(s.get(name) or ""))


def listing(form_id: EntityId, query: ListQuery, ctx: Context, contact_id: int | None = None) -> Doc:
    """`{"total", "submissions"}` of one form (optionally one contact's), ordered and paged."""
    form = service.load(FORM, form_id)
    rows = [s for s in store.iterate(kind(form["id"])) if contact_id is None or s["contactId"] == contact_id]
    search = str(query.search or "").strip().lower()
    if search:
        rows = [s for s in rows if any(search in str(v).lower() for v in (s.get("results") or {}).values())]
    rows.sort(key=_order_key(query.order_by), reverse=query.order_dir == "DESC")
    page = rows[query.start : query.start + query.limit] if query.limit else rows[query.start :]
    return {"total": len(rows), "submissions": present(form, page, ctx)}


def one(form_id: EntityId, submission_id: JSON, ctx: Context) -> Doc:
    """One submission of a form as compat 15.5 shows it, or NotFound."""
    form = service.load(FORM, form_id)
    return present(form, [_submission(form, submission_id)], ctx)[0]


def uploaded_file(form_id: EntityId, submission_id: JSON, alias: str, ctx: Context) -> tuple[bytes, str, str]:
    """(bytes, content type, stored name) of the file a submission holds for a field. Decided on the
    documents: the caller views the form (the route's need) and the submission's contact (403 otherwise;
    a contact gone needs the view of others' contacts); an unknown submission, field or file is a 404."""
    found = _submission(service.load(FORM, form_id, ctx), submission_id)
    contact = store.get(CONTACT.kind, int(found["contactId"])) if found.get("contactId") else None
    if contact is not None:
        access.require(ctx, CONTACT, Action.VIEW, contact)
    elif not access.may(ctx, CONTACT.permission, Action.VIEW, None):
        raise Forbidden()
    return form_uploads.read(found, alias)


def public_file(submission_id: JSON, alias: str, ctx: Context) -> tuple[bytes, str, str]:
    """(bytes, content type, stored name) of a file at Mautic's public address: only a field marked
    `public` serves it to anyone (Forbidden otherwise: the API download needs the form's and the contact's
    view); an unknown submission or field, or a field without a file, is a 404."""
    form_id = form_uploads.form_of(submission_id)
    form = service.load(FORM, form_id, ctx) if form_id else None
    field = next((f for f in (form or {}).get("fields") or [] if f.get("alias") == alias), None)
    if form is None or field is None or field.get("type") != "file":
        raise NotFound()
    if not form_uploads.is_public(field):
        raise Forbidden("This file is not public: download it through the API.")
    return form_uploads.read(_submission(form, submission_id), alias)


def _submission(form: Doc, submission_id: JSON) -> Doc:
    """A stored submission of the form, or NotFound."""
    try:
        found = store.get(kind(form["id"]), int(submission_id))
    except (TypeError, ValueError):
        found = None
    if found is None:
        raise NotFound()
    return found


def present(form: Doc, rows: Sequence[Doc], ctx: Context) -> list[Doc]:
    """Submissions as compat 15.5: the form and the contact in their simplified shapes."""
    contacts: dict[JSON, Doc] = store.batch_get("contact", [s["contactId"] for s in rows if s.get("contactId")])
    category = form.get("category")
    form_out = {
        "id": form["id"],
        "name": form.get("name"),
        "alias": form.get("alias"),
        "category": _category(category, ctx),
    }
    return [
        {
            "id": s["id"],
            "ipAddress": {"ip": s.get("ipAddress")},
            "form": form_out,
            "lead": _lead(contacts.get(s.get("contactId")), ctx),
            "trackingId": s.get("trackingId"),
            "dateSubmitted": s.get("dateSubmitted"),
            "referer": s.get("referer"),
            "page": s.get("page"),
            "results": s.get("results") or {},
        }
        for s in rows
    ]


def _category(category_id: int | None, ctx: Context) -> Doc | None:
    """The form's category; its bare id when the caller may not view it (as any reference)."""
    found = references.referenced("category", [category_id], ctx).get(category_id) if category_id else None
    if found is None or access.allowed(ctx, registry.resource("category"), Action.VIEW, found):
        return found
    return {"id": found["id"]}


def _lead(contact: Doc | None, ctx: Context) -> Doc | None:
    """The submitter's contact in compat 15.5's shape; its bare id when the caller may not view it."""
    if contact is None:
        return None
    if not access.allowed(ctx, CONTACT, Action.VIEW, contact):
        return {"id": contact["id"]}
    values = contact.get("values") or {}
    points = int(values.get("points") or 0)
    return dict(
        {key: values.get(key) for key in contacts.BASIC_FIELDS},
        id=contact["id"],
        points=points,
        color=contacts.color(points, ctx),
    )
