"""Mautic's advanced list filter `where[n][col|expr|val]` and ordering `order[n][col|dir]` (compat 7.1, 7.3).

:func:`parse` turns the raw parameter (already PHP-bracket parsed: `{"0": {"col": .., "expr": .., "val": ..}}`
or a list) into a clause tree; :func:`resolve` maps its column names onto a resource's columns
(:func:`columns_for`); :func:`matches` evaluates it against one document through ``value_of(column)``.

Semantics, chosen to behave like Mautic's SQL on MySQL:

* Two values compare as numbers when both are numbers or decimal strings (`10` > `9`), as instants when both
  are ISO 8601 dates/date-times (a naive value is UTC, a date alone is midnight: `2024-02-01` < `2024-02-01
  10:00:00`), else as strings, case-insensitively (MySQL's `_ci` collations), for `eq` and `lt` alike.
  Booleans are 1/0 (`true`/`false` are accepted on the other side).
* A NULL (missing or None) value satisfies no value expression, `neq`, `notLike`, `notIn` and `notBetween`
  included (SQL three-valued logic); `isNull`/`isEmpty` find it. A list or dict value compares like NULL but
  `isEmpty` holds when it is empty.
* `like`/`notLike`: `%` is the only wildcard (`_` is a literal), case-insensitive, whole value.
* `in`/`notIn`: a CSV string (`"` quoting, items trimmed) or an array; one value is `eq`/`neq`; an empty
  list matches nothing (`in`) or every non-NULL value (`notIn`).
* `between`/`notBetween`: a 2-element array, both ends inclusive.
* `andX`/`orX` with an empty clause list add no condition (as an empty Doctrine composite).
* Entries carrying an `internal` key are dropped at every level; `column`/`value` alias `col`/`val`.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any, TypeAlias

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import capability_hooks
from chalicelib.domain.kernel.errors import ValidationError
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.search import like
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.records import by_value

Scalar: TypeAlias = str | int | float | bool | None  # a value a clause compares with
ColumnOf: TypeAlias = Callable[[str], "str | None"]  # a name in a request -> the resource's column, or None
ValueOf: TypeAlias = Callable[[Doc, str], JSON]  # a document's value of a column

COMPARISONS = ("eq", "neq", "lt", "lte", "gt", "gte", "like", "notLike")
LISTS = ("in", "notIn")
RANGES = ("between", "notBetween")
COLUMN_ONLY = ("isNull", "isNotNull", "isEmpty", "isNotEmpty")
COMPOSITES = ("andX", "orX")
EXPRESSIONS = COMPARISONS + LISTS + RANGES + COLUMN_ONLY + COMPOSITES
MAX_DEPTH = 32

# Contact columns outside the field values: snake_case name -> document key.
CONTACT_COLUMNS = {
    "id": "id",
    "date_added": "dateAdded",
    "date_modified": "dateModified",
    "last_active": "lastActive",
    "date_identified": "dateIdentified",
    "owner_id": "owner",
    "owner": "owner",
    "is_published": "isPublished",
    "created_by": "createdBy",
    "modified_by": "modifiedBy",
}
_AUDIT_COLUMNS = {"id", "dateAdded", "dateModified", "createdBy", "createdByUser", "modifiedBy", "modifiedByUser"}
CONTACT_TABLE = "l"  # Mautic's alias of the contact table: `l.email`


@by_value
class Compare:
    """``column <op> value`` for `eq`, `neq`, `lt`, `lte`, `gt`, `gte`, `like`, `notLike`."""

    column: str
    expr: str
    value: Scalar


@by_value
class In:
    """``column`` among ``values`` (`in`), or not (`notIn`, ``negate``)."""

    column: str
    values: tuple[Scalar, ...]
    negate: bool


@by_value
class Between:
    """``column`` between ``low`` and ``high``, both included (`between`), or not (`notBetween`, ``negate``)."""

    column: str
    low: Scalar
    high: Scalar
    negate: bool


@by_value
class Check:
    """Column only: `isNull`, `isNotNull`, `isEmpty`, `isNotEmpty`."""

    column: str
    expr: str


@by_value
class Group:
    """`andX` (``any_=False``; also the top level) or `orX` of ``clauses``."""

    clauses: tuple[Clause, ...]
    any_: bool = False


Clause = Compare | In | Between | Check | Group


def _error(field: str, where: str | None, message: str) -> ValidationError:
    """A 400 on `field` naming the entry at `where`."""
    return ValidationError({field: [f"{where}: {message}" if where else message]})


def _entries(raw: JSON, path: str, field: str = "where") -> list[tuple[str, JSON]]:
    """[(path of entry, entry)] of an array parameter, as a list or a PHP `{"0": ..}` object."""
    pairs: list[tuple[object, JSON]]
    if isinstance(raw, list):
        pairs = list(enumerate(raw))
    elif isinstance(raw, dict):
        keys = sorted(raw, key=lambda k: (not a.digits(str(k)), int(k) if a.digits(str(k)) else 0, str(k)))
        pairs = [(k, raw[k]) for k in keys]
    else:
        raise _error(field, path, "this value should be an array of clauses.")
    return [(f"{path}[{key}]", entry) for key, entry in pairs]


def parse(raw: JSON) -> Group | None:
    """The clause tree of a `where` parameter, None when it is absent or empty.

    Raises ValidationError({"where": [...]}) naming the bad entry, e.g. `where[1]: expression 'foo' is not ...`.
    """
    if raw is None or raw == "" or raw == [] or raw == {}:
        return None
    group = _group(raw, "where", 0)
    return group if group.clauses else None


def _group(raw: JSON, path: str, depth: int, any_: bool = False) -> Group:
    """The clauses of an array parameter at `path`, `depth` composites deep."""
    if depth > MAX_DEPTH:
        raise _error("where", path, f"clauses are nested deeper than {MAX_DEPTH} levels.")
    clauses = []
    for where, entry in _entries(raw, path):
        if not isinstance(entry, dict):
            raise _error("where", where, "a clause should be an object with `col`, `expr` and `val`.")
        if "internal" in entry:
            continue
        clauses.append(_clause(entry, where, depth))
    return Group(tuple(clauses), any_)


def _clause(entry: Doc, where: str, depth: int) -> Clause:
    """One clause of the `where` parameter (`where` names its entry in messages)."""
    expr = _expression(entry, where)
    has_value = "val" in entry or "value" in entry
    value = entry["val"] if "val" in entry else entry.get("value")
    if expr in COMPOSITES:
        if not has_value or not isinstance(value, (list, dict)):
            raise _error("where", where, f"'{expr}' needs `val`: an array of clauses.")
        return _group(value, f"{where}[val]", depth + 1, any_=expr == "orX")
    column = _column(entry, where)
    if expr in COLUMN_ONLY:
        return Check(column, expr)
    if not has_value:
        raise _error("where", where, f"'{expr}' needs a `val`.")
    return _valued(column, expr, value, where)


def _expression(entry: Doc, where: str) -> str:
    """The `expr` of a clause, one of EXPRESSIONS."""
    expr = entry.get("expr")
    if expr is None:
        raise _error("where", where, "the clause has no `expr`.")
    if not isinstance(expr, str) or expr not in EXPRESSIONS:
        raise _error("where", where, f"expression {expr!r} is not one of {', '.join(EXPRESSIONS)}.")
    return expr


def _valued(column: str, expr: str, value: JSON, where: str) -> Clause:
    """A clause comparing `column` with its `val`: a list (`in`), a range (`between`) or one value."""
    if expr in LISTS:
        values = _list_values(value, where)
        if len(values) == 1:
            return Compare(column, "eq" if expr == "in" else "neq", values[0])
        return In(column, values, expr == "notIn")
    if expr in RANGES:
        ends = _scalars(value, where) if isinstance(value, (list, dict)) else ()
        if len(ends) != 2:
            raise _error("where", where, f"'{expr}' needs `val` as an array of 2 values.")
        return Between(column, ends[0], ends[1], expr == "notBetween")
    if not _scalar(value):
        raise _error("where", where, f"'{expr}' needs a single value in `val`.")
    return Compare(column, expr, value)


def _column(entry: Doc, where: str) -> str:
    """The sanitized column name of a clause."""
    raw = entry["col"] if "col" in entry else entry.get("column")
    if raw is None:
        raise _error("where", where, "the clause has no `col`.")
    if not _scalar(raw):
        raise _error("where", where, "`col` should be a column name.")
    column = sanitize(str(raw))
    if not column:
        raise _error("where", where, f"{str(raw)!r} is not a column name.")
    return column


def sanitize(name: str) -> str:
    """Keep letters, digits, `_` and `.` of a column name (as Mautic does)."""
    return re.sub(r"[^A-Za-z0-9_.]", "", name)


def _scalar(value: JSON) -> bool:
    """True for a single value (no array or object)."""
    return value is None or isinstance(value, (str, int, float, bool))


def _scalars(value: JSON, where: str) -> tuple[Scalar, ...]:
    """The single values of an array `val`."""
    items = [item for _, item in _entries(value, where)]
    if not all(_scalar(item) for item in items):
        raise _error("where", where, "`val` items should be single values.")
    return tuple(items)


def _list_values(value: JSON, where: str) -> tuple[Scalar, ...]:
    """The values of an `in`/`notIn` `val`: an array, or a CSV string."""
    if isinstance(value, (list, dict)):
        return _scalars(value, where)
    if not _scalar(value):
        raise _error("where", where, "`val` should be a comma-separated list or an array.")
    if not isinstance(value, str):
        return (value,)
    try:
        rows = list(csv.reader([value], delimiter=",", quotechar='"', skipinitialspace=True, strict=True))
    except csv.Error as error:
        raise _error("where", where, f"`val` is not a valid comma-separated list ({error}).") from None
    return tuple(item.strip() for item in (rows[0] if rows else [""]))


# --- columns -------------------------------------------------------------------------------------


def snake(name: str) -> str:
    """`dateIdentified` -> `date_identified` (the spec's contact orderBy rule)."""
    return re.sub(r"([A-Z])", r"_\1", name).lower()


def camel(name: str) -> str:
    """`date_identified` -> `dateIdentified`."""
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def contact_column(name: str, aliases: Collection[str]) -> str | None:
    """The column a contact `where`/`order` name means, or None: a key of CONTACT_COLUMNS' values for the
    columns outside the fields, else a field alias. Accepts an `l.` prefix, camelCase and any case."""
    if "." in name:
        table, _, name = name.partition(".")
        if table.lower() != CONTACT_TABLE or "." in name:
            return None
    for candidate in (name, snake(name), name.lower()):
        if candidate in CONTACT_COLUMNS:
            return CONTACT_COLUMNS[candidate]
    for candidate in (name, name.lower(), snake(name)):
        if candidate in aliases:
            return candidate
    return None


def contact_value(doc: Doc, column: str) -> JSON:
    """A contact's value for a column from :func:`contact_column`: `values[alias]` or a top-level key."""
    if column in CONTACT_COLUMNS.values():
        return doc.get(column)
    return (doc.get("values") or {}).get(column)


def document_column(name: str, known: Collection[str]) -> str | None:
    """A column among ``known`` names for another resource (a `.` prefix dropped, camel/snake, any case)."""
    name = name.rsplit(".", 1)[-1]
    lowered = {k.lower(): k for k in known}
    for candidate in (name, camel(name), snake(name)):
        if candidate in known:
            return candidate
        if candidate.lower() in lowered:
            return lowered[candidate.lower()]
    return None


def columns_for(resource: Resource, known: Iterable[str]) -> tuple[ColumnOf, ValueOf]:
    """(name -> column or None, value(doc, column)) for a resource; ``known``: its orderBy columns.

    Contacts: :func:`contact_column` (CONTACT_COLUMNS and the field aliases among ``known``, i.e. those that
    are not attributes) and :func:`contact_value`. Other resources: their orderBy columns, valued by
    the `Listed` hooks' ``sort_value`` (the document's key; `values` first for companies)."""
    if resource.kind == "contact":
        aliases = set(known) - {attr.name for attr in resource.all_attrs} - _AUDIT_COLUMNS
        return (lambda name: contact_column(name, aliases)), contact_value
    known = set(known)
    return (lambda name: document_column(name, known)), capability_hooks.listed(resource).sort_value


def resolve(clause: Group | None, column_of: ColumnOf) -> Group | None:
    """The clause with each column name replaced by ``column_of(name)``; unknown -> 400 naming `where`."""
    return None if clause is None else _resolved_group(clause, column_of)


def _resolved_group(group: Group, column_of: ColumnOf) -> Group:
    """`resolve` of a group: each of its clauses resolved."""
    return Group(tuple(_resolved(c, column_of) for c in group.clauses), group.any_)


def _resolved(clause: Clause, column_of: ColumnOf) -> Clause:
    """`resolve` of one clause."""
    if isinstance(clause, Group):
        return _resolved_group(clause, column_of)
    column = column_of(clause.column)
    if column is None:
        raise _error("where", None, f"'{clause.column}' is not a column of this resource.")
    return replace(clause, column=column)


def parse_order(raw: JSON, column_of: ColumnOf) -> list[tuple[str, bool]]:
    """[(column, descending)] from `order[n][col]`, `order[n][dir]` (dir `asc` by default); [] when absent."""
    if raw is None or raw == "" or raw == [] or raw == {}:
        return []
    keys: list[tuple[str, bool]] = []
    for where, entry in _entries(raw, "order", field="order"):
        if not isinstance(entry, dict):
            raise _error("order", where, "an entry should be an object with `col` and `dir`.")
        name = entry["col"] if "col" in entry else entry.get("column")
        if not isinstance(name, str) or not sanitize(name):
            raise _error("order", where, "the entry has no `col`.")
        column = column_of(sanitize(name))
        if column is None:
            raise _error("order", where, f"'{sanitize(name)}' is not a column of this resource.")
        direction = entry.get("dir") or "ASC"
        if not isinstance(direction, str) or direction.upper() not in ("ASC", "DESC"):
            raise _error("order", where, "`dir` should be asc or desc.")
        keys.append((column, direction.upper() == "DESC"))
    return keys


# --- evaluation ----------------------------------------------------------------------------------


def matches(clause: Clause | None, value_of: Callable[[str], JSON]) -> bool:
    """Whether the document behind ``value_of(column)`` satisfies ``clause`` (None matches everything)."""
    if clause is None:
        return True
    if isinstance(clause, Group):
        if not clause.clauses:
            return True
        results = (matches(c, value_of) for c in clause.clauses)
        return any(results) if clause.any_ else all(results)
    return _holds(clause, value_of(clause.column))


def _holds(clause: Compare | In | Between | Check, value: JSON) -> bool:
    """Whether a document's `value` of the column satisfies a clause that is not a group."""
    if isinstance(clause, Check):
        empty = value is None or value == "" or (isinstance(value, (list, dict)) and not value)
        return {"isNull": value is None, "isNotNull": value is not None, "isEmpty": empty, "isNotEmpty": not empty}[
            clause.expr
        ]
    if value is None or isinstance(value, (list, dict)):
        return False
    if isinstance(clause, In):
        found = any(_compare(value, item) == 0 for item in clause.values if item is not None)
        return found != clause.negate
    if isinstance(clause, Between):
        low, high = _compare(value, clause.low), _compare(value, clause.high)
        if low is None or high is None:
            return False
        return (low >= 0 and high <= 0) != clause.negate
    return _compared(clause, value)


def _compared(clause: Compare, value: JSON) -> bool:
    """Whether a value that is not NULL satisfies a comparison (`like` and `notLike` included)."""
    if clause.expr in ("like", "notLike"):
        if clause.value is None:
            return False
        return like(value, str(clause.value), contains=False) == (clause.expr == "like")
    order = _compare(value, clause.value)
    if order is None:
        return False
    return {
        "eq": order == 0,
        "neq": order != 0,
        "lt": order < 0,
        "lte": order <= 0,
        "gt": order > 0,
        "gte": order >= 0,
    }[clause.expr]


_NUMBER = r"[+-]?(\d+(\.\d*)?|\.\d+)"
_DATE = r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?"
_BOOLS = {"true": 1, "false": 0}


def _number(value: JSON) -> int | float | None:
    """The value as a number (booleans 1/0, decimal strings), or None."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and re.fullmatch(_NUMBER, value.strip()):
        return float(value)
    return None


def _instant(value: JSON) -> datetime | None:
    """The value as a UTC instant (ISO 8601 date or date-time; naive is UTC), or None."""
    if not isinstance(value, str) or not re.fullmatch(_DATE, value.strip()):
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def comparable(value: JSON) -> tuple[int, Any] | None:
    """(rank, key): numbers before instants before text; text case-folded. None for NULL."""
    return None if value is None else _comparable(value)


def _comparable(value: JSON) -> tuple[int, Any]:
    """`comparable` of a value that is not NULL: the key is a number (rank 0), a datetime (1) or a string (2)."""
    number = _number(value)
    if number is not None:
        return (0, number)
    moment = _instant(value)
    if moment is not None:
        return (1, moment)
    return (2, str(value).casefold())


def _compare(left: JSON, right: JSON) -> int | None:
    """-1/0/1 of a document value against a `val`, None when either is NULL."""
    if left is None or right is None:
        return None
    if isinstance(left, bool) and isinstance(right, str) and right.strip().lower() in _BOOLS:
        right = _BOOLS[right.strip().lower()]
    first, second = _comparable(left), _comparable(right)
    if first[0] != second[0]:  # different kinds: compare the texts, as SQL would compare strings
        first, second = (2, _text(left)), (2, _text(right))
    order: int = (first[1] > second[1]) - (first[1] < second[1])
    return order


def _text(value: JSON) -> str:
    """The value as text compared case-insensitively (booleans `1`/`0`)."""
    return (("1" if value else "0") if isinstance(value, bool) else str(value)).casefold()


def sort_key(value: JSON) -> tuple[int, int, Any]:
    """A key ordering values as :func:`comparable`, NULL and '' last (as the list's orderBy does)."""
    if value is None or value == "" or isinstance(value, (list, dict)):
        return (1, 0, 0)
    rank, key = _comparable(value)
    if rank == 1:
        key = key.timestamp()
    return (0, rank, key)
