"""A payload applied to a document, storing nothing: attributes cleaned, nested items merged, the
resource's hooks, required values, references that must exist, and whether the caller may leave the
document so. The standard operations (`service.py`) and documents kept inside another's use it."""

from collections.abc import Sequence

from chalicelib.domain.kernel import access, capability_hooks, children, counters, references, registry
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import nested as nested_items
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import ValidationError
from chalicelib.domain.kernel.resources import Resource, Write
from chalicelib.domain.kernel.types import JSON, Doc

Errors = dict[str, list[str]]  # messages by field
NOT_FINITE = "This value should be a finite number."


def payload_object(payload: JSON) -> Doc:
    """The request body as a dict: `[]` (how PHP clients send nothing) is an empty object."""
    if payload is None or payload == [] or payload == "":
        return {}
    if not isinstance(payload, dict):
        raise ValidationError({"body": ["The request body should be a JSON object."]})
    return payload


def apply(resource: Resource, doc: Doc, payload: Doc, ctx: Context, mode: str, existing: Doc | None = None) -> Write:
    """Validate the payload into `doc`, check the caller may leave it so, then finalize (which may write)."""
    write, pending = checked(resource, doc, payload, ctx, mode, existing)
    finish(resource, doc, write, pending)
    return write


def _refuse_non_finite(payload: Doc) -> None:
    """ValidationError naming every field holding an infinite number or NaN, at any depth."""
    errors: Errors = {name: [NOT_FINITE] for key in payload for name in a.non_finite(payload[key], key)}
    if errors:
        raise ValidationError(errors, _sole_message(errors))


def checked(
    resource: Resource, doc: Doc, payload: Doc, ctx: Context, mode: str, existing: Doc | None = None
) -> tuple[Write, nested_items.Pending]:
    """(Write, new nested items) of a payload applied to `doc`, nothing stored yet: ValidationError
    naming the fields, Forbidden when the result is a document the caller may not leave so."""
    _refuse_non_finite(payload)
    errors: Errors = {}
    payload, forced = access.publishing(ctx, resource, payload, existing)
    for attr in resource.all_attrs:
        if attr.writable and attr.name in payload:
            try:
                doc[attr.name] = attr.clean(payload[attr.name])
            except a.Invalid as error:
                errors[attr.name] = [str(error)]
    doc.update(forced)
    pending: nested_items.Pending = []
    for spec in resource.nested:
        if spec.name in payload:
            doc[spec.name], new = nested_items.merge(
                spec, doc.get(spec.name) or [], payload[spec.name], replace=mode != "patch", errors=errors
            )
            pending += new
        elif mode == "put":
            doc[spec.name] = []
    write = Write(payload, mode, existing, errors, ctx)
    resource.hooks.prepare(doc, write)
    counters.written(resource, doc, write)
    for attr in resource.all_attrs:
        if attr.required and attr.name not in errors and doc.get(attr.name) in (None, "", []):
            errors[attr.name] = ["A value is required."]
    _check_references(resource, doc, ctx, errors, existing)
    errors.update(children.own_parent_errors(resource, doc))
    if errors:
        raise ValidationError(errors, _sole_message(errors))
    access.require_keeps(ctx, resource, doc, existing)
    return write, pending


def finish(resource: Resource, doc: Doc, write: Write, pending: nested_items.Pending) -> None:
    """After validation: the resource's finalize hook, then ids for the new nested items (linked by its hook)."""
    resource.hooks.finalize(doc, write)
    if pending:
        capability_hooks.link(resource, doc, nested_items.assign_ids(pending))


def validated(
    resource: Resource, doc: Doc, payload: JSON, ctx: Context, mode: str, existing: Doc | None = None
) -> Write:
    """Apply a payload to `doc` as a create (`mode` create) or edit (`patch`, `put` of `existing`)
    does, storing nothing: ValidationError naming the fields, else the Write (for resources whose
    documents live inside another's, such as devices in their contact)."""
    return apply(resource, doc, payload_object(payload), ctx, mode, existing)


def _check_references(resource: Resource, doc: Doc, ctx: Context, errors: Errors, existing: Doc | None = None) -> None:
    """Each reference the write sets must exist; one it keeps as stored is not checked again (its
    document may have gone meanwhile: a deleted stage, cleared from its contacts in the background)."""
    for attr in resource.all_attrs:
        value = doc.get(attr.name)
        if (
            not attr.ref
            or attr.name in errors
            or value in (None, [])
            or (existing is not None and existing.get(attr.name) == value)
        ):
            continue
        wanted = value if isinstance(value, list) else [value]
        found = references.referenced(attr.ref, wanted, ctx)
        referenced = registry.resource(attr.ref)
        missing = [
            str(i) for i in wanted if i not in found or not capability_hooks.choosable(referenced, found[i], ctx)
        ]
        if missing:
            errors[attr.name] = [_missing_message(attr.ref, missing)]


def _missing_message(kind: str, missing: Sequence[str]) -> str:
    """What a write is told of references to documents that do not exist."""
    if kind == "category":
        return f"Category {', '.join(missing)} does not exist"  # Mautic's words
    if kind == "role":
        return "This value is not valid."  # Mautic's entity choice (UserApiControllerFunctionalTest)
    return f"No {kind} found with id {', '.join(missing)}."


def _sole_message(errors: Errors) -> str | None:
    """Mautic answers an unknown category, and a custom field's missing property (`FieldApiController::
    preSaveEntity`), with its own sentence as the whole message."""
    if list(errors) == ["category"] and errors["category"][0].startswith("Category "):
        return errors["category"][0]
    if list(errors) == ["properties"] and len(errors["properties"]) == 1:
        return errors["properties"][0]
    return None
