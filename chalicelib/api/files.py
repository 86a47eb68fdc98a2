"""Files in the S3 bucket: `/files/images` (with `subdir`) and `/files/assets` (or `media`)."""

from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Answer, Routes
from chalicelib.domain.kernel import files
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context

routes = Routes("files")


@routes.route("/files/{dir}", "GET", access=(Need("asset", Action.VIEW),))
def list_files(request: ApiRequest, ctx: Context, dir: str) -> Answer:
    """The files of a folder (`images` with `subdir`, or `assets`)."""
    return files.listing(dir, request.query.get("subdir"))


@routes.route("/files/{dir}/new", "POST", access=(Need("asset", Action.CREATE),))
def upload(request: ApiRequest, ctx: Context, dir: str) -> Answer:
    """Store the multipart `file` in a folder; its `file` record."""
    request.body  # noqa: B018 - parsing the multipart body fills request.files
    part = request.files.get("file") or next(iter(request.files.values()), None)
    return files.upload(dir, request.query.get("subdir"), part, ctx.base_url)


@routes.route("/files/{dir}/{file}/delete", "DELETE", access=(Need("asset", Action.DELETE),))
def delete(request: ApiRequest, ctx: Context, dir: str, file: str) -> Answer:
    """Delete a file of a folder."""
    return files.delete(dir, request.query.get("subdir"), file)


blueprint = routes.blueprint()
