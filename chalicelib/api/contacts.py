"""Contacts, companies, their custom field definitions and company addresses."""
from chalicelib.api import standard
from chalicelib.api.routing import Routes
from chalicelib.domain.registry import ADDRESS, COMPANY, COMPANY_FIELD, CONTACT, CONTACT_FIELD

routes = Routes("contacts")
for _resource in (CONTACT, COMPANY, CONTACT_FIELD, COMPANY_FIELD, ADDRESS):
    standard.install(routes, _resource)
blueprint = routes.blueprint()
