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
from chalicelib.domain import wiring  # noqa: F401 - installs the registry and the subscriber table

API_ROUTES = tuple(
    m.routes
    for m in (
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
)
PUBLIC_ROUTES = tuple(
    m.routes for m in (oauth2_endpoints, oauth1_endpoints, public, form_embed, tracking, site_tracking, landing_pages)
)
TABLES = tuple(("/api", r) for r in API_ROUTES) + tuple(("", r) for r in PUBLIC_ROUTES)
CONTRACT_ROUTES, openapi_document = contract.install(TABLES)  # openapi_document(base_url): `make openapi`

API_BLUEPRINTS = (
    contacts.blueprint,
    marketing.blueprint,
    segments.blueprint,
    channels.blueprint,
    points.blueprint,
    webhooks.blueprint,
    taxonomy.blueprint,
    users.blueprint,
    batch.blueprint,
    files.blueprint,
    automations.blueprint,
    campaigns.blueprint,
    emails.blueprint,
    stats.blueprint,
    stages.blueprint,
    reports.blueprint,
    dashboard.blueprint,
    themes.blueprint,
    page_tests.blueprint,
    movein.blueprint,
    CONTRACT_ROUTES.blueprint(),
)
PUBLIC_BLUEPRINTS = (
    oauth2_endpoints.blueprint,
    oauth1_endpoints.blueprint,
    public.blueprint,
    form_embed.blueprint,
    tracking.blueprint,
    site_tracking.blueprint,
    landing_pages.blueprint,
)
