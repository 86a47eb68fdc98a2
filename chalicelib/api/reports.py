"""Reports: the standard list, create, edit and delete of report definitions, and Mautic's
`GET /reports/<id>`, which answers the report's data (`dateFrom`, `dateTo`, `page`, `limit`)."""

from chalicelib.api import standard
from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Answer, Routes
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.present import present_one
from chalicelib.domain.views import reports, time_range
from chalicelib.domain.views.declarations import REPORT

routes = Routes("reports")
standard.install_declared(routes)  # the resources whose declarations name this table


@routes.route("/reports/{id}", "GET", access=(Need("report", Action.VIEW, "id"),))
def report_data(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """The report's rows in the asked range and page, with the definition under `report`."""
    report = service.load(REPORT, id, ctx)
    query = request.query
    page = standard.int_param(query, "page", 1, minimum=1)
    answer = reports.run(report, time_range.parse(query), page, standard.int_param(query, "limit", 0), ctx)
    answer["report"] = present_one(REPORT, report, ctx)
    return answer


blueprint = routes.blueprint()
