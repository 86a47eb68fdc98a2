"""The sources a report reads (Mautic's report data sources, by the names Mautic gives them), their
columns (`<prefix>.<column>`, each shown under an alias in the report's rows) and where their rows
come from: contacts and emails from their partitions, the event sources from the statistics tables
of `/stats` (the all-contacts timeline feed). Every reader yields database rows in time order, and
only rows of documents the caller may view (`guards`; docs/permissions.md)."""

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from chalicelib.domain.kernel import access, registry
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.messaging import stats_tables

CONTACT_FIELDS = (
    "title",
    "firstname",
    "lastname",
    "email",
    "company",
    "position",
    "phone",
    "mobile",
    "address1",
    "address2",
    "city",
    "state",
    "zipcode",
    "country",
    "website",
)

Column = tuple[str, str, str]  # (alias, label, type) of a source's column
Reader = Callable[[bool, Context, Exception], Iterator[Doc]]  # (descending, ctx, refusal) -> rows in time order


@dataclass(frozen=True)
class Source:
    """A report source: its label, its columns {`prefix.column`: (alias, label, type)}, the column
    dated by `dateFrom`/`dateTo`, `read(descending, ctx, refusal)`: its rows in that column's order
    (`refusal` raised when it would read too much), and `guards` {alias: kind}: the documents a
    row names, each of which the caller must be able to view to see the row (as the list API of
    that kind requires)."""

    label: str
    columns: dict[str, Column]
    date_column: str
    read: Reader
    guards: dict[str, str] = field(default_factory=dict)

    def alias(self, column: str) -> str:
        """The name a column is shown under in the report's rows."""
        return self.columns[column][0]


def _contact_row(doc: Doc) -> Doc:
    values = doc.get("values") or {}
    row = {
        "id": doc["id"],
        "date_added": doc.get("dateAdded"),
        "date_modified": doc.get("dateModified"),
        "date_identified": doc.get("dateIdentified"),
        "last_active": doc.get("lastActive"),
        "owner_id": doc.get("owner"),
        "points": values.get("points") or 0,
    }
    row.update({name: values.get(name) for name in CONTACT_FIELDS})
    return {key: stats_tables.db_value(value) for key, value in row.items()}


def _contacts(descending: bool, ctx: Context, refusal: Exception) -> Iterator[Doc]:
    """The contacts the caller may view in id order: ids are handed out as contacts are created, so
    also by `date_added`."""
    return (_contact_row(doc) for doc in access.visible_documents(ctx, registry.resource("contact"), descending))


def _email_row(doc: Doc) -> Doc:
    row = {
        "id": doc["id"],
        "name": doc.get("name"),
        "subject": doc.get("subject"),
        "lang": doc.get("language"),
        "template": doc.get("template"),
        "sent_count": doc.get("sentCount") or 0,
        "read_count": doc.get("readCount") or 0,
        "is_published": doc.get("isPublished"),
        "date_added": doc.get("dateAdded"),
        "date_modified": doc.get("dateModified"),
        "created_by_user": doc.get("createdByUser"),
    }
    return {key: stats_tables.db_value(value) for key, value in row.items()}


def _emails(descending: bool, ctx: Context, refusal: Exception) -> Iterator[Doc]:
    return (_email_row(doc) for doc in access.visible_documents(ctx, registry.resource("email"), descending))


def _typed(name: str) -> str:
    if (
        name == "id"
        or name.endswith("_id")
        or name in ("points", "delta", "sent_count", "read_count", "open_count", "retry_count", "rotation")
    ):
        return "int"
    if name.startswith("date_") or name in ("last_active", "last_opened"):
        return "datetime"
    if name.startswith("is_") or name in ("viewed_in_browser", "system_triggered", "non_action_path_taken"):
        return "bool"
    return "string"


def _columns(prefix: str, names: Iterable[str], label: str) -> dict[str, Column]:
    return {f"{prefix}.{name}": (name, f"{label}: {name.replace('_', ' ')}", _typed(name)) for name in names}


def _table(table: str, prefix: str, label: str, guards: dict[str, str]) -> Source:
    """A source over one table of the stats API, its columns under Mautic's table prefix."""
    _, date_column, names, _ = stats_tables.TABLES[table]
    return Source(
        label,
        _columns(prefix, names, label),
        f"{prefix}.{date_column}",
        lambda descending, ctx, refusal: stats_tables.table_rows(table, descending, refusal=refusal),
        dict(guards, lead_id="contact"),
    )


CONTACT_COLUMNS = (
    "id",
    "date_added",
    "date_modified",
    "date_identified",
    "last_active",
    "owner_id",
    "points",
) + CONTACT_FIELDS
EMAIL_COLUMNS = (
    "id",
    "name",
    "subject",
    "lang",
    "template",
    "sent_count",
    "read_count",
    "is_published",
    "date_added",
    "date_modified",
    "created_by_user",
)

SOURCES = {
    "leads": Source("Contacts", _columns("l", CONTACT_COLUMNS, "Contact"), "l.date_added", _contacts),
    "emails": Source("Emails", _columns("e", EMAIL_COLUMNS, "Email"), "e.date_added", _emails),
    "email.stats": _table("email_stats", "es", "Email sent", {"email_id": "email"}),
    "form.submissions": _table("form_submissions", "fs", "Form submission", {"form_id": "form"}),
    "page.hits": _table("page_hits", "ph", "Page hit", {"page_id": "page"}),
    "lead.pointlog": _table("lead_points_change_log", "lp", "Point change", {}),
    "campaign_lead.event_log": _table(
        "campaign_lead_event_log", "log", "Campaign event", {"campaign_id": "automation"}
    ),
}
