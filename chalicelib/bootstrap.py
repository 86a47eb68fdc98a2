"""The composition root's pieces: AWS's adapters for the ports (`install_aws`, called by app.py and
the CLI), and the first start: Mautic's default custom fields and standard reports, the API settings
and the administrator."""

import secrets
from typing import Any

from chalicelib import aws
from chalicelib.auth import settings, users
from chalicelib.channels import http, mail, sms, sns_https
from chalicelib.domain import wiring  # noqa: F401 - the registry the first start's writes are checked against
from chalicelib.domain.contacts import custom_fields
from chalicelib.domain.contacts.declarations import COMPANY_FIELD, CONTACT_FIELD
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.views import default_reports
from chalicelib.domain.views.declarations import REPORT
from chalicelib.ports import adapters
from chalicelib.ports.clock import SystemClock
from chalicelib.store import files, idempotency, queues, tokens, window_counters

_ready: list[bool] = []


def aws_adapters() -> adapters.Adapters:
    """Every port over AWS (SQS, S3, DynamoDB counters and tokens, SES, SNS), real HTTP and the
    system clock: the modules themselves implement the ports' protocols."""
    return adapters.Adapters(
        queues=queues,
        files=files,
        window_counters=window_counters,
        tokens=tokens,
        mail=mail,
        sms=sms,
        http=http,
        certificates=sns_https,
        clock=SystemClock(),
        outages=aws,
        idempotency=idempotency,
    )


def install_aws() -> None:
    """Make AWS's adapters the ones the ports use (the Lambda functions, the CLI, the local stack)."""
    adapters.install(aws_adapters())


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
    """Default fields, reports and settings (with the signing key), if they do not exist yet."""
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
    if users.count() > 0:
        return None
    secret = password or secrets.token_urlsafe(12)
    users.create_user(username, secret, first_name="Admin", last_name="User")
    return None if password else secret
