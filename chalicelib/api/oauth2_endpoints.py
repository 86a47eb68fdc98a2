"""Public oauth2 endpoints under /oauth (no /api authentication)."""
from chalicelib.api.routing import Routes

routes = Routes("oauth2_endpoints", authenticated=False)
blueprint = routes.blueprint()
