"""Hooks only some resources have, beside the `Hooks` every resource has (`kernel/resources.py`).

A resource's hooks class mixes in the kinds it needs; the kernel checks for each with `isinstance`
through the functions below, which give every other resource the plain behaviour."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet

from chalicelib.domain.kernel import search
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Hooks, Merge, Resource
from chalicelib.domain.kernel.types import JSON, Doc, EntityId


class Listed(Hooks):
    """How a list searches and orders the documents where their stored keys do not say it (contacts,
    companies, notes, users, roles); each method's default is what every other resource gets."""

    def fast_ids(self, node: search.Node | None, ctx: Context) -> Iterable[EntityId] | None:
        """Ids answering a search AST without reading the whole kind, or None."""
        return None

    def command(self, doc: Doc, command: search.Command, ctx: Context) -> bool | None:
        """True/False for a resource-specific search command, None when unknown."""
        return None

    def term_values(self, doc: Doc) -> list[JSON]:
        """Values a free-text term is matched against."""
        return [doc.get(column) for column in self.resource.text_columns]

    def sort_value(self, doc: Doc, column: str) -> JSON:
        """The value a document is ordered by for `column` (`orderBy`, `order`, `where`)."""
        return doc.get(column)

    def sort_columns(self, ctx: Context) -> AbstractSet[str]:
        """Extra column names accepted by orderBy."""
        return set()


def listed(resource: Resource) -> Listed:
    """The listing hooks of `resource`: its own, else the defaults bound to it."""
    hooks = resource.hooks
    return hooks if isinstance(hooks, Listed) else Listed().bind(resource)


class Deduplicated(Hooks, ABC):
    """Documents found again by their unique values and email address, two of them merged into one
    when an edit gives one the other's unique value (contacts)."""

    @abstractmethod
    def email(self, doc: Doc) -> str | None:
        """The email address to index for look-ups by email, or None."""

    @abstractmethod
    def lookup_fields(self, ctx: Context) -> list[str]:
        """The unique fields a create looks for a duplicate by, read ahead by batches."""

    @abstractmethod
    def merge(self, merge: Merge) -> Doc:
        """Store the two documents of a `Merge` as one. Returns the survivor."""


def email(resource: Resource, doc: Doc) -> str | None:
    """The email address the store indexes `doc` by (None: the resource indexes none)."""
    hooks = resource.hooks
    return hooks.email(doc) if isinstance(hooks, Deduplicated) else None


def lookup_fields(resource: Resource, ctx: Context) -> list[str]:
    """The unique fields a batch of creates reads duplicates ahead by (none for most resources)."""
    hooks = resource.hooks
    return hooks.lookup_fields(ctx) if isinstance(hooks, Deduplicated) else []


def merge(resource: Resource, merge: Merge) -> Doc:
    """Store the two documents of a `Merge` as one, for a resource whose documents merge."""
    hooks = resource.hooks
    if not isinstance(hooks, Deduplicated):
        raise NotImplementedError(f"{resource.kind} documents do not merge")
    return hooks.merge(merge)


class Summarized(Hooks, ABC):
    """A reference to the resource shows more than its `summary` keys (contacts: their field values)."""

    @abstractmethod
    def summary(self, doc: Doc, ctx: Context) -> Doc:
        """What a reference from another resource shows of `doc`."""


def summary(resource: Resource, doc: Doc, ctx: Context) -> Doc:
    """What a reference from another resource shows of `doc`: its `summary` keys unless it says more."""
    hooks = resource.hooks
    if isinstance(hooks, Summarized):
        return hooks.summary(doc, ctx)
    return {key: doc.get(key) for key in resource.summary}


class Shared(Hooks, ABC):
    """Some documents are seen by every viewer of the kind whoever owns them, and a reference may name
    only those the caller may choose (Mautic's global and private segments)."""

    @abstractmethod
    def seen_by_viewers(self, doc: Doc) -> bool:
        """Whether every caller who may view some document of the kind may view this one."""

    @abstractmethod
    def choosable(self, doc: Doc, ctx: Context) -> bool:
        """Whether the caller may name this document in a reference another write sets."""


def shares_with_viewers(resource: Resource) -> bool:
    """Whether some documents of `resource` are seen by every viewer (an owner's list reads them all)."""
    return isinstance(resource.hooks, Shared)


def seen_by_viewers(resource: Resource, doc: Doc) -> bool:
    """Whether every viewer of the kind sees `doc`, whoever owns it (False for most resources)."""
    hooks = resource.hooks
    return isinstance(hooks, Shared) and hooks.seen_by_viewers(doc)


def choosable(resource: Resource, doc: Doc, ctx: Context) -> bool:
    """Whether the caller may name `doc` in a reference (True for most resources)."""
    hooks = resource.hooks
    return not isinstance(hooks, Shared) or hooks.choosable(doc, ctx)


class Assembled(Hooks, ABC):
    """A new document is finished after its audit stamp and its nested items' ids (automations: the
    creator Mautic stamps, the events that name each other by client ids)."""

    @abstractmethod
    def stamp_created(self, doc: Doc, ctx: Context) -> None:
        """After a new document got its audit stamp: change it where Mautic stamps otherwise."""

    @abstractmethod
    def link(self, doc: Doc, new_ids: Mapping[tuple[str, str], int]) -> None:
        """After new nested items got ids: `new_ids` maps (collection, client id) to the real id."""


def stamp_created(resource: Resource, doc: Doc, ctx: Context) -> None:
    """The resource's change to a new document's audit stamp, if it has one."""
    hooks = resource.hooks
    if isinstance(hooks, Assembled):
        hooks.stamp_created(doc, ctx)


def link(resource: Resource, doc: Doc, new_ids: Mapping[tuple[str, str], int]) -> None:
    """The resource's links between new nested items by their new ids, if it has any."""
    hooks = resource.hooks
    if isinstance(hooks, Assembled):
        hooks.link(doc, new_ids)
