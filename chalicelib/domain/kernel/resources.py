"""The resource declaration: what the registry says about each resource of the API."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from dataclasses import field as dc_field
from typing import Any, Protocol, Self

from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.cached import CACHED_KINDS
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import JSON, Build, Derived, Doc, EntityId, Events, Items
from chalicelib.records import record

CORE_COMMANDS = frozenset({"ids", "is:published", "is:unpublished", "is:mine", "is:uncategorized", "category"})
CONTENT_COMMANDS = CORE_COMMANDS | {"lang"}

STANDARD_OPERATIONS = frozenset({"list", "create", "get", "edit", "delete"})  # the routes `api/standard.py` installs

AUDIT_KEYS = ("isPublished", "dateAdded", "dateModified", "createdBy", "createdByUser", "modifiedBy", "modifiedByUser")


@dataclass(eq=False, repr=False)
class Write:
    """One create or edit in progress: mode is `create` (also a PUT that creates), `patch` or `put`;
    `existing` is the stored document being edited (None for a new entity)."""

    payload: Doc
    mode: str
    existing: Doc | None
    errors: dict[str, list[str]]
    ctx: Context
    events: Events = field(default_factory=list)  # timeline events of the change (contacts)


@record
class Merge:
    """An edit that gives `doc` (the edited `existing`) a unique value the stored `other` holds, with
    its timeline `events`; `build` and `items` as for `service.create`, applied to the survivor."""

    doc: Doc
    existing: Doc
    other: Doc
    ctx: Context
    events: Events
    build: Build | None = None
    items: Sequence[Derived] = ()


class Hooks:
    """What is special about a resource; the generic service calls these at fixed points. Only what
    every resource may need is here: hooks one capability alone needs are mixed in from
    `kernel/capability_hooks.py` (listing, duplicates and merges, reference summaries, shared
    documents, assembly of a new document).

    Each `Resource` holds its own copy, bound to it (`bind`): a method reads its resource as
    `self.resource`, so callers write `resource.hooks.uniques(doc)`."""

    resource: Resource  # the Resource these hooks are bound to (set by `bind`)

    def bind(self, resource: Resource) -> Self:
        """A copy of these hooks bound to `resource` (one instance shared by two declarations, or a
        declaration copied by `dataclasses.replace`, still gives each resource its own)."""
        bound = copy.copy(self)
        bound.resource = resource
        return bound

    def prepare(self, doc: Doc, write: Write) -> None:
        """Apply payload keys the attribute table does not cover; add messages to `write.errors`."""

    def finalize(self, doc: Doc, write: Write) -> None:
        """After validation passed, before the store: work that writes (e.g. create missing tags)."""

    def prefetch(self, docs: Sequence[Doc], ctx: Context) -> None:
        """Before presenting a page of documents: fetch what they reference in one go."""

    def present(self, doc: Doc, out: Doc, ctx: Context) -> None:
        """Add computed properties to the response representation `out`."""

    def uniques(self, doc: Doc) -> dict[str, JSON]:
        """Unique values held by the document, as {field: value}."""
        return {name: doc.get(name) for name in self.resource.uniques}

    def taken(self, field: str) -> str:
        """The message of a unique value another document holds."""
        return "This value is already used."

    def duplicate_of(self, doc: Doc, ctx: Context) -> Doc | None:
        """An existing document that a create should update instead (contacts), or None."""
        return None

    def before_delete(self, doc: Doc, ctx: Context) -> None:
        """Refuse (raise) or prepare a delete."""

    def consequences(
        self, doc: Doc | None, existing: Doc | None, ctx: Context, events: Sequence[Doc]
    ) -> tuple[Items, Events]:
        """Just before a create, edit or delete (`doc` None) with its timeline `events` is stored:
        ([(kind, id, document or None)] derived items to put or delete, [further timeline events])
        written in the same transaction (segment and automation membership)."""
        return [], []

    def stored(self, doc: Doc | None, existing: Doc | None, ctx: Context) -> None:
        """After a create, edit (both documents) or delete (`doc` None) was stored: queue follow-up work."""

    owner_indexed = True  # its documents are indexed by permission user (False: it derives from another's)
    # A/B tests restart when a version changes (kernel/variant_restarts.py): the stored test counts, set to 0
    variant_counts: tuple[str, ...] = ()
    translations_restart = False  # an edit of a translation of a variant restarts (Mautic's pages, not emails)
    untracked: tuple[str, ...] = ()  # writable attributes whose writes are no change to a test (Mautic's counts)

    def zero_variant_counts(self, docs: Sequence[Doc]) -> Items:
        """Restarting the A/B test of `docs`: set their `variant_counts` to 0 and return the derived items
        that take their live test counters back to 0 in the same transaction."""
        for doc in docs:
            doc.update(dict.fromkeys(self.variant_counts, 0))
        return []

    def permission_user(self, doc: Doc, ctx: Context) -> JSON:
        """The user whose own document `doc` is, for own/other permissions (Mautic's permission user)."""
        return doc.get("createdBy")


class Writes(Protocol):
    """The create, edit and delete of a resource whose documents live inside another's (a module such as
    `contacts/devices.py`), with the signatures of the kernel's `service` (which is one too)."""

    def create(self, resource: Resource, payload: JSON, ctx: Context, /) -> tuple[Doc, bool]:
        """Create from a payload: (document, created)."""
        ...

    def edit(
        self, resource: Resource, entity_id: EntityId, payload: JSON, ctx: Context, /, replace: bool
    ) -> tuple[Doc, bool]:
        """PATCH (`replace` False) or PUT: (document, created)."""
        ...

    def delete(self, resource: Resource, entity_id: EntityId, ctx: Context, /) -> Doc:
        """Delete and return the document as it was."""
        ...


@record(kw_only=True)
class Resource:
    """A resource of the API: storage kind, URL prefix, JSON keys, attributes and behaviour."""

    kind: str
    prefix: str
    singular: str
    plural: str
    attrs: tuple[a.Attr, ...]
    audit: str | None = "A"
    keyed_list: bool = True
    empty_list_object: bool = False
    total_as_text: bool = False  # the list's `total` is a string of digits: Mautic counts these by raw SQL
    nested: tuple[a.Nested, ...] = ()
    put: bool = True
    category: str | None = None
    text_columns: tuple[str, ...] = ("name",)
    prefix_terms: bool = False  # free text matches the start of a column (contacts), else anywhere
    commands: frozenset[str] = CORE_COMMANDS
    minimal_exclude: tuple[str, ...] = ()
    uniques: tuple[str, ...] = ()
    summary: tuple[str, ...] = (
        "id",
        "name",
    )  # what another resource's reference to this one shows (Mautic's list group)
    permission: str | None = None  # the `bundle:level` of Mautic's permissions guarding it (domain/kernel/access.py)
    # where the API serves it: the route table (`chalicelib/api/<routes>.py`) that installs its standard
    # operations and the batch routes, or None for a resource with routes of its own only (users)
    routes: str | None = None
    operations: frozenset[str] = STANDARD_OPERATIONS  # those standard operations (its table serves the others)
    batch: bool = True  # the batch routes (`/<prefix>/batch/...`), for a resource with PUT
    hooks: Hooks = dc_field(default_factory=Hooks)
    # create/edit/delete with the signatures of the kernel's service, for a resource whose documents
    # live inside another's (devices in their contact); None: the kernel's service.
    writes: Writes | None = None
    # numbers public events move (a page's hits), kept in sharded counter items rather than in the
    # document and shown as the stored value plus those (domain/kernel/counters.py): each entry a
    # number and, optionally, its first-time number, whose counts are in the first one too
    counted: tuple[tuple[str, ...], ...] = ()
    # references whose documents a list leaves out while they are set (Mautic's API `listFilters`
    # `<reference> isNull`: an email's A/B variants, a page's variants and translations); a GET by
    # id still answers them (domain/kernel/unlisted.py)
    list_filters: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "hooks", self.hooks.bind(self))

    @property
    def cached(self) -> bool:
        """Small kind read on many requests: cached in process, its writes bump a version."""
        return self.kind in CACHED_KINDS

    @property
    def all_attrs(self) -> tuple[a.Attr, ...]:
        """The attributes of its documents: the audit set's and the category's, then its own."""
        audit: list[a.Attr] = []
        if self.audit:
            audit.append(a.boolean("isPublished", default=True, nullable=False))
        if self.audit == "A":
            audit += [a.datetime_("publishUp"), a.datetime_("publishDown")]
        if self.category:
            audit.append(a.Attr("category", a.as_id, ref="category"))
        return tuple(audit) + self.attrs


def ref(name: str, kind: str, **kw: Any) -> a.Attr:
    """An attribute holding the id of a document of `kind` (checked on write; written as an id or an
    object with `id`; shown as that document's `summary`, as Mautic's serializer nests it)."""
    return a.Attr(name, a.as_id, ref=kind, **kw)


def refs(name: str, kind: str) -> a.Attr:
    """An attribute holding a list of ids of documents of `kind` (checked on write; shown as a list of
    their summaries)."""
    return a.Attr(name, a.id_list, default=[], ref=kind)


def children(name: str, kind: str, parent: str) -> a.Attr:
    """A read-only list of the ids of the documents of `kind` whose `parent` reference names this one
    (an email's `translationChildren`), kept by the kernel in the transaction of each child's write
    (`kernel/children.py`) and shown as their summaries."""
    return a.Attr(name, a.id_list, default=[], ref=kind, writable=False, children_of=parent)


def read_only(attr: a.Attr) -> a.Attr:
    """The attribute, shown but never written by clients."""
    return replace(attr, writable=False)


def content(*extra: a.Attr) -> tuple[a.Attr, ...]:
    """The attributes of translatable content: `language`, then `extra`."""
    return (a.text("language", default="en"),) + extra
