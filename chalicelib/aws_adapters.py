"""AWS's adapters for the ports, in one place: the modules over SQS, S3, DynamoDB counters, tokens
and idempotency records, SES, SNS and real HTTP implement the ports' protocols themselves. Installed
by each composition root that runs on AWS or the embedded AWS (`app.py`, the CLI, the local stack,
the moto tests). Kept apart from `bootstrap.py`, which imports every capability, so that `app.py`'s
functions install the adapters without loading what they do not run (docs/deploy.md "Cold start")."""

from chalicelib import aws
from chalicelib.channels import http, mail, sms, sns_https
from chalicelib.ports import adapters
from chalicelib.ports.clock import SystemClock
from chalicelib.store import files, idempotency, queues, tokens, window_counters


def build() -> adapters.Adapters:
    """Every port over AWS (SQS, S3, DynamoDB counters and tokens, SES, SNS), real HTTP and the
    system clock."""
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


def install() -> None:
    """Make AWS's adapters the ones the ports use."""
    adapters.install(build())
