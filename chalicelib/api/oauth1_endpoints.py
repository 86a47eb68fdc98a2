"""Public oauth1 endpoints under /oauth (no /api authentication)."""
from chalicelib.api.routing import Routes

routes = Routes("oauth1_endpoints", authenticated=False)
blueprint = routes.blueprint()
