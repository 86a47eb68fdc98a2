"""A landing page's A/B test, as Mautic's page view shows it (docs/public-endpoints.md, "Variants,
translations and robots")."""

from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Answer, Routes
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.views import page_ab_tests

routes = Routes("page_tests")


@routes.route("/pages/{id}/abtest", "GET", access=(Need("page", Action.VIEW, "id"),))
def ab_test(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """The A/B test the page belongs to: its variants' hits, bounces and dwell times, the criteria and winners."""
    return {"abTest": page_ab_tests.results(id, ctx)}


blueprint = routes.blueprint()
