"""Custom field values of contacts and companies: typed writes and the grouped `fields` view.

Typed values are checked as Mautic's form types check them: numbers, dates, emails, URLs, booleans,
select and multiselect options, and country, region, locale and timezone against Mautic's lists
(`field_choices`). A lookup field is text, as in Mautic (its list only suggests values).

Values of single-line fields (every type but `textarea` and `html`) lose their control characters on
write: a line break in a name would otherwise end up in a mail header.

A value is at most as long as Mautic's column for its type (`SchemaDefinition`): 191 characters for
single-line types (or the field's `charLengthLimit`, 1 to 255), 65,535 for text areas, HTML, multiselects
and text fields whose alias holds `description` (docs/mautic-compat.md "Field lengths")."""

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

from chalicelib.domain.contacts import field_choices
from chalicelib.domain.contacts.custom_fields import GROUPS, definitions
from chalicelib.domain.kernel import addresses, clock
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Write
from chalicelib.domain.kernel.types import JSON, Doc

Coercer = Callable[[Doc, JSON], JSON]  # (field definition, payload value) -> stored value, or a.Invalid


def _options(definition: Doc) -> dict[str, JSON]:
    listed = (definition.get("properties") or {}).get("list") or []
    if isinstance(listed, str):
        listed = [{"label": v, "value": v} for v in listed.split("|")]
    return {str(o.get("value")): o.get("label") for o in listed if isinstance(o, dict)}


def _number(definition: Doc, value: JSON) -> float | int:
    scale = int((definition.get("properties") or {}).get("scale") or 0)
    try:
        number = float(value) if not isinstance(value, bool) else None
    except (TypeError, ValueError):
        number = None
    if number is None:
        raise a.Invalid("This value should be a number.")
    number = a.finite(number)  # `Infinity`, `NaN`, `1e309` as strings
    return round(number, scale) if scale else int(number)


CONTROL = r"[\x00-\x1f\x7f]+"
MULTI_LINE = ("textarea", "html")
VARCHAR_MAX = 191  # SchemaDefinition::MAX_VARCHAR_LENGTH: a single-line field's column without a limit
LIMITED_TYPES = ("text", "select", "tel", "url", "email")  # FieldType's types with a charLengthLimit
LONG_TYPES = ("textarea", "html", "multiselect")  # TEXT columns


def max_length(definition: Doc) -> int:
    """The most characters a value of the field may have, as Mautic's column for it holds."""
    kind = str(definition.get("type"))
    if kind in LONG_TYPES or (kind == "text" and "description" in str(definition.get("alias"))):
        return a.TEXT_MAX
    limit = definition.get("charLengthLimit")
    if kind in LIMITED_TYPES and isinstance(limit, int) and 0 < limit <= 255:
        return limit
    return VARCHAR_MAX


def _single_line(value: JSON) -> str:
    """The text with each run of control characters (line breaks, tabs...) made one space."""
    return re.sub(CONTROL, " ", a.as_string(value)).strip()


# the ASCII characters PHP's FILTER_SANITIZE_EMAIL drops (it drops all non-ASCII too; we keep those
# for internationalised addresses, which email-validator checks): controls, space and "(),/:;<>\ (named
# rather than as the complement of what it keeps, whose range to U+10FFFF takes 4 ms to compile)
NOT_IN_EMAIL = r'[\x00-\x20"(),/:;<>\\\x7f]'


def _email(value: JSON) -> str:
    """The address as Mautic keeps it (`InputHelper::email`: 254 characters at most, characters an
    address cannot hold in ASCII dropped, so `ann@example.com,` is `ann@example.com`), then checked."""
    text = re.sub(NOT_IN_EMAIL, "", a.as_string(value)[:254]).strip()
    if addresses.normalized(text) is None:
        raise a.Invalid("A valid email is required.")
    return text


def _url(value: JSON) -> str:
    text = _single_line(value)
    parts = urlparse(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise a.Invalid("This value is not a valid URL.")
    return text


def _date_format(fmt: str) -> Callable[[JSON], str]:
    def coerce(value: JSON) -> str:
        try:
            return clock.parse(a.as_string(value)).strftime(fmt)
        except (ValueError, OverflowError):
            raise a.Invalid("This value is not a valid date.") from None

    return coerce


def _select(definition: Doc, value: JSON, multiple: bool) -> str:
    options = _options(definition)
    chosen = value if isinstance(value, list) else (a.as_string(value).split("|") if multiple else [value])
    chosen = [a.as_string(v) for v in chosen]
    bad = [v for v in chosen if options and v not in options]
    if bad:
        raise a.Invalid(f"'{bad[0]}' is not one of the allowed options.")
    return "|".join(chosen)


def _listed(kind: str) -> Coercer:
    """A coercer taking only the values of Mautic's list for `kind` (country, region, locale, timezone)."""

    def coerce(definition: Doc, value: JSON) -> str:
        text = _single_line(value)
        if text not in field_choices.choices(kind):
            raise a.Invalid(f"'{text}' is not a valid {kind}.")
        return text

    return coerce


_COERCE = {
    "email": lambda d, v: _email(v),
    "number": _number,
    "boolean": lambda d, v: int(a.as_bool(v)),
    "url": lambda d, v: _url(v),
    "date": lambda d, v: _date_format("%Y-%m-%d")(v),
    "datetime": lambda d, v: _date_format("%Y-%m-%d %H:%M:%S")(v),
    "time": lambda d, v: _date_format("%H:%M:%S")(v),
    "select": lambda d, v: _select(d, v, False),
    "multiselect": lambda d, v: _select(d, v, True),
    "country": _listed("country"),
    "region": _listed("region"),
    "locale": _listed("locale"),
    "timezone": _listed("timezone"),
}


def coerce_value(definition: Doc, value: JSON) -> JSON:
    """A field value normalised for its definition's type, or Invalid."""
    if value is None or value == "":
        return None
    if definition.get("type") in MULTI_LINE:
        return a.within(a.as_string(value), max_length(definition))
    coerce = _COERCE.get(str(definition.get("type")), lambda d, v: _single_line(v))
    return a.within(coerce(definition, value), max_length(definition))


def _default(definition: Doc) -> JSON:
    default = definition.get("defaultValue")
    try:
        return coerce_value(definition, default)
    except a.Invalid:
        return default


def apply(object_name: str, values: dict[str, JSON], write: Write, overwrite_blank: bool) -> None:
    """Write the payload's field aliases into `values` (alias -> value).

    Create and PUT fill missing fields with their defaults and let blanks overwrite (PUT) or
    fall back to the default (create); PATCH skips blanks and numeric 0 unless overwriteWithBlank.
    Values a client sends back as it read them, in `fields.all`, count for the aliases it does not
    send at the top level (issue 34: a contact PUT back as read keeps its values; Mautic ignores
    `fields` and would clear them all)."""
    sent = as_sent(write.payload)
    for definition in definitions(object_name, write.ctx):
        _apply_one(definition, values, write, overwrite_blank, sent)
    if write.mode != "patch":
        for definition in definitions(object_name, write.ctx):
            if definition.get("isRequired") and values.get(definition["alias"]) in (None, ""):
                write.errors.setdefault(definition["alias"], ["A value is required."])


def as_sent(payload: Doc) -> Doc:
    """The payload's field values: its top-level keys over the `fields.all` map of a representation sent back."""
    fields = payload.get("fields")
    shown = fields.get("all") if isinstance(fields, dict) else None
    return {**shown, **payload} if isinstance(shown, dict) else payload


def _apply_one(definition: Doc, values: dict[str, JSON], write: Write, overwrite_blank: bool, sent: Doc) -> None:
    """`apply` for one field definition, its value taken from `sent`."""
    alias = definition["alias"]
    if alias not in sent:
        if write.mode != "patch":
            values[alias] = _default(definition)
        return
    try:
        value = coerce_value(definition, sent[alias])
    except a.Invalid as error:
        write.errors[alias] = [str(error)]
        return
    blank = value is None or (definition.get("type") == "number" and value == 0)
    if blank and not overwrite_blank and write.mode == "patch":
        return
    if value is None and not overwrite_blank and write.mode == "create":
        value = _default(definition)
    values[alias] = value
    if definition.get("isRequired") and value in (None, ""):
        write.errors[alias] = ["A value is required."]


def _normalized(definition: Doc, value: JSON) -> JSON:
    if definition.get("type") == "boolean" and value is not None:
        props = definition.get("properties") or {}
        return props.get("yes", "Yes") if value else props.get("no", "No")
    if definition.get("type") in ("select", "multiselect") and value:
        options = _options(definition)
        return "|".join(str(options.get(v, v)) for v in str(value).split("|"))
    return value


def _entries(object_name: str, ctx: Context) -> list[tuple[str, str, Doc, Doc]]:
    """(alias, group, definition, its `fields` entry but the value) per field, made once per request
    and definitions (a batch answer shows 200 contacts with the same fields)."""
    fields = definitions(object_name, ctx)
    made: dict[str, Any] = ctx.memo(("shown fields", object_name), dict)
    if made.get("of") is not fields:  # made again when the definitions were read again
        made["of"], made["entries"] = fields, [_entry(object_name, d) for d in fields]
    entries: list[tuple[str, str, Doc, Doc]] = made["entries"]
    return entries


def _entry(object_name: str, definition: Doc) -> tuple[str, str, Doc, Doc]:
    """A field's alias, group, definition and `fields` entry without its value."""
    shown = {
        "id": definition["id"],
        "label": definition.get("label"),
        "alias": definition["alias"],
        "type": definition.get("type"),
        "group": definition.get("group"),
        "object": object_name,
        "is_fixed": int(bool(definition.get("isFixed"))),
        "properties": definition.get("properties") or [],
        "default_value": definition.get("defaultValue"),
    }
    return definition["alias"], definition.get("group") or "core", definition, shown


def grouped(object_name: str, doc: Doc, ctx: Context) -> dict[str, JSON]:
    """The `fields` view: one map per group (an empty group is []) plus `all`, alias -> value."""
    values = doc.get("values") or {}
    groups: dict[str, dict[str, Doc]] = {group: {} for group in GROUPS}
    everything = {"id": doc.get("id")}
    for alias, group, definition, shown in _entries(object_name, ctx):
        value = values.get(alias)
        everything[alias] = value
        entry = dict(shown, value=value, normalizedValue=_normalized(definition, value))
        groups.setdefault(group, {})[alias] = entry
    out: dict[str, JSON] = {group: (fields or []) for group, fields in groups.items()}
    out["all"] = everything
    return out
