"""Segment filter engine: validate Mautic segment filters and evaluate them against one contact.

:func:`validate` checks a segment's ``filters`` against the known fields and returns errors keyed like the API's
(``filters[2][operator]``); :func:`compile_filters` turns valid filters into a :class:`Matcher` whose
:meth:`Matcher.matches` tells whether a contact, seen as ``{"lead": {alias: value}, "companies": [{...}]}``,
belongs to the segment at a given instant.

Semantics follow Mautic's segment query builder on MySQL (operators in :mod:`.filter_operators`, values in
:mod:`.filter_values`, dates in :mod:`.filter_dates`):

* AND binds tighter than OR (``a and b or c`` is ``(a and b) or c``); no filters match nobody.
* A positive operator never matches a missing value (None, "" or an empty list). Each negative operator (``!=``,
  ``!like``, ``!regexp``, ``!in``, ``!between``, ``empty``) is the negation of its positive counterpart, so it
  matches missing values too (Mautic's ``OR field IS NULL``).
* Company filters, and the UTM fields (lists of values), hold when some company (value) satisfies the positive
  operator; their negative operators hold when none does.
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.segments.filter_dates import date_target
from chalicelib.domain.segments.filter_operators import (
    EMPTINESS,
    LISTS,
    NEGATIONS,
    OPERATORS,
    PATTERNS,
    RANGES,
    effective_type,
    kind_of,
    positive_test,
)
from chalicelib.domain.segments.filter_values import as_integer, as_utc, bounds, listed
from chalicelib.records import record

# A contact as the engine sees it: {"lead": {alias or special field: value}, "companies": [{alias: value}]}
Subject = Mapping[str, Any]

OBJECTS = ("lead", "company", "groups")  # groups: Mautic 5's point-group scores, `group_points_<id>` of the lead
GLUES = ("and", "or")
FIELD_TYPES = (
    "boolean",
    "date",
    "datetime",
    "email",
    "country",
    "locale",
    "lookup",
    "number",
    "tel",
    "region",
    "select",
    "multiselect",
    "text",
    "textarea",
    "time",
    "timezone",
    "url",
    "html",
)
STRUCTURED_TYPES = ("tags", "leadlist")
TYPES = FIELD_TYPES + STRUCTURED_TYPES + ("lookup_id", "stage")  # lookup_id: owner_id; stage: a stage id

UTM_FIELDS = frozenset(f"utm_{name}" for name in ("campaign", "content", "medium", "source", "term"))
SPECIAL_FIELDS = {
    "id": "number",
    "points": "number",
    "owner_id": "number",
    "stage": "stage",
    "date_added": "datetime",
    "date_modified": "datetime",
    "date_identified": "datetime",
    "last_active": "datetime",
    "tags": "tags",
    "leadlist": "leadlist",
    **{f"dnc_{name}": "boolean" for name in ("unsubscribed", "bounced", "manual", "unsubscribed_sms", "bounced_sms")},
    **{name: "text" for name in UTM_FIELDS},
}


# --- public API ----------------------------------------------------------------------------------


def validate(filters: Iterable[Any] | None, fields: Mapping[str, Mapping[str, str]] | None) -> dict[str, list[str]]:
    """Errors of a segment's filters keyed like ``filters[2][operator]``; empty when every filter is valid.

    ``fields`` maps each object to its custom fields' ``{alias: type}``; the special lead fields are added here.
    """
    fields = fields or {}
    known = {
        "lead": {**(fields.get("lead") or {}), **(fields.get("groups") or {}), **SPECIAL_FIELDS},
        "company": dict(fields.get("company") or {}),
        "groups": dict(fields.get("groups") or {}),
    }
    errors: dict[str, list[str]] = {}
    for index, item in enumerate(filters or []):
        for key, message in _problems(item, known):
            errors.setdefault(f"filters[{index}]{key}", []).append(message)
    return errors


def compile_filters(filters: Sequence[Doc]) -> Matcher:
    """A :class:`Matcher` for filters that passed :func:`validate` (regexes, numbers and dates parsed once).

    Each filter compares by its ``type``; without one, special lead fields use their own and others text.
    """
    groups: list[list[_Compiled]] = []
    for item in filters:
        compiled = _compile(item)
        if compiled.glue == "or" or not groups:
            groups.append([compiled])
        else:
            groups[-1].append(compiled)
    return Matcher(
        groups,
        relative=any(map(_is_relative, filters)),
        segments={segment for item in filters for segment in segments_of(item)},
        objects={item.get("object") or "lead" for item in filters},
    )


class Matcher:
    """A compiled segment: an OR of AND groups of filters.

    ``relative``: some filter compares with a date relative to now (membership changes as time passes);
    ``segments``: ids of the segments its ``leadlist`` filters refer to; ``objects``: the objects it reads.
    """

    __slots__ = ("_groups", "relative", "segments", "objects")

    def __init__(self, groups: list[list[_Compiled]], relative: bool, segments: set[int], objects: set[str]) -> None:
        self._groups = groups
        self.relative = relative
        self.segments = segments
        self.objects = objects

    def matches(self, subject: Subject, now: datetime) -> bool:
        """Whether the contact ``subject`` is in the segment at ``now`` (an aware datetime; naive is UTC)."""
        at = as_utc(now)
        assert at is not None  # the clock's instant is in range
        return any(all(item.holds(subject, at) for item in group) for group in self._groups)


# --- validation ----------------------------------------------------------------------------------


def _problems(item: Any, known: Mapping[str, Mapping[str, str]]) -> Iterator[tuple[str, str]]:
    """(key suffix, message) pairs for one filter."""
    if not isinstance(item, dict):
        yield "", "This value should be an object."
        return
    glue, obj = item.get("glue") or "and", item.get("object") or "lead"
    field, operator = item.get("field"), item.get("operator")
    if glue not in GLUES:
        yield "[glue]", f"Unknown glue '{glue}': use 'and' or 'or'."
    if obj not in OBJECTS:
        yield "[object]", f"Unknown object '{obj}': use 'lead', 'company' or 'groups'."
        return
    if not isinstance(field, str) or field not in known[obj]:
        yield "[field]", f"Unknown field '{field}' for object '{obj}'."
        return
    field_type = known[obj][field]
    type_name = effective_type(item.get("type"), field_type)
    type_problem = _type_problem(item.get("type"), field, field_type)
    if type_problem:
        yield "[type]", type_problem
    elif operator not in OPERATORS:
        yield "[operator]", f"Unknown operator '{operator}'."
    elif operator not in kind_of(type_name).operators:
        yield "[operator]", f"Operator '{operator}' does not apply to type '{type_name}'."
    else:
        try:
            positive_test(kind_of(type_name), _positive(operator), _value(item))
        except ValueError as exc:
            yield "[properties][filter]", str(exc)


def _type_problem(given: str | None, field: str, field_type: str) -> str | None:
    """Why the filter's explicit ``type`` is wrong, or None."""
    if not given:
        return None
    if given not in TYPES:
        return f"Unknown type '{given}'."
    if given != field_type and (given in STRUCTURED_TYPES or field_type in STRUCTURED_TYPES):
        return f"Type '{given}' does not apply to field '{field}'."
    return None


# --- compilation ---------------------------------------------------------------------------------


@record
class _Compiled:
    """One filter: ``test`` (the positive operator) on the values ``values`` picks, negated when ``negate``."""

    glue: str
    values: Callable[[Subject], Sequence[Any]]
    test: Callable[[Any, datetime], bool]
    negate: bool

    def holds(self, subject: Subject, now: datetime) -> bool:
        return any(self.test(value, now) for value in self.values(subject)) != self.negate


def _compile(item: Doc) -> _Compiled:
    operator = item["operator"]
    test = positive_test(kind_of(_type_of(item)), _positive(operator), _value(item))
    return _Compiled(item.get("glue") or "and", _values_picker(item), test, operator in NEGATIONS)


def _positive(operator: str) -> str:
    """The positive counterpart of a negative operator; a positive one itself."""
    return NEGATIONS.get(operator, operator)


def _type_of(item: Doc) -> str:
    special = SPECIAL_FIELDS.get(item["field"]) if (item.get("object") or "lead") == "lead" else None
    return item.get("type") or special or "text"


def _value(item: Doc) -> Any:
    properties = item.get("properties")
    return properties.get("filter") if isinstance(properties, dict) else None


def _values_picker(item: Doc) -> Callable[[Subject], Sequence[Any]]:
    """The function giving the values a filter tests: one per company, per UTM record, or the lead's value."""
    field = item["field"]
    if (item.get("object") or "lead") == "company":
        return partial(_company_values, field)
    return partial(_utm_values if field in UTM_FIELDS else _lead_value, field)


def _lead_value(field: str, subject: Subject) -> tuple[Any]:
    lead = subject.get("lead")
    return (lead.get(field) if isinstance(lead, dict) else None,)


def _utm_values(field: str, subject: Subject) -> Sequence[Any]:
    (value,) = _lead_value(field, subject)
    return value if isinstance(value, (list, tuple)) else (value,)


def _company_values(field: str, subject: Subject) -> Sequence[Any]:
    companies = subject.get("companies")
    if not isinstance(companies, list):
        return ()
    return [company.get(field) if isinstance(company, dict) else None for company in companies]


def _is_relative(item: Doc) -> bool:
    """Whether the filter compares with a date that depends on now."""
    operator = item["operator"]
    if _type_of(item) not in ("date", "datetime") or operator in EMPTINESS + PATTERNS:
        return False
    return any(date_target(raw).relative for raw in _value_items(operator, _value(item)))


def segments_of(item: Doc) -> set[int]:
    """The ids of the segments a `leadlist` filter names (none for other filters)."""
    if _type_of(item) != "leadlist" or item["operator"] not in LISTS:
        return set()
    return {number for number in map(as_integer, listed(_value(item))) if number is not None}


def _value_items(operator: str, value: Any) -> list[Any]:
    """The individual filter values an operator compares with."""
    if operator in LISTS:
        return listed(value)
    if operator in RANGES:
        return list(bounds(value))
    return [value]
