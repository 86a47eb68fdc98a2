"""Automation membership and copies (compat 1.8 and 10.5 shapes): add/remove a contact by hand,
the automation's contacts, a contact's automations, clone; the events on their own and a contact's
event log (Mautic's EventApiController and EventLogApiController)."""

from chalicelib.api import batch, standard
from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Answer, Reply, Routes
from chalicelib.domain.automations import automations, event_logs, journey_items
from chalicelib.domain.automations import contact_events as logs_across
from chalicelib.domain.automations.declarations import AUTOMATION
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc

routes = Routes("automations")
MEMBERS_LIMIT = 100


@routes.route(
    "/automations/clone/{id}", "POST", access=(Need("automation", Action.CREATE), Need("automation", Action.VIEW, "id"))
)
def clone_automation(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """A copy of the automation with its whole event graph, unpublished (201)."""
    return standard.created(AUTOMATION, automations.clone(id, ctx), ctx)


@routes.route(
    "/automations/{id}/contact/{contact_id}/add",
    "POST",
    access=(Need("automation", Action.VIEW, "id"), Need("contact", Action.EDIT, "contact_id")),
)
def add_to_automation(request: ApiRequest, ctx: Context, id: str, contact_id: str) -> Answer:
    """Add the contact to the automation by hand."""
    automations.change_member(id, contact_id, True, ctx)
    return {"success": 1}


@routes.route(
    "/automations/{id}/contact/{contact_id}/remove",
    "POST",
    access=(Need("automation", Action.VIEW, "id"), Need("contact", Action.EDIT, "contact_id")),
)
def remove_from_automation(request: ApiRequest, ctx: Context, id: str, contact_id: str) -> Answer:
    """Take the contact out of the automation."""
    automations.change_member(id, contact_id, False, ctx)
    return {"success": 1}


@routes.route("/automations/{id}/contacts", "GET", access=(Need("automation", Action.VIEW, "id"),))
def automation_contacts(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """The automation's contacts, paged by `start` and `limit`."""
    query = standard.list_query(dict(request.query, limit=request.query.get("limit") or MEMBERS_LIMIT))
    return automations.members(id, query.start, query.limit or MEMBERS_LIMIT, ctx)


@routes.route("/contacts/{id}/automations", "GET", access=(Need("contact", Action.VIEW, "id"),))
def contact_automations(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """The automations the contact is in."""
    return journey_items.contact_automations(service.load(CONTACT, id), ctx)


@routes.route("/automations/events", "GET", access=(Need("automation", Action.VIEW),))
def events(request: ApiRequest, ctx: Context) -> Answer:
    """The automations' events, with the list parameters."""
    return event_logs.listing(standard.list_query(request.query), ctx)


@routes.route("/automations/events/{id}", "GET", access=(Need("automation", Action.VIEW),))
def event(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """One automation event."""
    return event_logs.one(id, ctx)


@routes.route(
    "/automations/{id}/events/contact/{contact_id}",
    "GET",
    access=(Need("automation", Action.VIEW, "id"), Need("contact", Action.VIEW, "contact_id")),
)
def contact_events(request: ApiRequest, ctx: Context, id: str, contact_id: str) -> Answer:
    """The contact's event log in the automation."""
    return event_logs.contact_log(id, contact_id, ctx)


@routes.route(
    "/automations/events/{id}/contact/{contact_id}/edit",
    "PUT",
    access=(Need("automation", Action.EDIT), Need("contact", Action.EDIT, "contact_id")),
)
def edit_contact_event(request: ApiRequest, ctx: Context, id: str, contact_id: str) -> Answer:
    """201 when the contact had no run of the event and one is scheduled, else 200."""
    answer, created = event_logs.edit_contact_event(id, contact_id, request.body, ctx)
    return Reply(answer, 201 if created else 200)


@routes.route(
    "/automations/events/contact/{contact_id}",
    "GET",
    access=(Need("automation", Action.VIEW), Need("contact", Action.VIEW, "contact_id")),
)
def contact_event_log(request: ApiRequest, ctx: Context, contact_id: str) -> Answer:
    """The contact's event log across the automations the caller may view, paged by `start` and `limit`."""
    return logs_across.contact_events(contact_id, standard.list_query(request.query), ctx)


@routes.route("/automations/events/batch/edit", "PUT", access=(Need("automation", Action.EDIT),))
def edit_contact_events(request: ApiRequest, ctx: Context) -> Answer:
    """Many contacts' runs edited at once (`[{eventId, contactId, triggerDate | dateTriggered}]`), each as
    the single edit: `events` by id with their new log rows, `statusCodes` and `errors` by item."""
    outcome = logs_across.edit_many(batch.body_items(request.body), ctx)
    body: Doc = {
        "events": batch.php_array(sorted(outcome.events.items())),
        "statusCodes": batch.php_array(outcome.codes),
    }
    if outcome.errors:
        body["errors"] = batch.php_array((key, batch.item_error(error)) for key, error in outcome.errors)
    return body


blueprint = routes.blueprint()
