"""What each `/api` route needs of the caller's role, checked before its handler runs.

Every route of an authenticated table declares it (`Routes.route(..., access=...)`): a tuple of
needs, all required. `Need(kind, action, param)` asks for the permission of the registry
resource `kind` to `action` (an `Action` of `domain/kernel/access.py`: view, edit, create, delete,
publish); with `param`, on the
document whose id is that path parameter (own/other: it is read only when the caller's role
grants one variant and not the other; an unknown id is a 404). `Holds(*names)` asks
for any one of those `bundle:level:permission` names; `ADMINISTRATOR`, an administrator's role.
`OPEN` needs nothing (the caller's own user). Batch routes check each item (`api/batch.py`), lists
show what the caller may see (`domain/kernel/listing.py`; docs/permissions.md).
"""

from collections.abc import Iterable, Mapping

from chalicelib.domain.kernel import access, registry, service
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import Forbidden, NotFound
from chalicelib.domain.kernel.resources import Resource
from chalicelib.records import by_value

OPEN: tuple[()] = ()


@by_value
class Need:
    """The permission to `action` on the registry resource `kind`; with `param`, on the document whose
    id is that path parameter."""

    kind: str
    action: Action
    param: str | None = None


class Holds:
    """Any one of the `bundle:level:permission` names."""

    def __init__(self, *names: str) -> None:
        self.names = names


class Administrator(Holds):
    """An administrator's role (`isAdmin`), for what no permission grants (a move-in's id mapping)."""

    def __init__(self) -> None:
        super().__init__()


ADMINISTRATOR = Administrator()


def check(needs: Iterable[Need | Holds], params: Mapping[str, str], ctx: Context, method: str) -> None:
    """Forbidden (403) unless the caller meets every need of the route."""
    for need in needs:
        if isinstance(need, Administrator):
            if not access.unrestricted(ctx):
                raise Forbidden()
        elif isinstance(need, Holds):
            access.require_any(ctx, need.names)
        else:
            _check_need(need, params, ctx, method)


def _check_need(need: Need, params: Mapping[str, str], ctx: Context, method: str) -> None:
    """Forbidden (403) unless the caller meets one `Need`."""
    resource = registry.resource(need.kind)
    if need.param is None:
        access.require(ctx, resource, need.action)
    else:
        check_document(resource, need.action, params.get(need.param), ctx, method)


def check_document(resource: Resource, action: Action, entity_id: object, ctx: Context, method: str) -> None:
    """Forbidden (403) unless the caller may `action` on the document `entity_id` of `resource`
    (read only when the answer depends on whose it is; an unknown id is a 404, or needs `create`
    for a PUT, which creates it)."""
    if not access.depends_on_owner(ctx, resource, action):
        access.require(ctx, resource, action)
        return
    try:
        doc = service.load(resource, entity_id, ctx)  # remembered: the handler does not read it again
    except NotFound:
        if method == "PUT" and action == Action.EDIT:
            access.require(ctx, resource, Action.CREATE)
            return
        raise
    access.require(ctx, resource, action, doc)
