"""Segments, automations and forms (with their submissions): who is targeted and how they enter."""

from chalicelib.api import downloads, standard
from chalicelib.api.collections import install_nested_delete
from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Answer, Routes
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.web import submissions
from chalicelib.domain.web.declarations import FORM

routes = Routes("marketing")
standard.install_declared(routes)  # the resources whose declarations name this table
install_nested_delete(routes, FORM, "fields")
install_nested_delete(routes, FORM, "actions")


@routes.route("/forms/{id}/submissions", "GET", access=(Need("form", Action.VIEW, "id"),))
def form_submissions(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """The form's submissions, with the list parameters."""
    return submissions.listing(id, standard.list_query(request.query), ctx)


@routes.route(
    "/forms/{id}/submissions/contact/{contact_id}",
    "GET",
    access=(Need("form", Action.VIEW, "id"), Need("contact", Action.VIEW, "contact_id")),
)
def contact_submissions(request: ApiRequest, ctx: Context, id: str, contact_id: str) -> Answer:
    """The form's submissions by one contact."""
    contact = service.load(CONTACT, contact_id)
    return submissions.listing(id, standard.list_query(request.query), ctx, contact_id=contact["id"])


@routes.route("/forms/{id}/submissions/{submission_id}", "GET", access=(Need("form", Action.VIEW, "id"),))
def one_submission(request: ApiRequest, ctx: Context, id: str, submission_id: str) -> Answer:
    """One submission of the form."""
    return {"submission": submissions.one(id, submission_id, ctx)}


@routes.route(
    "/forms/{id}/submissions/{submission_id}/files/{field}",
    "GET",
    access=(Need("form", Action.VIEW, "id"),),
    media="*/*",
)
def submission_file(request: ApiRequest, ctx: Context, id: str, submission_id: str, field: str) -> Answer:
    """The file a submission holds for a `file` field, as an attachment (the submission's contact must be
    one the caller may view: domain/web/submissions.py `uploaded_file`)."""
    data, mime, name = submissions.uploaded_file(id, submission_id, field, ctx)
    return downloads.attachment(data, mime, name)


blueprint = routes.blueprint()
