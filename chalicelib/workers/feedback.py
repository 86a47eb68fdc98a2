"""Feedback worker: SES bounces, complaints and deliveries, through SNS (domain/messaging/feedback.py)."""

import logging
from typing import Any

from chalicelib import observe
from chalicelib.domain.messaging import feedback

log = logging.getLogger(__name__)


def handle(body: dict[str, Any]) -> None:
    """One message of the `feedback` queue: an SNS envelope around an SES notification. A message
    that can never be handled (not JSON, nested too deep) is dropped with a log line: raising would
    only receive it four more times and park it in the DLQ."""
    try:
        feedback.handle(body)
    except feedback.Poison as error:
        log.warning("feedback message dropped as poison: %s", error)
        observe.metrics({"Queue": "feedback"}, PoisonMessages=1)
