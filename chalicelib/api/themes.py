"""Mautic's theme API: `GET /themes`, `GET /themes/<theme>` (the zip), `POST /themes/new` (a
multipart zip named `file`), `DELETE /themes/<theme>/delete`."""

from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Holds
from chalicelib.api.routing import Answer, Reply, Routes
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.views import themes

routes = Routes("themes")


@routes.route("/themes", "GET", access=(Holds("core:themes:view"),))
def list_themes(request: ApiRequest, ctx: Context) -> Answer:
    """The installed themes."""
    return themes.listing()


@routes.route("/themes/new", "POST", access=(Holds("core:themes:create"),))
def install(request: ApiRequest, ctx: Context) -> Answer:
    """Install a theme from the multipart zip `file`."""
    request.body  # noqa: B018 - parsing the multipart body fills request.files
    return themes.install(request.files.get("file") or next(iter(request.files.values()), None))


@routes.route("/themes/{theme}", "GET", access=(Holds("core:themes:view"),), media="application/zip")
def download(request: ApiRequest, ctx: Context, theme: str) -> Answer:
    """A theme as a zip."""
    data, name = themes.archive(theme)
    return Reply(data, 200, {"Content-Disposition": f'attachment; filename="{name}"'}, "application/zip")


@routes.route("/themes/{theme}/delete", "DELETE", access=(Holds("core:themes:delete"),))
def delete(request: ApiRequest, ctx: Context, theme: str) -> Answer:
    """Delete a theme."""
    return themes.delete(theme)


blueprint = routes.blueprint()
