"""Helpers for families whose resources own nested collections."""

from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Answer, Routes
from chalicelib.api.standard import single
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Resource


def install_nested_delete(routes: Routes, resource: Resource, collection: str) -> None:
    """`DELETE /<prefix>/<id>/<collection>/delete?<collection>[]=<item id>...`"""

    @routes.route(
        f"/{resource.prefix}/{{id}}/{collection}/delete", "DELETE", access=(Need(resource.kind, Action.EDIT, "id"),)
    )
    def delete_items(request: ApiRequest, ctx: Context, id: str) -> Answer:
        ids = request.query.get(collection) or request.query.get(f"{collection}[]") or []
        return single(resource, service.remove_nested(resource, id, collection, ids, ctx), ctx)
