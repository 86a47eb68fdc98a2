"""Automation membership and copies (compat 1.8 and 10.5 shapes): add/remove a contact by hand,
the automation's contacts, a contact's automations, clone; the events on their own and a contact's
event log (Mautic's EventApiController and EventLogApiController)."""

from chalicelib.api import standard
from chalicelib.api.route_needs import Need
from chalicelib.api.routing import Reply, Routes
from chalicelib.domain.automations import automations, event_logs, journeys
from chalicelib.domain.automations.declarations import AUTOMATION
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.access import Action

routes = Routes("automations")
MEMBERS_LIMIT = 100


@routes.route(
    "/automations/clone/{id}", "POST", access=(Need("automation", Action.CREATE), Need("automation", Action.VIEW, "id"))
)
def clone_automation(request, ctx, id):
    return standard.created(AUTOMATION, automations.clone(id, ctx), ctx)


@routes.route(
    "/automations/{id}/contact/{contact_id}/add",
    "POST",
    access=(Need("automation", Action.VIEW, "id"), Need("contact", Action.EDIT, "contact_id")),
)
def add_to_automation(request, ctx, id, contact_id):
    automations.change_member(id, contact_id, True, ctx)
    return {"success": 1}


@routes.route(
    "/automations/{id}/contact/{contact_id}/remove",
    "POST",
    access=(Need("automation", Action.VIEW, "id"), Need("contact", Action.EDIT, "contact_id")),
)
def remove_from_automation(request, ctx, id, contact_id):
    automations.change_member(id, contact_id, False, ctx)
    return {"success": 1}


@routes.route("/automations/{id}/contacts", "GET", access=(Need("automation", Action.VIEW, "id"),))
def automation_contacts(request, ctx, id):
    query = standard.list_query(dict(request.query, limit=request.query.get("limit") or MEMBERS_LIMIT))
    return automations.members(id, query.start, query.limit or MEMBERS_LIMIT, ctx)


@routes.route("/contacts/{id}/automations", "GET", access=(Need("contact", Action.VIEW, "id"),))
def contact_automations(request, ctx, id):
    return journeys.contact_automations(service.load(CONTACT, id), ctx)


@routes.route("/automations/events", "GET", access=(Need("automation", Action.VIEW),))
def events(request, ctx):
    return event_logs.listing(standard.list_query(request.query), ctx)


@routes.route("/automations/events/{id}", "GET", access=(Need("automation", Action.VIEW),))
def event(request, ctx, id):
    return event_logs.one(id, ctx)


@routes.route(
    "/automations/{id}/events/contact/{contact_id}",
    "GET",
    access=(Need("automation", Action.VIEW, "id"), Need("contact", Action.VIEW, "contact_id")),
)
def contact_events(request, ctx, id, contact_id):
    return event_logs.contact_log(id, contact_id, ctx)


@routes.route(
    "/automations/events/{id}/contact/{contact_id}/edit",
    "PUT",
    access=(Need("automation", Action.EDIT), Need("contact", Action.EDIT, "contact_id")),
)
def edit_contact_event(request, ctx, id, contact_id):
    """201 when the contact had no run of the event and one is scheduled, else 200."""
    answer, created = event_logs.edit_contact_event(id, contact_id, request.body, ctx)
    return Reply(answer, 201 if created else 200)


blueprint = routes.blueprint()
