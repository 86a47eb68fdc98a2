"""Contacts, companies, their custom field definitions and company addresses."""
from chalicelib.api import standard
from chalicelib.api.routing import Routes
from chalicelib.auth import users
from chalicelib.domain.registry import ADDRESS, COMPANY, COMPANY_FIELD, CONTACT, CONTACT_FIELD

routes = Routes("contacts")
for _resource in (CONTACT, COMPANY, CONTACT_FIELD, COMPANY_FIELD, ADDRESS):
    standard.install(routes, _resource)


@routes.route("/contacts/list/owners", "GET")
def owners(request, ctx):
    """The users who may own contacts: a bare array of {id, firstName, lastName} (compat 16.1)."""
    return [{"id": u["id"], "firstName": u.get("firstName"), "lastName": u.get("lastName")} for u in users.active()]


blueprint = routes.blueprint()
