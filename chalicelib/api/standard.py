"""The six standard operations, installed for a resource from its registry declaration."""

import base64
from collections.abc import Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

from chalicelib import bootstrap, config
from chalicelib.api import answer_limits
from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Answer, Contract, Reply, Routes
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import invalid
from chalicelib.domain.kernel.listing import ListQuery, list_documents
from chalicelib.domain.kernel.present import present, present_one
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.types import Doc


def single(
    resource: Resource, doc: Doc, ctx: Context, status: int = 200, headers: dict[str, Any] | None = None
) -> Reply:
    """`{"<singular>": {...}}`."""
    return Reply({resource.singular: present_one(resource, doc, ctx)}, status, headers or {})


def collection(resource: Resource, reprs: list[Doc]) -> list[Doc] | dict[str, Doc]:
    """The list collection: an object keyed by id, or an array, as the resource's clients expect."""
    if not resource.keyed_list:
        return reprs
    if not reprs:
        return {} if resource.empty_list_object else []
    return {str(r["id"]): r for r in reprs}


def created(resource: Resource, doc: Doc, ctx: Context, was_created: bool = True) -> Reply:
    """201 with `Location` for a new entity; 200 when an existing one was updated instead."""
    if not was_created:
        return single(resource, doc, ctx)
    location = f"{ctx.base_url}/api/{resource.prefix}/{doc['id']}"
    return single(resource, doc, ctx, 201, {"Location": location})


MAX_INT = 2**31 - 1


def int_param(query: Mapping[str, Any], name: str, default: int, minimum: int = 0) -> int:
    """An integer query parameter of at least `minimum` (capped at MAX_INT), `default` when absent; 400 otherwise."""
    value = query.get(name)
    if value in (None, ""):
        return default
    try:
        number = a.as_int(value)
    except a.Invalid:
        number = None
    if number is None or number < minimum:
        raise invalid(name, f"This value should be an integer of at least {minimum}.")
    return min(number, MAX_INT)


def _flag_param(query: Mapping[str, Any], *names: str) -> bool:
    """The first of `names` given, as a boolean (400 when it is not one); False when none is."""
    for name in names:
        if query.get(name) not in (None, ""):
            try:
                return a.as_bool(query[name])
            except a.Invalid:
                raise invalid(name, "This value should be a boolean.") from None
    return False


def _cursor(resource: Resource, after_id: int) -> str:
    """The opaque cursor of a position in a resource's key order."""
    return base64.urlsafe_b64encode(f"{resource.kind}:{after_id}".encode()).decode().rstrip("=")


def _after(resource: Resource, query: Mapping[str, Any]) -> int | None:
    """The id a cursor (`after`) continues after, or None without one; 400 for a cursor of
    another list or none at all."""
    value = query.get("after")
    if value in (None, ""):
        return None
    try:
        kind, _, after_id = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode().partition(":")
        number = int(after_id)
    except (TypeError, ValueError):
        kind, number = None, 0
    if kind != resource.kind or not 0 < number < 2**63:
        raise invalid("after", "This value is not a cursor of this list.")
    return number


def list_query(query: Mapping[str, Any]) -> ListQuery:
    """ListQuery from `search`, `start`, `limit`, `orderBy`, `orderByDir`, `publishedOnly`/`published`, `minimal`,
    and `where`/`order` passed raw (domain/kernel/where.py parses them)."""
    direction = str(query.get("orderByDir") or "ASC").upper()
    if direction not in ("ASC", "DESC"):
        raise invalid("orderByDir", "This value should be asc or desc.")
    search = query.get("search")
    if search is not None and not isinstance(search, str):
        raise invalid("search", "This value should be a string.")
    order_by = query.get("orderBy")
    return ListQuery(
        search=search,
        start=int_param(query, "start", 0),
        limit=min(
            int_param(query, "limit", config.active().DEFAULT_PAGE_LIMIT) or config.active().MAX_PAGE_LIMIT,
            config.active().MAX_PAGE_LIMIT,
        ),
        order_by=order_by if isinstance(order_by, str) else None,
        order_dir=direction,
        published_only=_flag_param(query, "publishedOnly", "published"),
        minimal=_flag_param(query, "minimal"),
        where=query.get("where"),
        order=query.get("order"),
    )


def list_reply(resource: Resource, request: ApiRequest, ctx: Context) -> Reply:
    """`{"total", "<plural>"}`, with `next` (and a `Link` header) when more items follow the page in
    key order. A page larger than Lambda may answer keeps the items that fit (`api/answer_limits.py`) and
    links the next page: by cursor in key order, else by `start`."""
    query = replace(list_query(request.query), after=_after(resource, request.query))
    total, docs, next_after = list_documents(resource, query, ctx)
    reprs = present(resource, docs, ctx, minimal=query.minimal)
    kept = answer_limits.fitting(reprs)
    shrunk = kept < len(reprs)
    if shrunk:  # the page would pass what Lambda may answer: it ends at the last item that fits
        reprs = reprs[:kept]
        next_after = docs[kept - 1]["id"] if next_after is not None or query.after is not None else None
    body: Doc = {"total": str(total) if resource.total_as_text else total, resource.plural: collection(resource, reprs)}
    if next_after is not None:
        body["next"] = _cursor(resource, next_after)
        return Reply(body, headers={"Link": _next_link(resource, request, ctx, ("after", body["next"]))})
    if shrunk:  # a page by offset: the next starts after the items this one kept
        return Reply(body, headers={"Link": _next_link(resource, request, ctx, ("start", query.start + kept))})
    return Reply(body)


def _next_link(resource: Resource, request: ApiRequest, ctx: Context, position: tuple[str, Any]) -> str:
    """The `Link` header of the next page: the request's query, its position (`after` or `start`) moved."""
    raw_params = request.raw.query_params  # a MultiDict, or None without a query
    params = (
        [(k, v) for k in raw_params if k not in ("start", "after") for v in raw_params.getlist(k)] if raw_params else []
    )
    link = f"{ctx.base_url}/api/{resource.prefix}?{urlencode([*params, position])}"
    return f'<{link}>; rel="next"'


def install_declared(routes: Routes) -> None:
    """Install the standard operations of every registered resource whose declaration names this
    route table (`Resource.routes`): a resource's routes come from its declaration, not from a list
    kept here (`api/batch.py` adds their batch routes likewise)."""
    for resource in bootstrap.resources():
        if resource.routes == routes.name:
            install(routes, resource)


def install(routes: Routes, resource: Resource) -> None:
    """Register the standard operations the resource declares (`Resource.operations`: list, create,
    get, PATCH/PUT edit, delete); its route table serves the others itself."""
    _install_reads(routes, resource)
    _install_writes(routes, resource)


def _install_reads(routes: Routes, resource: Resource) -> None:
    """The list and the GET by id, as declared."""
    base, kind = f"/{resource.prefix}", resource.kind

    if "list" in resource.operations:

        @routes.route(base, "GET", contract=Contract("list", resource), access=(Need(kind, Action.VIEW),))
        def list_(request: ApiRequest, ctx: Context) -> Answer:
            return list_reply(resource, request, ctx)

    if "get" in resource.operations:

        @routes.route(
            f"{base}/{{id}}", "GET", contract=Contract("get", resource), access=(Need(kind, Action.VIEW, "id"),)
        )
        def get(request: ApiRequest, ctx: Context, id: str) -> Answer:
            return single(resource, service.load(resource, id, ctx), ctx)


def _install_writes(routes: Routes, resource: Resource) -> None:
    """Create, PATCH/PUT edit and delete, as declared, through the resource's `writes` or the service."""
    base, kind, operations = f"/{resource.prefix}", resource.kind, resource.operations
    writes = resource.writes or service

    if "create" in operations:

        @routes.route(f"{base}/new", "POST", contract=Contract("create", resource), access=(Need(kind, Action.CREATE),))
        def create(request: ApiRequest, ctx: Context) -> Answer:
            doc, was_created = writes.create(resource, request.body, ctx)
            return created(resource, doc, ctx, was_created)

    if "edit" in operations:

        @routes.route(
            f"{base}/{{id}}/edit",
            *(("PATCH", "PUT") if resource.put else ("PATCH",)),
            contract=Contract("edit", resource),
            access=(Need(kind, Action.EDIT, "id"),),
        )
        def edit(request: ApiRequest, ctx: Context, id: str) -> Answer:
            doc, was_created = writes.edit(resource, id, request.body, ctx, replace=request.method == "PUT")
            return created(resource, doc, ctx) if was_created else single(resource, doc, ctx)

    if "delete" in operations:

        @routes.route(
            f"{base}/{{id}}/delete",
            "DELETE",
            contract=Contract("delete", resource),
            access=(Need(kind, Action.DELETE, "id"),),
        )
        def delete(request: ApiRequest, ctx: Context, id: str) -> Answer:
            doc = writes.delete(resource, id, ctx)
            reply = single(resource, doc, ctx)
            reply.body[resource.singular]["id"] = None
            return reply
