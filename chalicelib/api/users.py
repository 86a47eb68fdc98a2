"""Users and roles: the current user (`/users/self`, unwrapped as Mautic answers it), users'
CRUD (tokens revoked when a user is deleted, disabled or given a new password), what a user's
role grants (`permissioncheck`), the roles' lookup list, and the roles' standard routes."""

from chalicelib.api import standard
from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import OPEN, Holds, Need
from chalicelib.api.routing import Answer, Contract, Routes
from chalicelib.auth import users
from chalicelib.auth.declarations import ROLE, USER
from chalicelib.domain.kernel import access, cached, service
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import invalid
from chalicelib.domain.kernel.present import present_one

routes = Routes("users")
standard.install_declared(routes)  # the resources whose declarations name this table


@routes.route("/users/self", "GET", access=OPEN)
def current_user(request: ApiRequest, ctx: Context) -> Answer:
    """The caller's own user, unwrapped."""
    return present_one(USER, service.load(USER, ctx.user_id), ctx)


@routes.route("/users", "GET", contract=Contract("list", USER), access=(Need("user", Action.VIEW),))
def list_users(request: ApiRequest, ctx: Context) -> Answer:
    """The users, with the list parameters."""
    return standard.list_reply(USER, request, ctx)


@routes.route("/users/{id}", "GET", contract=Contract("get", USER), access=(Need("user", Action.VIEW),))
def get_user(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """One user."""
    return standard.single(USER, service.load(USER, id), ctx)


@routes.route("/users/new", "POST", contract=Contract("create", USER), access=(Need("user", Action.CREATE),))
def create_user(request: ApiRequest, ctx: Context) -> Answer:
    """Create a user (201)."""
    doc, _ = service.create(USER, request.body, ctx)
    return standard.created(USER, doc, ctx)


@routes.route(
    "/users/{id}/edit", "PATCH", "PUT", contract=Contract("edit", USER), access=(Need("user", Action.EDIT, "id"),)
)
def edit_user(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """PATCH or PUT a user; a new password, role or a disabling revokes the user's tokens."""
    doc, was_created = users.edit_user(id, request.body, ctx, replace=request.method == "PUT")
    return standard.created(USER, doc, ctx) if was_created else standard.single(USER, doc, ctx)


@routes.route(
    "/users/{id}/delete", "DELETE", contract=Contract("delete", USER), access=(Need("user", Action.DELETE, "id"),)
)
def delete_user(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """Delete a user and revoke the tokens issued to them."""
    reply = standard.single(USER, users.delete_user(id, ctx), ctx)
    reply.body["user"]["id"] = None
    return reply


@routes.route("/users/{id}/permissioncheck", "POST", access=(Need("user", Action.VIEW),))
def permission_check(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """{"bundle:level:permission": granted} for `permissions` (a string or an array)."""
    wanted = (request.body or {}).get("permissions") if isinstance(request.body, dict) else None
    names = [wanted] if isinstance(wanted, str) else wanted
    if not names or not isinstance(names, list) or not all(isinstance(name, str) and name for name in names):
        raise invalid("permissions", "At least one permission must be submitted.")
    return access.checked(service.load(USER, id), names, ctx)


@routes.route("/users/list/roles", "GET", access=(Holds("user:users:create", "user:users:edit"),))
def role_list(request: ApiRequest, ctx: Context) -> Answer:
    """The roles a user may be given: a bare array of `id` and `name`."""
    return [{"id": role["id"], "name": role.get("name")} for role in cached.documents(ROLE.kind, ctx)]


blueprint = routes.blueprint()
