"""Every Blueprint of the service: the API under /api; the OAuth and public endpoints at the root."""
from chalicelib.api import automations, batch, channels, contacts, emails, files, marketing, oauth1_endpoints, \
    oauth2_endpoints, points, public, segments, stats, taxonomy, tracking, users, webhooks
from chalicelib.domain import wiring  # noqa: F401 - installs the registry and the subscriber table

API_BLUEPRINTS = (contacts.blueprint, marketing.blueprint, segments.blueprint, channels.blueprint, points.blueprint,
                  webhooks.blueprint, taxonomy.blueprint, users.blueprint, batch.blueprint, files.blueprint,
                  automations.blueprint, emails.blueprint, stats.blueprint)
PUBLIC_BLUEPRINTS = (oauth2_endpoints.blueprint, oauth1_endpoints.blueprint, public.blueprint, tracking.blueprint)
