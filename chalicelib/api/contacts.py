"""Contacts (with their actions, timeline, notes, devices and companies), companies, custom field
definitions and company addresses."""

import copy

from chalicelib.api import standard
from chalicelib.api.request import ApiRequest
from chalicelib.api.route_needs import Holds, Need
from chalicelib.api.routing import Answer, Routes
from chalicelib.auth import users
from chalicelib.domain.contacts import contact_actions as actions
from chalicelib.domain.contacts import contact_categories, devices
from chalicelib.domain.contacts.custom_fields import definitions
from chalicelib.domain.contacts.declarations import (
    COMPANY,
    CONTACT,
    NOTE,
)
from chalicelib.domain.kernel import references, service
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.validation import payload_object
from chalicelib.domain.privacy import export
from chalicelib.domain.segments import segment_actions

routes = Routes("contacts")
FIELD_KEYS = (
    "id",
    "label",
    "alias",
    "type",
    "group",
    "order",
    "object",
    "defaultValue",
    "isRequired",
    "isPubliclyUpdatable",
    "isUniqueIdentifier",
    "properties",
    "isFixed",
    "isListable",
    "isVisible",
    "isShortVisible",
)
standard.install_declared(routes)  # the resources whose declarations name this table


@routes.route(
    "/contacts/list/owners", "GET", access=(Holds("lead:leads:create", "lead:leads:editown", "lead:leads:editother"),)
)
def owners(request: ApiRequest, ctx: Context) -> Answer:
    """The users who may own contacts: a bare array of {id, firstName, lastName} (compat 16.1)."""
    return [{"id": u["id"], "firstName": u.get("firstName"), "lastName": u.get("lastName")} for u in users.active()]


@routes.route("/contacts/{id}/points/{operator}/{delta}", "POST", access=(Need("contact", Action.EDIT, "id"),))
def points(request: ApiRequest, ctx: Context, id: str, operator: str, delta: str) -> Answer:
    """Add to, subtract from or set the contact's points (`eventName`, `actionName` in the body)."""
    actions.change_points(CONTACT, id, operator, delta, payload_object(request.body), ctx)
    return {"success": 1}


@routes.route("/contacts/{id}/dnc/{channel}/add", "POST", access=(Need("contact", Action.EDIT, "id"),))
def add_dnc(request: ApiRequest, ctx: Context, id: str, channel: str) -> Answer:
    """Mark the contact do-not-contact on a channel."""
    return standard.single(CONTACT, actions.add_dnc(CONTACT, id, channel, payload_object(request.body), ctx), ctx)


@routes.route("/contacts/{id}/dnc/{channel}/remove", "POST", access=(Need("contact", Action.EDIT, "id"),))
def remove_dnc(request: ApiRequest, ctx: Context, id: str, channel: str) -> Answer:
    """Lift the contact's do-not-contact on a channel."""
    return standard.single(CONTACT, actions.remove_dnc(CONTACT, id, channel, payload_object(request.body), ctx), ctx)


@routes.route("/contacts/{id}/utm/add", "POST", access=(Need("contact", Action.EDIT, "id"),))
def add_utm(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """Add a set of UTM tags to the contact."""
    return standard.single(CONTACT, actions.add_utm(CONTACT, id, payload_object(request.body), ctx), ctx)


@routes.route("/contacts/{id}/utm/{utm_id}/remove", "POST", access=(Need("contact", Action.EDIT, "id"),))
def remove_utm(request: ApiRequest, ctx: Context, id: str, utm_id: str) -> Answer:
    """Remove one of the contact's UTM tag sets."""
    return standard.single(CONTACT, actions.remove_utm(CONTACT, id, utm_id, ctx), ctx)


@routes.route(
    "/companies/{id}/contact/{contact_id}/add",
    "POST",
    access=(Need("company", Action.VIEW, "id"), Need("contact", Action.EDIT, "contact_id")),
)
def add_to_company(request: ApiRequest, ctx: Context, id: str, contact_id: str) -> Answer:
    """Add the contact to the company."""
    actions.add_to_company(CONTACT, COMPANY, id, contact_id, ctx)
    return {"success": 1}


@routes.route(
    "/companies/{id}/contact/{contact_id}/remove",
    "POST",
    access=(Need("company", Action.VIEW, "id"), Need("contact", Action.EDIT, "contact_id")),
)
def remove_from_company(request: ApiRequest, ctx: Context, id: str, contact_id: str) -> Answer:
    """Take the contact out of the company."""
    actions.remove_from_company(CONTACT, COMPANY, id, contact_id, ctx)
    return {"success": 1}


@routes.route("/contacts/{id}/companies", "GET", access=(Need("contact", Action.VIEW, "id"),))
def companies_of_contact(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """The companies the contact belongs to."""
    return actions.contact_companies(CONTACT, COMPANY, id, ctx)


@routes.route("/contacts/{id}/segments", "GET", access=(Need("contact", Action.VIEW, "id"),))
def segments_of_contact(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """The segments the contact is a member of."""
    return segment_actions.of_contact(id, ctx)


@routes.route("/contacts/{id}/categories", "GET", access=(Need("contact", Action.VIEW, "id"),))
def categories_of_contact(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """The contact's category subscriptions (Mautic's `lead_categories`), unsubscribed ones included."""
    return contact_categories.of_contact(id, ctx)


@routes.route("/contacts/{id}/categories/{category_id}/add", "POST", access=(Need("contact", Action.EDIT, "id"),))
def add_category(request: ApiRequest, ctx: Context, id: str, category_id: str) -> Answer:
    """Subscribe the contact to a category (a row `manuallyAdded`)."""
    contact_categories.set_one(id, category_id, True, ctx)
    return {"success": True}


@routes.route("/contacts/{id}/categories/{category_id}/remove", "POST", access=(Need("contact", Action.EDIT, "id"),))
def remove_category(request: ApiRequest, ctx: Context, id: str, category_id: str) -> Answer:
    """Unsubscribe the contact from a category (its row `manuallyRemoved`): its emails skip it."""
    contact_categories.set_one(id, category_id, False, ctx)
    return {"success": True}


@routes.route("/contacts/{id}/devices", "GET", access=(Need("contact", Action.VIEW, "id"),))
def devices_of_contact(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """The contact's devices."""
    return devices.of_contact(CONTACT, id)


@routes.route("/contacts/{id}/notes", "GET", access=(Need("contact", Action.VIEW, "id"),))
def notes_of_contact(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """The contact's notes with the list parameters (search, start, limit, orderBy, orderByDir)."""
    contact = service.load(CONTACT, id)
    references.remember(CONTACT.kind, contact, ctx)  # each note's `lead`
    search = request.query.get("search")
    scoped = copy.copy(request)
    scoped.query = dict(request.query, search=f"lead:{contact['id']}" + (f" ({search})" if search else ""))
    return standard.list_reply(NOTE, scoped, ctx)


@routes.route("/contacts/list/fields", "GET", access=(Holds("lead:leads:editown", "lead:leads:editother"),))
def contact_fields(request: ApiRequest, ctx: Context) -> Answer:
    """Contact field definitions keyed by id (compat 8.5)."""
    return {str(f["id"]): {key: f.get(key) for key in FIELD_KEYS} for f in definitions("lead", ctx)}


@routes.route("/contacts/activity", "GET", access=(Holds("lead:leads:viewother"),))
def all_activity(request: ApiRequest, ctx: Context) -> Answer:
    """All contacts' events (compat 9.1), with the per-contact endpoint's filters and paging."""
    return actions.all_activity(request.query)


@routes.route("/contacts/list/segments", "GET", access=(Need("segment", Action.VIEW),))
def user_segments(request: ApiRequest, ctx: Context) -> Answer:
    """The published segments the caller may add contacts to, by id."""
    return segment_actions.user_segments(ctx)


@routes.route("/contacts/{id}/activity", "GET", access=(Need("contact", Action.VIEW, "id"),))
def activity(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """The contact's events (compat 9.1), with filters and paging."""
    return actions.activity(CONTACT, id, request.query)


@routes.route("/contacts/{id}/events", "GET", access=(Need("contact", Action.VIEW, "id"),))
def events(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """Deprecated alias of activity."""
    return actions.activity(CONTACT, id, request.query)


@routes.route("/contacts/{id}/export", "GET", access=(Need("contact", Action.VIEW, "id"),))
def export_contact(request: ApiRequest, ctx: Context, id: str) -> Answer:
    """Everything held about the contact, as one JSON document (data portability; docs/privacy.md)."""
    return export.export(id, ctx)


blueprint = routes.blueprint()
