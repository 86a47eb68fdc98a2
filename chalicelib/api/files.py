"""Files in the S3 bucket: `/files/images` (with `subdir`) and `/files/assets` (or `media`)."""

from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Routes
from chalicelib.domain.kernel import files
from chalicelib.domain.kernel.access import Action

routes = Routes("files")


@routes.route("/files/{dir}", "GET", access=(Need("asset", Action.VIEW),))
def list_files(request, ctx, dir):  # noqa: A002 - the path parameter's name
    return files.listing(dir, request.query.get("subdir"))


@routes.route("/files/{dir}/new", "POST", access=(Need("asset", Action.CREATE),))
def upload(request, ctx, dir):  # noqa: A002
    request.body  # noqa: B018 - parsing the multipart body fills request.files
    part = request.files.get("file") or next(iter(request.files.values()), None)
    return files.upload(dir, request.query.get("subdir"), part, ctx.base_url)


@routes.route("/files/{dir}/{file}/delete", "DELETE", access=(Need("asset", Action.DELETE),))
def delete(request, ctx, dir, file):  # noqa: A002
    return files.delete(dir, request.query.get("subdir"), file)


blueprint = routes.blueprint()
