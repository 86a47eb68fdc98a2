"""Helpers for families whose resources own nested collections."""

from chalicelib.api.route_needs import Need
from chalicelib.api.standard import single
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.access import Action


def install_nested_delete(routes, resource, collection):
    """`DELETE /<prefix>/<id>/<collection>/delete?<collection>[]=<item id>...`"""

    @routes.route(
        f"/{resource.prefix}/{{id}}/{collection}/delete", "DELETE", access=(Need(resource.kind, Action.EDIT, "id"),)
    )
    def delete_items(request, ctx, id):
        ids = request.query.get(collection) or request.query.get(f"{collection}[]") or []
        return single(resource, service.remove_nested(resource, id, collection, ids, ctx), ctx)
