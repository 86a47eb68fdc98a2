"""Feedback worker: SES bounces, complaints and deliveries, through SNS (domain/messaging/feedback.py)."""

from typing import Any

from chalicelib.domain.messaging import feedback


def handle(body: dict[str, Any]) -> None:
    """One message of the `feedback` queue: an SNS envelope around an SES notification."""
    feedback.handle(body)
