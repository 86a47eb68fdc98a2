"""Every Blueprint of the service: the API under /api, the OAuth endpoints at the root."""
from chalicelib.api import batch, channels, contacts, marketing, oauth1_endpoints, oauth2_endpoints, points, segments, \
    taxonomy, users, webhooks

API_BLUEPRINTS = (contacts.blueprint, marketing.blueprint, segments.blueprint, channels.blueprint, points.blueprint,
                  webhooks.blueprint, taxonomy.blueprint, users.blueprint, batch.blueprint)
PUBLIC_BLUEPRINTS = (oauth2_endpoints.blueprint, oauth1_endpoints.blueprint)
