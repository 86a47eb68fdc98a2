"""Tags and categories."""

from chalicelib.api import standard
from chalicelib.api.routing import Routes

routes = Routes("taxonomy")
standard.install_declared(routes)  # the resources whose declarations name this table
blueprint = routes.blueprint()
