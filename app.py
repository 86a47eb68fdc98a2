"""The Chalice application: the API blueprints under /api."""
from chalice import Chalice

from chalicelib.api.blueprints import API_BLUEPRINTS

app = Chalice(app_name="mautic")
for _blueprint in API_BLUEPRINTS:
    app.register_blueprint(_blueprint, url_prefix="/api")
