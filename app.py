"""The Chalice application: the API blueprints under /api, the OAuth endpoints under /oauth."""
from chalice import Chalice

from chalicelib.api.blueprints import API_BLUEPRINTS, PUBLIC_BLUEPRINTS

app = Chalice(app_name="mautic")
for _blueprint in API_BLUEPRINTS:
    app.register_blueprint(_blueprint, url_prefix="/api")
for _blueprint in PUBLIC_BLUEPRINTS:
    app.register_blueprint(_blueprint)
