"""Segments, automations and forms: who is targeted and how they enter."""
from chalicelib.api import standard
from chalicelib.api.collections import install_nested_delete
from chalicelib.api.routing import Routes
from chalicelib.domain.registry import AUTOMATION, FORM, SEGMENT

routes = Routes("marketing")
for _resource in (SEGMENT, AUTOMATION, FORM):
    standard.install(routes, _resource)
install_nested_delete(routes, FORM, "fields")
install_nested_delete(routes, FORM, "actions")
blueprint = routes.blueprint()
