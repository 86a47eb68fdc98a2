"""The house assembled (`assemble`: every resource in the registry, the subscriber table) and the first
start: Mautic's default custom fields and standard reports, the API settings and the administrator."""

import secrets
from typing import Any

from chalicelib.auth import declarations as auth_declarations
from chalicelib.auth import settings, users
from chalicelib.domain import wiring
from chalicelib.domain.contacts import custom_fields
from chalicelib.domain.contacts.declarations import COMPANY_FIELD, CONTACT_FIELD
from chalicelib.domain.kernel import registry, service, subscribers
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.views import default_reports
from chalicelib.domain.views.declarations import REPORT

# Every resource of the API: the domain's capabilities' (`domain/wiring.py`) and auth's (users, roles).
RESOURCES = wiring.RESOURCES + auth_declarations.RESOURCES
_ready: list[bool] = []


def assemble() -> None:
    """Register every resource and install the subscriber table: what each composition root (`app.py`,
    the command line, the local stack, the tests, the first start below) calls before it serves,
    rather than a side effect of importing a module. Installing again changes nothing."""
    registry.install(RESOURCES)
    subscribers.install(wiring.SUBSCRIBERS)


def seed_fields() -> None:
    """Create the default contact and company fields if they were never created."""
    kinds = {"lead": CONTACT_FIELD, "company": COMPANY_FIELD}

    def create(object_name: str, payload: dict[str, Any], fixed: bool) -> None:
        service.create(kinds[object_name], payload, Context(), system={"isFixed": fixed})

    custom_fields.seed_defaults(create)


def seed_reports() -> None:
    """Create Mautic's standard reports (ids 1 to 5) on a new instance, as system reports."""
    default_reports.seed_defaults(lambda payload: service.create(REPORT, payload, Context(), system={"system": True}))


def first_start() -> None:
    """Default fields, reports and settings (with the signing key), if they do not exist yet; the
    registry and the subscriber table first, which its writes go through."""
    assemble()
    seed_fields()
    seed_reports()
    settings.ensure()


def ensure_ready() -> None:
    """Run the first-start checks once per process (three GetItems on a cold start once seeded)."""
    if not _ready:
        first_start()
        _ready.append(True)


def ensure_admin(username: str, password: str | None = None) -> str | None:
    """Create the administrator when no user exists. Returns the generated password, if one was made."""
    assemble()
    if users.count() > 0:
        return None
    secret = password or secrets.token_urlsafe(12)
    users.create_user(username, secret, first_name="Admin", last_name="User")
    return None if password else secret
