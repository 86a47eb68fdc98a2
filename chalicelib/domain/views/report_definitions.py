"""What a stored report definition may hold (Mautic's Report entity): a known source, and columns,
filters, order, grouping and aggregators over that source's columns. Checked on every write, each
problem named by its field, so a stored definition always runs."""

from collections.abc import Callable, Mapping

from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Hooks, Write
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.views.report_sources import SOURCES, Source

CONDITIONS = (
    "eq",
    "neq",
    "gt",
    "gte",
    "lt",
    "lte",
    "like",
    "notLike",
    "in",
    "notIn",
    "empty",
    "notEmpty",
    "startsWith",
    "endsWith",
    "contains",
)
FUNCTIONS = ("COUNT", "SUM", "AVG", "MIN", "MAX")
DIRECTIONS = ("ASC", "DESC")
Errors = dict[str, list[str]]  # messages by field, as a 400 names them


def _entries(doc: Doc, key: str) -> list[JSON]:
    return list(doc.get(key) or [])


def _known(source: Source) -> Callable[[JSON], bool]:
    """A test: is a value one of the source's column names (anything else, lists included, is not)."""
    return lambda value: isinstance(value, str) and value in source.columns


def _check_columns(source: Source, doc: Doc, errors: Errors) -> None:
    known = _known(source)
    for key in ("columns", "groupBy"):
        for i, column in enumerate(_entries(doc, key)):
            if not known(column):
                errors[f"{key}[{i}]"] = [f"{column} is not a column of the source {doc['source']}."]


def _check_entries(
    source: Source, doc: Doc, key: str, checks: Mapping[str, tuple[Callable[[JSON], bool], str]], errors: Errors
) -> None:
    """Each entry of `key` is an object whose fields pass `checks` {field: (test, message)}."""
    for i, entry in enumerate(_entries(doc, key)):
        if not isinstance(entry, dict):
            errors[f"{key}[{i}]"] = ["This value should be an object."]
            continue
        for field, (test, message) in checks.items():
            if not test(entry.get(field)):
                errors[f"{key}[{i}][{field}]"] = [message]


def _normalise(doc: Doc) -> None:
    for entry in _entries(doc, "tableOrder"):
        if isinstance(entry, dict):
            entry["direction"] = str(entry.get("direction") or "ASC").upper()
    for entry in _entries(doc, "aggregators"):
        if isinstance(entry, dict):
            entry["function"] = str(entry.get("function") or "").upper()
    for entry in _entries(doc, "filters"):
        if isinstance(entry, dict):
            entry["glue"] = str(entry.get("glue") or "and").lower()


def problems(doc: Doc, ctx: Context) -> Errors:
    """{field: [messages]} of what in a definition is not of its source (none for an unknown source:
    its attribute names that), whose columns include the contact's custom fields of now. Also checked
    when a report runs: a column a source no longer offers (`es.tracking_hash`, a deleted field) is
    refused there too."""
    unbound = SOURCES.get(str(doc.get("source")))
    if unbound is None:
        return {}
    source = unbound.bind(ctx)
    errors: Errors = {}
    known = _known(source)
    _check_columns(source, doc, errors)
    _check_entries(
        source,
        doc,
        "filters",
        {
            "column": (known, "Unknown column of the source."),
            "condition": (CONDITIONS.__contains__, f"Unknown condition; use one of {', '.join(CONDITIONS)}."),
            "glue": (("and", "or").__contains__, "The glue is and or or."),
        },
        errors,
    )
    _check_entries(
        source,
        doc,
        "tableOrder",
        {
            "column": (known, "Unknown column of the source."),
            "direction": (DIRECTIONS.__contains__, "The direction is ASC or DESC."),
        },
        errors,
    )
    _check_entries(
        source,
        doc,
        "aggregators",
        {
            "column": (known, "Unknown column of the source."),
            "function": (FUNCTIONS.__contains__, f"Unknown function; use one of {', '.join(FUNCTIONS)}."),
        },
        errors,
    )
    return errors


class ReportHooks(Hooks):
    """Reports: the definition is checked against its source's columns."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """Normalise the definition's entries, then name what in it is not of its source."""
        _normalise(doc)
        write.errors.update(problems(doc, write.ctx))
