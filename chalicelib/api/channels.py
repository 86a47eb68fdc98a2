"""Channels and content: emails, text messages, notifications, tweets, dynamic content, pages, assets,
focus items (with the script that shows one) and marketing messages."""

from chalicelib.api import standard
from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Answer, Routes
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.web import focus
from chalicelib.domain.web.declarations import FOCUS

routes = Routes("channels")
standard.install_declared(routes)  # the resources whose declarations name this table


@routes.route("/focus/{id}/js", "GET", "POST", access=(Need("focus", Action.VIEW, "id"),))
def focus_script(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """The script that shows the focus item on a page (POST is Mautic's method), with its view pixel and
    tracked link."""
    return {"js": focus.script(service.load(FOCUS, id), ctx.base_url)}


blueprint = routes.blueprint()
