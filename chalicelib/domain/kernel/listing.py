"""List queries: search commands, published filter, ordering and paging over one resource kind.

Unfiltered lists in id order read only the page (a Query with a limit) and take `total`
from the kind's counter; `ids:` searches batch-get their ids; other searches and orders, and
`where` filters (domain/kernel/where.py), read the kind's partition once (see docs/storage.md for the costs).
Every list leaves out the documents the resource's list filters name (domain/kernel/unlisted.py).
"""

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import islice

from chalicelib.domain.kernel import (
    access,
    cache_keys,
    capability_hooks,
    counters,
    search,
    subscribers,
    unlisted,
    where,
)
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import invalid
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.types import JSON, Doc, EntityId
from chalicelib.store import fanout
from chalicelib.store import port as store

ValueOf = Callable[[Doc, str], JSON]  # a document's value for a `where`/`order` column
SortKeys = list[tuple[str, bool]]  # [(column, descending)] of an `order` parameter

KEY_ORDER_COLUMNS = {"id", "dateAdded", "date_added"}


@dataclass(eq=False, repr=False)
class ListQuery:
    """What a list request asks: Mautic's search, paging (offset or cursor), ordering and filters."""

    search: str | None = None
    start: int = 0
    limit: int | None = 30
    order_by: str | None = None
    order_dir: str = "ASC"
    published_only: bool = False
    minimal: bool = False
    where: JSON = None  # raw `where[n][col|expr|val]` parameter, parsed by domain/kernel/where.py
    order: JSON = None  # raw `order[n][col|dir]` parameter; overrides order_by
    after: int | None = None  # continue after this id in key order (a cursor); replaces start


MAX_ID = 2**63 - 1


def list_documents(resource: Resource, query: ListQuery, ctx: Context) -> tuple[int, list[Doc], int | None]:
    """(total, documents of the page, id the next page starts after or None) for a list query.
        The last is set when the list is in key order (no search, filter or other order) and more
        items follow the page; `query.after` continues from it reading only the page. A caller who
        may see only their own documents gets those (as a GET would allow them: their permission user is
    the caller)."""
    owner = access.visible_owner(ctx, resource)
    try:
        node = search.parse(query.search)
    except search.SearchSyntaxError as error:
        raise invalid("search", str(error)) from None
    clause, keys, value = _where_and_order(resource, query, ctx)
    column: str | None
    if len(keys) == 1 and keys[0][0] in KEY_ORDER_COLUMNS:  # id order: as orderBy=id
        column, descending, keys = keys[0][0], keys[0][1], []
    else:
        column = None if keys else _order_column(resource, query.order_by, ctx)
        descending = query.order_dir == "DESC" and not keys
    if (
        node is None
        and clause is None
        and not keys
        and not query.published_only
        and owner is None
        and column in (None, *KEY_ORDER_COLUMNS)
    ):
        total = fanout.ahead(partial(unlisted.total, resource))  # one round trip with the page's Queries
        docs, next_after = _key_order_page(resource, query, descending)
        return total(), docs, next_after
    if query.after is not None:
        raise invalid(
            "after", "A cursor continues only a list in key order (no search, where, order or other orderBy)."
        )
    end = query.start + query.limit if query.limit else None
    candidates = (
        access.own_documents(resource, owner, descending)
        if owner is not None and access.owner_indexed(resource) and not capability_hooks.shares_with_viewers(resource)
        else _candidates(resource, node, ctx, descending)
    )
    if _names_counted(resource, clause, keys, column):
        candidates = counters.with_counts(resource, list(candidates), ctx)
    matches = [
        doc
        for doc in candidates
        if unlisted.listed(resource, doc)
        and (
            owner is None
            or access.owner_of(resource, doc, ctx) == owner
            or capability_hooks.seen_by_viewers(resource, doc)
        )
        and (not query.published_only or is_published(doc, ctx.now))
        and search.evaluate(node, doc, _term_matcher(resource, ctx), _command_matcher(resource, ctx))
        and where.matches(clause, partial(value, doc))
    ]
    for key_column, key_descending in reversed(keys):  # stable sorts: the first key decides, later ones break ties
        matches.sort(key=lambda doc: where.sort_key(value(doc, key_column)), reverse=key_descending)
    if column is not None and column not in KEY_ORDER_COLUMNS:
        sort_value = capability_hooks.listed(resource).sort_value
        matches.sort(key=lambda doc: _sortable(sort_value(doc, column)), reverse=descending)
    return len(matches), matches[query.start : end], None


def _columns_of(clause: where.Clause | None) -> set[str]:
    """The columns a `where` clause (or group) names."""
    if clause is None:
        return set()
    if isinstance(clause, where.Group):
        return set().union(*(_columns_of(c) for c in clause.clauses))
    return {clause.column}


def _names_counted(resource: Resource, clause: where.Group | None, keys: SortKeys, column: str | None) -> bool:
    """Whether the list filters or orders by a number kept in counters (a page's `hits`): then the
    candidates are read with their counters (1 BatchGetItem per 100 counter items)."""
    named = _columns_of(clause) | {key for key, _ in keys} | {column}
    return bool(named & set(counters.names(resource)))


def _key_order_page(resource: Resource, query: ListQuery, descending: bool) -> tuple[list[Doc], int | None]:
    """(documents of the page, id the next page starts after or None): one Query of the page plus
    one item (after a cursor), or of the items before it too (an offset)."""
    start, between = query.start, None
    if query.after is not None:
        start, between = 0, (1, query.after - 1) if descending else (query.after + 1, MAX_ID)
        if between[0] > between[1]:
            return [], None
    end = start + query.limit + 1 if query.limit else None
    docs = list(islice(_listed_in_key_order(resource, descending, end, between), start, end))
    if not query.limit or len(docs) <= query.limit:
        return docs, None
    return docs[: query.limit], docs[query.limit - 1]["id"]


def _listed_in_key_order(
    resource: Resource, descending: bool, wanted: int | None, between: tuple[int, int] | None
) -> Iterator[Doc]:
    """The first `wanted` (None: all) listed documents in key order: one Query of `wanted` items, and
    while unlisted ones took places, one more Query after the last id read for the places missing
    scaled by the share of listed documents read so far, at least twice the one before (at most 1,000
    items): a run of n unlisted documents costs about log2(n / wanted) Queries more, and what is read
    past the last document wanted is at most the rest of the last Query."""
    if not unlisted.filtered(resource) or wanted is None:
        docs = store.iterate(resource.kind, descending=descending, limit=wanted, between=between)
        yield from (doc for doc in docs if unlisted.listed(resource, doc))
        return
    read = found = 0
    ask = wanted
    while True:
        got, last = 0, 0
        for doc in store.iterate(resource.kind, descending=descending, limit=ask, between=between):
            got, last = got + 1, doc["id"]
            if unlisted.listed(resource, doc):
                found += 1
                yield doc
        read += got
        between = (between[0] if between else 1, last - 1) if descending else (last + 1, MAX_ID)
        if got < ask or found >= wanted or between[0] > between[1]:
            return
        ask = min(max(-(-(wanted - found) * read // max(found, 1)), 2 * ask), 1000)


def _where_and_order(
    resource: Resource, query: ListQuery, ctx: Context
) -> tuple[where.Group | None, SortKeys, ValueOf]:
    """(resolved where clause or None, [(column, descending)] of `order`, value(doc, column))."""
    if not query.where and not query.order:
        return None, [], _key_value
    column_of, value = where.columns_for(resource, _known_columns(resource, ctx))
    clause = where.resolve(where.parse(query.where), column_of)
    return clause, where.parse_order(query.order, column_of), value


def _key_value(doc: Doc, column: str) -> JSON:
    """A document's value of a column: its key (a list without `where` or `order` reads none)."""
    return doc.get(column)


def _fast_ids(resource: Resource, node: search.Node | None, ctx: Context) -> Iterable[EntityId] | None:
    """Candidate ids of a search AST from the command's own index, or None (read the kind)."""
    if isinstance(node, search.Command):
        added = subscribers.command(resource.kind, node.name)
        if added is not None and added.candidates is not None:
            return added.candidates(node.value, ctx)
    return capability_hooks.listed(resource).fast_ids(node, ctx)


def _candidates(resource: Resource, node: search.Node | None, ctx: Context, descending: bool) -> Iterable[Doc]:
    """The documents a search may match, in id order: those its command's index or `ids:` names, else
    every document of the kind."""
    ids = _fast_ids(resource, node, ctx)
    if ids is None and isinstance(node, search.Command) and node.name == "ids":
        ids = _ids(node.value)
    if ids is None:
        return store.iterate(resource.kind, descending=descending)
    found = store.batch_get(resource.kind, ids)
    return [found[i] for i in sorted(found, reverse=descending)]


def _ids(value: str) -> list[int]:
    """The ids of an `ids:` command, or a 400 naming `search`."""
    try:
        return search.split_ids(value)
    except search.SearchSyntaxError as error:
        raise invalid("search", str(error)) from None


def _order_column(resource: Resource, order_by: str | None, ctx: Context) -> str | None:
    """The column `orderBy` names (its last dotted part, snake_case accepted), or a 400."""
    if not order_by:
        return None
    column = order_by.split(",")[0].strip().split(".")[-1]
    known = _known_columns(resource, ctx)
    if column not in known and _camel(column) not in known:
        raise invalid("orderBy", f"'{order_by}' is not a column of this resource.")
    return column if column in known else _camel(column)


def _known_columns(resource: Resource, ctx: Context) -> set[str]:
    """The columns `where`, `order` and `orderBy` may name: never a hidden attribute (a filter on a
    value the answer does not show would reveal it, a password hash by its prefix)."""
    known = {x.name for x in resource.all_attrs if not x.hidden} | {
        "id",
        "dateAdded",
        "dateModified",
        "createdBy",
        "createdByUser",
        "modifiedBy",
        "modifiedByUser",
    }
    return known | capability_hooks.listed(resource).sort_columns(ctx)


def _camel(name: str) -> str:
    """`date_added` -> `dateAdded`."""
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _sortable(value: JSON) -> tuple[int, int, JSON]:
    """An orderBy key: numbers and booleans, then text case-insensitively, empty values last."""
    if value is None or value == "":
        return (1, 0, "")
    if isinstance(value, bool):
        return (0, 0, int(value))
    if isinstance(value, (int, float)):
        return (0, 0, value)
    return (0, 1, str(value).lower())


def is_published(doc: Doc, now: str) -> bool:
    """Published now: isPublished and inside publishUp/publishDown when they are set."""
    if not doc.get("isPublished", True):
        return False
    up, down = doc.get("publishUp"), doc.get("publishDown")
    return (not up or up <= now) and (not down or down > now)


def _term_matcher(resource: Resource, ctx: Context) -> Callable[[Doc, search.Term], bool]:
    """Whether a document matches a free-text term: any of its term values is LIKE it."""
    term_values = capability_hooks.listed(resource).term_values

    def match(doc: Doc, term: search.Term) -> bool:
        pattern, contains = term.text, not term.strict
        if resource.prefix_terms and contains and "%" not in pattern:
            pattern, contains = pattern + "%", False
        return any(search.like(value, pattern, contains=contains) for value in term_values(doc))

    return match


def _command_matcher(resource: Resource, ctx: Context) -> Callable[[Doc, search.Command], bool]:
    """Whether a document matches a search command: one another capability added, the resource's own,
    a core command, else the command's text as a term."""
    term = _term_matcher(resource, ctx)
    own_command = capability_hooks.listed(resource).command

    def match(doc: Doc, command: search.Command) -> bool:
        added = subscribers.command(resource.kind, command.name)
        special = added.match(doc, command.value, ctx) if added else own_command(doc, command, ctx)
        if special is not None:
            return special
        key = f"is:{command.value.lower()}" if command.name == "is" else command.name
        if key not in resource.commands:
            return term(doc, search.Term(f"{command.name}:{command.value}", command.strict))
        return _core_command(resource, doc, command, ctx)

    return match


def _core_command(resource: Resource, doc: Doc, command: search.Command, ctx: Context) -> bool:
    """The core commands: `ids:`, `is:published|unpublished|mine|uncategorized`, `category:`, `lang:`."""
    name, value = command.name, command.value.lower()
    if name == "ids":
        return doc["id"] in _ids(command.value)
    if name == "is":
        checks: dict[str, Callable[[], bool]] = {
            "published": lambda: bool(doc.get("isPublished", True)),
            "unpublished": lambda: not doc.get("isPublished", True),
            "mine": lambda: doc.get("createdBy") == ctx.user_id,
            "uncategorized": lambda: not doc.get("category"),
        }
        return checks[value]()
    if name == "category":
        aliases = ctx.memo(
            cache_keys.CATEGORY_ALIASES,
            lambda: {c["id"]: (c.get("alias") or "").lower() for c in store.iterate("category")},
        )
        return aliases.get(doc.get("category")) == value
    if name == "lang":
        return (doc.get("language") or "").lower() == value
    column = resource.text_columns[0]
    return search.like(doc.get(column), command.value, contains=not command.strict)
