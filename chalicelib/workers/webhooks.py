"""Webhook worker: outbox fan-out, delivery attempts, log purges (domain/webhooks/webhooks.py); form
follow-ups and their actions (domain/web/form_followups.py)."""

from collections.abc import Callable
from typing import Any

from chalicelib.domain.web import form_followups
from chalicelib.domain.webhooks import webhooks

STEPS: dict[str, Callable[[dict[str, Any]], object]] = {
    "outbox": webhooks.fan_out,
    "delivery": webhooks.attempt,
    "purge": webhooks.purge_logs,
    "formfollowup": form_followups.fan_out,
    "formaction": form_followups.attempt,
}


def handle(body: dict[str, Any]) -> None:
    """One message of the `webhooks` queue."""
    STEPS[body["type"]](body)
