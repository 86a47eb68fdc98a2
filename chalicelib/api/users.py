"""Users: the current user (`/users/self`, unwrapped as Mautic answers it), the list, one user."""
from chalicelib.api import standard
from chalicelib.api.routing import Routes
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.basics import USER
from chalicelib.domain.kernel.present import present_one

routes = Routes("users")


@routes.route("/users/self", "GET")
def current_user(request, ctx):
    return present_one(USER, service.load(USER, ctx.user_id), ctx)


@routes.route("/users", "GET")
def list_users(request, ctx):
    return standard.list_reply(USER, request, ctx)


@routes.route("/users/{id}", "GET")
def get_user(request, ctx, id):
    return standard.single(USER, service.load(USER, id), ctx)


blueprint = routes.blueprint()
