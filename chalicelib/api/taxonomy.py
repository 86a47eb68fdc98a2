"""Tags and categories."""

from chalicelib.api import standard
from chalicelib.api.routing import Routes
from chalicelib.domain.kernel.basics import CATEGORY, TAG

routes = Routes("taxonomy")
standard.install(routes, TAG)
standard.install(routes, CATEGORY)
blueprint = routes.blueprint()
