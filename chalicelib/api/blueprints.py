"""Every Blueprint of the API, in registration order."""
from chalicelib.api import channels, contacts, marketing, points, taxonomy, webhooks

API_BLUEPRINTS = (contacts.blueprint, marketing.blueprint, channels.blueprint, points.blueprint,
                  webhooks.blueprint, taxonomy.blueprint)
