"""AWS's adapters for the ports, in one place: the modules over SQS, S3, DynamoDB counters, tokens
and idempotency records, SES, SNS and real HTTP implement the ports' protocols themselves. Installed
by each composition root that runs on AWS or the embedded AWS (`app.py`, the CLI, the local stack,
the moto tests). Kept apart from `bootstrap.py` (the house assembled, the first start's seeds), so that
`app.py`'s functions install the adapters without loading what they do not run: the outbound channels (mail,
SMS, HTTP, the SNS certificate fetch) are imported on their first use, so the request authorizer,
which sends nothing, never loads them (docs/deploy.md "Cold start per function")."""

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

from chalicelib import aws
from chalicelib.ports import adapters
from chalicelib.ports.clock import SystemClock
from chalicelib.store import files, idempotency, queues, tokens, window_counters

if TYPE_CHECKING:  # mypy checks the deferred modules against the ports' protocols here
    from chalicelib.channels import http, mail, sms, sns_https

    _CHECKED = adapters.Adapters(
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


class Deferred:
    """A module imported on the first use of one of its names."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)


def channel(name: str) -> Any:
    """A module of `chalicelib/channels`, deferred (its protocol is checked above, for mypy)."""
    return Deferred(f"chalicelib.channels.{name}")


def build() -> adapters.Adapters:
    """Every port over AWS (SQS, S3, DynamoDB counters and tokens, SES, SNS), real HTTP and the
    system clock."""
    return adapters.Adapters(
        queues=queues,
        files=files,
        window_counters=window_counters,
        tokens=tokens,
        mail=channel("mail"),
        sms=channel("sms"),
        http=channel("http"),
        certificates=channel("sns_https"),
        clock=SystemClock(),
        outages=aws,
        idempotency=idempotency,
    )


def install() -> None:
    """Make AWS's adapters the ones the ports use."""
    adapters.install(build())
