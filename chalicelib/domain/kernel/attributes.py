"""Typed attributes of resources: how a client value is checked and normalised, and how long it may be
(docs/security.md "Sizes are bounded": every string, list and object attribute has a cap by its kind)."""

import json
import math
from collections.abc import Callable, Collection, Iterator
from dataclasses import field as dc_field
from typing import Any, TypeAlias

from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.types import JSON
from chalicelib.records import record

Coerce: TypeAlias = Callable[[JSON], JSON]  # a client value -> the value stored, or Invalid

# Caps by kind of attribute, in characters (docs/security.md). Mautic's columns: a name is a VARCHAR(255)
# (ClassMetadataBuilder::addIdColumns), an alias an indexed VARCHAR(191) (MAX_VARCHAR_INDEXED_LENGTH), other
# text a TEXT of 65,535; HTML and serialized arrays are LONGTEXT there, capped here so a document stays far
# below DynamoDB's item size and an answer below Lambda's.
NAME_MAX = 255
ALIAS_MAX = 191
TEXT_MAX = 65_535
HTML_MAX = 262_144
JSON_MAX = 262_144  # of an array or object attribute, as its JSON
_SHORT = {"name": NAME_MAX, "alias": ALIAS_MAX}

_TRUE = {"1", "true", "on", "yes"}
_FALSE = {"0", "false", "off", "no", ""}


class Invalid(ValueError):
    """A value does not fit its attribute; the message says why."""


def digits(text: str) -> bool:
    """True for a non-empty run of ASCII digits: `str.isdigit` also takes `²` or `١`, which `int`
    refuses or reads, so a client's `order[²]` or `/asset/²` would be a 500."""
    return text.isascii() and text.isdigit()


def as_string(value: JSON) -> str:
    """The value as a string (numbers in their decimal form, booleans `1`/`0`)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise Invalid("This value should be a string.")


def as_int(value: JSON) -> int:
    """The value as an integer (whole floats and digit strings too)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise Invalid("This value should be an integer.")


INT32 = (-(2**31), 2**31 - 1)  # Mautic's `IntHelper::MIN/MAX_INTEGER_VALUE`: a MySQL INT column


def as_int32(value: JSON) -> int:
    """`as_int` within 32 bits, as Mautic's `Range` constraint on an INT column words the refusal."""
    number = as_int(value)
    if not INT32[0] <= number <= INT32[1]:
        raise Invalid(f"This value should be between {INT32[0]} and {INT32[1]}.")
    return number


def non_finite(value: JSON, path: str) -> Iterator[str]:
    """The paths (`field[key][0]`) of the infinite or NaN numbers in a client value: JSON's parser
    takes `Infinity`, `NaN` and `1e309` as floats no document, DynamoDB number or JSON answer holds."""
    if isinstance(value, float) and not math.isfinite(value):
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from non_finite(item, f"{path}[{key}]")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from non_finite(item, f"{path}[{index}]")


def finite(value: float) -> float:
    """The number, or Invalid for an infinite one or NaN (`float("Infinity")`, `float("1e309")`)."""
    if not math.isfinite(value):
        raise Invalid("This value should be a finite number.")
    return value


def as_bool(value: JSON) -> bool:
    """The value as a boolean (`1`/`0`, `true`/`false`, `on`/`off`, `yes`/`no`)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise Invalid("This value should be a boolean.")


def as_datetime(value: JSON) -> str:
    """The date and time as ISO 8601 in UTC."""
    try:
        return clock.iso(clock.parse(value))
    except (ValueError, OverflowError, TypeError):
        raise Invalid("This value is not a valid date and time.") from None


def as_list(value: JSON) -> list[JSON]:
    """The value as a list: a PHP-style object keyed `0`, `1`... gives its values in key order."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [
            value[k] for k in sorted(value, key=lambda k: (not digits(str(k)), int(k) if digits(str(k)) else 0, str(k)))
        ]
    raise Invalid("This value should be an array.")


def as_php_array(value: JSON) -> list[JSON] | dict[str, JSON]:
    """A PHP array as sent: a list, or an object whose keys are kept (a Doctrine `array` column answers
    what it stored, so `{"weight": 50}` comes back as an object, not as its values)."""
    if isinstance(value, (list, dict)):
        return value
    raise Invalid("This value should be an array.")


def as_object(value: JSON) -> dict[str, JSON] | list[JSON]:
    """The value as an object. An empty one stays as sent: `[]` (how PHP clients encode an empty array,
    and how Mautic answers one) or `{}`, so a client comparing what it sent with the answer finds it;
    readers take the object through `object_in`."""
    if isinstance(value, dict):
        return value
    if isinstance(value, list) and not value:
        return value
    raise Invalid("This value should be an object.")


def object_in(value: JSON) -> dict[str, JSON]:
    """The object an object attribute holds: `{}` for an empty one stored as `[]`, or for no value."""
    return value if isinstance(value, dict) else {}


def as_id(value: JSON) -> int:
    """A positive id, given as itself or as an object with `id`."""
    if isinstance(value, dict) and "id" in value:
        value = value["id"]
    number = as_int(value)
    if number <= 0:
        raise Invalid("This value should be a positive id.")
    return number


def id_or_none(value: JSON) -> int | None:
    """`as_id`, or None for what is not an id."""
    try:
        return as_id(value)
    except Invalid:
        return None


def ids_in(value: JSON, keep: Collection[str] = ()) -> set[int | str]:
    """The ids a property holds (a list, one id or an id-keyed object), invalid entries left out;
    the words in `keep` (such as `this`) are kept as they are."""
    try:
        items = as_list(value) if value not in (None, "") else []
    except Invalid:
        items = [value]
    found: set[int | str] = set()
    for item in items:
        value = item if item in keep else id_or_none(item)
        if value is not None:
            found.add(value)
    return found


class OneOf:
    """A coercer accepting only the given strings; `choices` are listed by the API document."""

    def __init__(self, choices: tuple[str, ...]) -> None:
        self.choices = choices

    def __call__(self, value: JSON) -> str:
        """The value as a string, or Invalid when it is not one of the choices."""
        text = as_string(value)
        if text not in self.choices:
            raise Invalid(f"'{text}' is not one of: " + ", ".join(self.choices) + ".")
        return text


def one_of(*choices: str) -> OneOf:
    """A coercer accepting only the given strings."""
    return OneOf(choices)


def id_list(value: JSON) -> list[int]:
    """A list of positive ids (each an id or an object with `id`)."""
    return [as_id(item) for item in as_list(value)]


@record
class Attr:
    """One attribute of a resource document."""

    name: str
    coerce: Coerce = as_string
    default: JSON = None
    required: bool = False
    writable: bool = True
    nullable: bool = True
    ref: str | None = None  # kind of the referenced entities (single id or id list)
    hidden: bool = False  # stored, never shown to clients
    children_of: str | None = None  # kept by the kernel: ids of the documents whose attribute of this name is ours
    max_length: int | None = None  # characters of a string value, or of a list's or object's JSON; None: by kind

    @property
    def is_array(self) -> bool:
        """True for an attribute holding an array (empty by default): never null."""
        return isinstance(self.default, list)

    def fresh_default(self) -> JSON:
        """The default, a copy of it when it is a list or an object (never shared between documents)."""
        return (
            list(self.default)
            if isinstance(self.default, list)
            else (dict(self.default) if isinstance(self.default, dict) else self.default)
        )

    def clean(self, value: JSON) -> JSON:
        """The normalised value, or Invalid. An empty string means 'no value' except for strings; null
        for an array is the empty array (Mautic's forms submit it so: an email's `lists` emptied)."""
        if value == "" and self.coerce not in (as_string, as_bool):
            value = None
        if value is None and self.is_array:
            return self.fresh_default()
        if value is None:
            if self.nullable:
                return None
            raise Invalid("This value should not be null.")
        return within(self.coerce(value), self.max_length, self.name)

    def text_limit(self) -> int:
        """The most characters a string value may have (the API document's `maxLength`)."""
        return self.max_length or _SHORT.get(self.name, TEXT_MAX)


def within(value: JSON, max_length: int | None = None, name: str = "") -> JSON:
    """The value when it is within its cap (`max_length`, else its kind's: a name, an alias or other
    text; a list or an object counted as its JSON), else Invalid in the words of Symfony's Length
    constraint, which Mautic's forms answer."""
    if isinstance(value, str):
        size, limit = len(value), max_length or _SHORT.get(name, TEXT_MAX)
    elif isinstance(value, (list, dict)):
        size, limit = len(json.dumps(value, separators=(",", ":"))), max_length or JSON_MAX
    else:
        return value
    if size > limit:
        raise Invalid(f"This value is too long. It should have {limit} characters or less.")
    return value


@record
class Nested:
    """A collection of child items written through the parent payload (form fields, events...)."""

    name: str
    id_kind: str
    attrs: tuple[Attr, ...] = dc_field(default_factory=tuple)


def text(name: str, **kw: Any) -> Attr:
    """A string attribute."""
    return Attr(name, as_string, **kw)


def html(name: str, **kw: Any) -> Attr:
    """A string attribute holding HTML or a message body (HTML_MAX characters)."""
    kw.setdefault("max_length", HTML_MAX)
    return Attr(name, as_string, **kw)


def integer(name: str, **kw: Any) -> Attr:
    """An integer attribute (0 by default)."""
    kw.setdefault("default", 0)
    return Attr(name, as_int, **kw)


def boolean(name: str, **kw: Any) -> Attr:
    """A boolean attribute (False by default)."""
    kw.setdefault("default", False)
    return Attr(name, as_bool, **kw)


def datetime_(name: str, **kw: Any) -> Attr:
    """A date and time attribute (ISO 8601, UTC)."""
    return Attr(name, as_datetime, **kw)


def array(name: str, **kw: Any) -> Attr:
    """A list attribute (empty by default)."""
    kw.setdefault("default", [])
    return Attr(name, as_list, **kw)


def php_array(name: str, **kw: Any) -> Attr:
    """A PHP array attribute: a list or an object, answered as sent (empty list by default)."""
    kw.setdefault("default", [])
    return Attr(name, as_php_array, **kw)


def obj(name: str, **kw: Any) -> Attr:
    """An object attribute (`{}` by default); an empty one is answered as sent, `[]` or `{}`."""
    kw.setdefault("default", {})
    return Attr(name, as_object, **kw)


def choice(name: str, *choices: str, **kw: Any) -> Attr:
    """A string attribute taking only one of `choices`."""
    return Attr(name, one_of(*choices), **kw)
