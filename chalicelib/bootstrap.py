"""The house assembled (`assemble`: every resource in the registry, the subscriber table) and the first
start: Mautic's default custom fields and standard reports, the API settings and the administrator.

Assembling imports no capability (the registry and the table import each when first used: a worker's
cold start); the first start's seeds import theirs when they run."""

import importlib
import secrets
from typing import Any

from chalicelib.domain import wiring
from chalicelib.domain.kernel import batching, registry, service, subscribers
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Resource

# Every declarations module of the API and the kinds it declares: the domain's capabilities'
# (`domain/wiring.py`) and auth's (users, roles).
DECLARATIONS: dict[str, tuple[str, ...]] = {**wiring.CAPABILITIES, "chalicelib.auth.declarations": ("user", "role")}
_ready: list[bool] = []


def resources() -> tuple[Resource, ...]:
    """Every resource of the API, in route order (imports every declarations module)."""
    return tuple(r for module in DECLARATIONS for r in importlib.import_module(module).RESOURCES)


def assemble() -> None:
    """Install the registry's index and the subscriber table: what each composition root (`app.py`, the
    command line, the local stack, the tests, a worker's first message, the first start below) calls
    before it serves, rather than a side effect of importing a module. Installing again changes nothing."""
    registry.install(DECLARATIONS)
    subscribers.install(wiring.SUBSCRIBERS)


def seed_fields() -> None:
    """Create the default contact and company fields if they were never created: each object's in
    one batch of creates, its ids reserved with one UpdateItem (`kernel/batching.py`)."""
    from chalicelib.domain.contacts import custom_fields
    from chalicelib.domain.contacts.declarations import COMPANY_FIELD, CONTACT_FIELD

    kinds = {"lead": CONTACT_FIELD, "company": COMPANY_FIELD}

    def create(object_name: str, rows: list[tuple[dict[str, Any], bool]]) -> None:
        resource = kinds[object_name]
        with batching.prepared(resource, [payload for payload, _ in rows], Context(), group=True):
            for payload, fixed in rows:
                with batching.item(_refused):
                    service.create(resource, payload, Context(), system={"isFixed": fixed})

    custom_fields.seed_defaults(create)


def _refused(error: Exception) -> None:
    raise error


def seed_reports() -> None:
    """Create Mautic's standard reports (ids 1 to 5) on a new instance, as system reports."""
    from chalicelib.domain.views import default_reports
    from chalicelib.domain.views.declarations import REPORT

    default_reports.seed_defaults(lambda payload: service.create(REPORT, payload, Context(), system={"system": True}))


def first_start() -> None:
    """Default fields, reports and settings (with the signing key), if they do not exist yet; the
    registry and the subscriber table first, which its writes go through."""
    from chalicelib.auth import settings

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
    """Create the administrator when no user exists. Returns the generated password, if one was made.
    `password` may be a `passwords.Hashed` (`ADMIN_PASSWORD_HASH`): stored as it is, no hashing."""
    from chalicelib.auth import users

    assemble()
    if users.count() > 0:
        return None
    secret = password or secrets.token_urlsafe(12)
    users.create_user(username, secret, first_name="Admin", last_name="User")
    return None if password else secret
