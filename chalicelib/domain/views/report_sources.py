"""The sources a report reads (Mautic's report data sources, by the names Mautic gives them), their
columns (`<prefix>.<column>`, each shown under an alias in the report's rows) and where their rows
come from: contacts and emails from their partitions, the event sources from the statistics tables
of `/stats` (the all-contacts timeline feed; asset downloads from its catalogue's table). Every reader yields
database rows in time order, and only rows of documents the caller may view (`guards`;
docs/permissions.md). The event sources join the documents a row names (`Join`: the contact's
`l.*`, custom fields included, the email's `e.*`, the page's `p.*`, the form's `f.*`, the asset's
`a.*`), as Mautic's report builder joins their tables, under Mautic's aliases (docs/views.md)."""

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import field, replace

from chalicelib.domain.contacts import custom_fields
from chalicelib.domain.kernel import access, counters, references, registry
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import stats_tables
from chalicelib.domain.views import stats_catalogue, stats_event_tables
from chalicelib.records import record

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
Derive = Callable[[Doc], str | None]  # a column's value from the rest of its row
STANDARD = (
    "id",
    "name",
    "created_by_user",
    "date_added",
    "modified_by_user",
    "date_modified",
    "description",
    "publish_up",
    "publish_down",
    "is_published",
)  # Mautic's standard columns of a joined document, shown as `<prefix>_<column>`
STANDARD_KEYS = {
    "id": "id",
    "name": "name",
    "created_by_user": "createdByUser",
    "date_added": "dateAdded",
    "modified_by_user": "modifiedByUser",
    "date_modified": "dateModified",
    "description": "description",
    "publish_up": "publishUp",
    "publish_down": "publishDown",
    "is_published": "isPublished",
}
FIELD_TYPES = {"number": "float", "boolean": "bool", "date": "date", "datetime": "datetime"}  # else string


@record
class Join:
    """A document a row names, joined as Mautic's report builder joins its table: the `kind` whose id
    the row's `on` column holds; `columns(ctx)` {column name: (label, type)} and `values(doc, ctx)`
    {column name: database string}, each shown as `<prefix>.<column name>`."""

    prefix: str
    kind: str
    on: str
    columns: Callable[[Context], dict[str, tuple[str, str]]]
    values: Callable[[Doc, Context], Doc]

    def alias(self, name: str) -> str:
        """Mautic's alias of a joined column: `contactId` for `l.id`, `<prefix>_<column>` for the
        standard columns, else the column's name."""
        if self.prefix == "l" and name == "id":
            return "contactId"
        return f"{self.prefix}_{name}" if name in STANDARD else name


@record
class Source:
    """A report source: its label, its columns {`prefix.column`: (alias, label, type)}, the column
    dated by `dateFrom`/`dateTo`, `read(descending, ctx, refusal)`: its rows in that column's order
    (`refusal` raised when it would read too much), and `guards` {alias: kind}: the documents a
    row names, each of which the caller must be able to view to see the row (as the list API of
    that kind requires). `joins` add the columns of the documents a row names, `derived` {column:
    derive} columns computed from the row, and `fields` the contact's custom fields as columns;
    `bind(ctx)` is the source with all of them, as a request sees it."""

    label: str
    columns: dict[str, Column]
    date_column: str
    read: Reader
    guards: dict[str, str] = field(default_factory=dict)
    joins: tuple[Join, ...] = ()
    derived: dict[str, Derive] = field(default_factory=dict)
    fields: bool = False

    def alias(self, column: str) -> str:
        """The name a column is shown under in the report's rows."""
        return self.columns[column][0]

    def bind(self, ctx: Context) -> "Source":
        """The source with its custom field and joined columns, each alias unique (a joined column
        whose alias is taken is shown as `<prefix>_<column>`)."""
        columns = dict(self.columns)
        if self.fields:
            prefix = self.date_column.split(".")[0]
            for alias, (label, type_) in contact_fields(ctx).items():
                columns.setdefault(f"{prefix}.{alias}", (alias, f"{self.label}: {label}", type_))
        for join in self.joins:
            taken = {column[0] for column in columns.values()}
            for name, (label, type_) in join.columns(ctx).items():
                alias = join.alias(name)
                alias = f"{join.prefix}_{name}" if alias in taken else alias
                columns.setdefault(f"{join.prefix}.{name}", (alias, label, type_))
        return replace(self, columns=columns)

    def join(self, rows: Iterable[Doc], prefixes: Collection[str], ctx: Context) -> Iterator[Doc]:
        """The rows with their derived columns and the columns of the joins named by `prefixes`: the
        documents they name read per chunk of rows, in one BatchGetItem per 100 (none when no join
        is used). Call on a bound source."""
        joins = [join for join in self.joins if join.prefix in prefixes]
        for chunk in stats_tables.chunks(rows) if joins else ([row] for row in rows):
            wanted = {j.kind: [int(r[j.on]) for r in chunk if r.get(j.on)] for j in joins}
            docs = _with_counts(references.referenced_many(wanted, ctx), ctx)
            for row in chunk:
                for column, derive in self.derived.items():
                    row.setdefault(self.alias(column), derive(row))
                for join in joins:
                    doc = docs[join.kind].get(int(row[join.on])) if row.get(join.on) else None
                    values = join.values(doc, ctx) if doc is not None else {}
                    for key, (alias, _, _) in self.columns.items():
                        if key.startswith(f"{join.prefix}."):
                            row[alias] = values.get(key.partition(".")[2])
                yield row


def _with_counts(docs: dict[str, dict[JSON, Doc]], ctx: Context) -> dict[str, dict[JSON, Doc]]:
    """The joined documents with the numbers kept in counters (a page's `hits`, `kernel/counters.py`):
    1 BatchGetItem per 100 counter items of a chunk's pages and assets."""
    shown = {}
    for kind, found in docs.items():
        counted = counters.with_counts(registry.resource(kind), list(found.values()), ctx)
        shown[kind] = dict(zip(found, counted, strict=True))
    return shown


def contact_fields(ctx: Context) -> dict[str, tuple[str, str]]:
    """{alias: (label, type)} of the contact's field definitions, in their order."""
    return {
        f["alias"]: (f.get("label") or f["alias"], FIELD_TYPES.get(f.get("type") or "", "string"))
        for f in custom_fields.definitions("lead", ctx)
    }


def _db(row: Doc) -> Doc:
    return {key: stats_tables.db_value(value) for key, value in row.items()}


def _contact_values(doc: Doc, ctx: Context) -> Doc:
    """A contact's value of every contact field, by alias."""
    values = doc.get("values") or {}
    return {alias: values.get(alias) for alias in contact_fields(ctx)}


def _contact_row(doc: Doc, ctx: Context) -> Doc:
    values = doc.get("values") or {}
    row = _contact_values(doc, ctx)
    row.update({name: values.get(name) for name in CONTACT_FIELDS})
    row.update(
        id=doc["id"],
        date_added=doc.get("dateAdded"),
        date_modified=doc.get("dateModified"),
        date_identified=doc.get("dateIdentified"),
        last_active=doc.get("lastActive"),
        owner_id=doc.get("owner"),
        points=values.get("points") or 0,
    )
    return _db(row)


def _contacts(descending: bool, ctx: Context, refusal: Exception) -> Iterator[Doc]:
    """The contacts the caller may view in id order: ids are handed out as contacts are created, so
    also by `date_added`."""
    documents = access.visible_documents(ctx, registry.resource("contact"), descending)
    return (_contact_row(doc, ctx) for doc in documents)


def _email_row(doc: Doc) -> Doc:
    return _db(
        {
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
    )


def _emails(descending: bool, ctx: Context, refusal: Exception) -> Iterator[Doc]:
    return (_email_row(doc) for doc in access.visible_documents(ctx, registry.resource("email"), descending))


def _catalogued(name: str) -> Reader:
    """A reader of a table of Mautic's stats catalogue (`stats_catalogue.py`), as database rows."""
    table = stats_catalogue.TABLES[name]
    read = table.read
    assert read is not None, f"{name} keeps no rows"

    def rows(descending: bool, ctx: Context, refusal: Exception) -> Iterator[Doc]:
        for row in read(descending, None, ctx, refusal):
            yield {column: stats_tables.db_value(row.get(column)) for column in table.columns}

    return rows


def _typed(name: str) -> str:
    if (
        name == "id"
        or name.endswith("_id")
        or name
        in ("points", "delta", "sent_count", "read_count", "open_count", "retry_count", "rotation", "hits", "code")
    ):
        return "int"
    if name.startswith(("date_", "publish_")) or name in ("last_active", "last_opened"):
        return "datetime"
    if name.startswith("is_") or name in ("viewed_in_browser", "system_triggered", "non_action_path_taken"):
        return "bool"
    return "string"


def _label(label: str, name: str) -> str:
    return f"{label}: {name.replace('_', ' ')}"


def _columns(prefix: str, names: Iterable[str], label: str) -> dict[str, Column]:
    return {f"{prefix}.{name}": (name, _label(label, name), _typed(name)) for name in names}


def _document_join(prefix: str, kind: str, on: str, label: str, keys: Mapping[str, str]) -> Join:
    """A join of a document by id, its columns {column: document key} as database strings."""
    columns = {name: (_label(label, name), _typed(name)) for name in keys}
    return Join(
        prefix,
        kind,
        on,
        lambda ctx: columns,
        lambda doc, ctx: _db({name: doc.get(key) for name, key in keys.items()}),
    )


def _standard(*names: str, **more: str) -> dict[str, str]:
    """{column: document key} of some of Mautic's standard columns and more."""
    return dict({name: STANDARD_KEYS[name] for name in names}, **more)


CONTACT_JOIN = Join(
    "l",
    "contact",
    "lead_id",
    lambda ctx: dict(
        {"id": ("Contact: id", "int")}, **{a: (f"Contact: {label}", t) for a, (label, t) in contact_fields(ctx).items()}
    ),
    lambda doc, ctx: _db(dict(_contact_values(doc, ctx), id=doc["id"])),
)
EMAIL_JOIN = _document_join(
    "e",
    "email",
    "email_id",
    "Email",
    _standard(
        *STANDARD,
        subject="subject",
        lang="language",
        template="template",
        sent_count="sentCount",
        revision="revision",
    ),
)
PAGE_JOIN = _document_join(
    "p",
    "page",
    "page_id",
    "Page",
    _standard(
        "id",
        "created_by_user",
        "date_added",
        "modified_by_user",
        "date_modified",
        "publish_up",
        "publish_down",
        "is_published",
        title="title",
        alias="alias",
        lang="language",
        hits="hits",
        unique_hits="uniqueHits",
        revision="revision",
    ),
)
FORM_JOIN = _document_join("f", "form", "form_id", "Form", _standard(*STANDARD, alias="alias", form_type="formType"))
ASSET_JOIN = _document_join(
    "a",
    "asset",
    "asset_id",
    "Asset",
    _standard(
        "id",
        "created_by_user",
        "date_added",
        "modified_by_user",
        "date_modified",
        "description",
        "publish_up",
        "publish_down",
        "is_published",
        title="title",
        alias="alias",
        lang="language",
        download_count="downloadCount",
        unique_download_count="uniqueDownloadCount",
        revision="revision",
    ),
)
IP_UNKNOWN: dict[str, Column] = {"i.ip_address": ("ip_address", "IP address", "string")}  # not kept per hit


def _table(table: str, prefix: str, label: str, joins: tuple[Join, ...], **derived: Derive) -> Source:
    """A source over one table of the stats API, its columns under Mautic's table prefix; `derived`
    {`column`: derive} adds columns Mautic's table has and the stats API's lacks."""
    _, date_column, names, _ = stats_tables.TABLES[table]
    columns = _columns(prefix, names, label)
    extra = {name.replace("__", "."): derive for name, derive in derived.items()}
    for column in extra:
        name = column.partition(".")[2]
        columns.setdefault(column, IP_UNKNOWN.get(column) or (name, _label(label, name), _typed(name)))
    return Source(
        label,
        columns,
        f"{prefix}.{date_column}",
        lambda descending, ctx, refusal: stats_tables.table_rows(table, descending, refusal=refusal),
        dict({join.on: join.kind for join in joins}),
        joins,
        extra,
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
DOWNLOAD_COLUMNS = stats_catalogue.TABLES["asset_downloads"].columns


def _none(row: Doc) -> str | None:
    return None


def _hits(descending: bool, ctx: Context, refusal: Exception) -> Iterator[Doc]:
    """The page hits with `date_left`, derived as the stats table's."""
    rows = stats_tables.table_rows("page_hits", descending, refusal=refusal)
    return stats_event_tables.hits_with_date_left(rows, descending)


SOURCES = {
    "leads": Source("Contacts", _columns("l", CONTACT_COLUMNS, "Contact"), "l.date_added", _contacts, fields=True),
    "emails": Source("Emails", _columns("e", EMAIL_COLUMNS, "Email"), "e.date_added", _emails),
    "email.stats": _table("email_stats", "es", "Email sent", (EMAIL_JOIN, CONTACT_JOIN)),
    "form.submissions": _table("form_submissions", "fs", "Form submission", (FORM_JOIN, CONTACT_JOIN)),
    "page.hits": replace(
        _table(
            "page_hits",
            "ph",
            "Page hit",
            (PAGE_JOIN, CONTACT_JOIN),
            ph__code=lambda row: "200",  # a hit is recorded when its page was served
            ph__city=_none,
            ph__country=_none,
            i__ip_address=_none,
        ),
        read=_hits,
    ),
    "asset.downloads": Source(
        "Asset downloads",
        dict(_columns("ad", DOWNLOAD_COLUMNS, "Download"), **IP_UNKNOWN),
        "ad.date_download",
        _catalogued("asset_downloads"),
        {"lead_id": "contact", "asset_id": "asset"},
        (ASSET_JOIN, CONTACT_JOIN),
        {"i.ip_address": _none},
    ),
    "lead.pointlog": _table(
        "lead_points_change_log", "lp", "Point change", (CONTACT_JOIN,), lp__event_name=lambda row: row.get("name")
    ),
    "campaign_lead.event_log": replace(
        _table("campaign_lead_event_log", "log", "Campaign event", (CONTACT_JOIN,)),
        guards={"lead_id": "contact", "campaign_id": "automation"},
    ),
}
