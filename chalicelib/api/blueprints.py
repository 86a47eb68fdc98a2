"""Every route table and Blueprint of the service: the API under /api; the OAuth and public endpoints
at the root; the OpenAPI document of them all at /api/openapi.json."""

from chalicelib.api import (
    automations,
    batch,
    campaigns,
    channels,
    contacts,
    contract,
    dashboard,
    emails,
    files,
    form_embed,
    landing_pages,
    marketing,
    movein,
    oauth1_endpoints,
    oauth2_endpoints,
    page_tests,
    password_reset,
    points,
    public,
    reports,
    segments,
    site_tracking,
    stages,
    stats,
    taxonomy,
    themes,
    tracking,
    users,
    webhooks,
)

# Each family of routes, once: its table (`routes`) feeds the OpenAPI document and its Blueprint the app.
API_FAMILIES = (
    contacts,
    marketing,
    segments,
    channels,
    points,
    webhooks,
    taxonomy,
    users,
    batch,
    files,
    automations,
    campaigns,
    emails,
    stats,
    stages,
    reports,
    dashboard,
    themes,
    page_tests,
    movein,
)
PUBLIC_FAMILIES = (
    oauth2_endpoints,
    oauth1_endpoints,
    password_reset,
    public,
    form_embed,
    tracking,
    site_tracking,
    landing_pages,
)
API_ROUTES = tuple(m.routes for m in API_FAMILIES)
TABLES = tuple(("/api", r) for r in API_ROUTES) + tuple(("", m.routes) for m in PUBLIC_FAMILIES)
CONTRACT_ROUTES, openapi_document = contract.install(TABLES)  # openapi_document(base_url): `make openapi`

API_BLUEPRINTS = tuple(m.blueprint for m in API_FAMILIES) + (CONTRACT_ROUTES.blueprint(),)
PUBLIC_BLUEPRINTS = tuple(m.blueprint for m in PUBLIC_FAMILIES)
