"""Typed attributes of resources: how a client value is checked and normalised."""

from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any, Callable

from chalicelib.domain.kernel import clock

_TRUE = {"1", "true", "on", "yes"}
_FALSE = {"0", "false", "off", "no", ""}


class Invalid(ValueError):
    """A value does not fit its attribute; the message says why."""


def as_string(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise Invalid("This value should be a string.")


def as_int(value):
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


def as_bool(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise Invalid("This value should be a boolean.")


def as_datetime(value):
    try:
        return clock.iso(clock.parse(value))
    except (ValueError, OverflowError, TypeError):
        raise Invalid("This value is not a valid date and time.") from None


def as_list(value):
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [
            value[k]
            for k in sorted(value, key=lambda k: (not str(k).isdigit(), int(k) if str(k).isdigit() else 0, str(k)))
        ]
    raise Invalid("This value should be an array.")


def as_object(value):
    if isinstance(value, dict):
        return value
    if value == []:
        return {}
    raise Invalid("This value should be an object.")


def as_id(value):
    if isinstance(value, dict) and "id" in value:
        value = value["id"]
    number = as_int(value)
    if number <= 0:
        raise Invalid("This value should be a positive id.")
    return number


def id_or_none(value):
    """`as_id`, or None for what is not an id."""
    try:
        return as_id(value)
    except Invalid:
        return None


def ids_in(value, keep=()):
    """The ids a property holds (a list, one id or an id-keyed object), invalid entries left out;
    the words in `keep` (such as `this`) are kept as they are."""
    try:
        items = as_list(value) if value not in (None, "") else []
    except Invalid:
        items = [value]
    return {item if item in keep else id_or_none(item) for item in items} - {None}


def one_of(*choices):
    """A coercer accepting only the given strings."""

    def coerce(value):
        text = as_string(value)
        if text not in choices:
            raise Invalid(f"'{text}' is not one of: " + ", ".join(choices) + ".")
        return text

    coerce.choices = choices  # the API document lists them
    return coerce


def id_list(value):
    return [as_id(item) for item in as_list(value)]


@dataclass(frozen=True)
class Attr:
    """One attribute of a resource document."""

    name: str
    coerce: Callable[[Any], Any] = as_string
    default: Any = None
    required: bool = False
    writable: bool = True
    nullable: bool = True
    ref: str | None = None  # kind of the referenced entities (single id or id list)
    hidden: bool = False  # stored, never shown to clients

    def fresh_default(self):
        return (
            list(self.default)
            if isinstance(self.default, list)
            else (dict(self.default) if isinstance(self.default, dict) else self.default)
        )

    def clean(self, value):
        """The normalised value, or Invalid. An empty string means 'no value' except for strings."""
        if value == "" and self.coerce not in (as_string, as_bool):
            value = None
        if value is None:
            if self.nullable:
                return None
            raise Invalid("This value should not be null.")
        return self.coerce(value)


@dataclass(frozen=True)
class Nested:
    """A collection of child items written through the parent payload (form fields, events...)."""

    name: str
    id_kind: str
    attrs: tuple = dc_field(default_factory=tuple)


def text(name, **kw):
    return Attr(name, as_string, **kw)


def integer(name, **kw):
    kw.setdefault("default", 0)
    return Attr(name, as_int, **kw)


def boolean(name, **kw):
    kw.setdefault("default", False)
    return Attr(name, as_bool, **kw)


def datetime_(name, **kw):
    return Attr(name, as_datetime, **kw)


def array(name, **kw):
    kw.setdefault("default", [])
    return Attr(name, as_list, **kw)


def obj(name, **kw):
    kw.setdefault("default", {})
    return Attr(name, as_object, **kw)


def choice(name, *choices, **kw):
    return Attr(name, one_of(*choices), **kw)
