"""Sends worker: segment-send plans and batches, point-trigger emails, deferred sends, and the walks and
batches of broadcasts (domain/messaging/email_sends.py, deferred_sends.py, broadcasts.py)."""

from collections.abc import Callable
from typing import Any

from chalicelib.domain.messaging import broadcasts, deferred_sends, email_sends, recipients, text_sends, user_emails

STEPS: dict[str, Callable[..., object]] = {
    "plan": email_sends.plan,
    "batch": email_sends.batch,
    "trigger": email_sends.trigger,
    "trigger-to-user": user_emails.trigger,
    "deferred": deferred_sends.deferred,
    "broadcast": broadcasts.walk,
    "broadcast-batch": broadcasts.batch,
    text_sends.STUCK: text_sends.settle_stuck,
}

# A contact another worker holds, SES unavailable, a trigger's event not stored yet: not now, not poison.
LATER: tuple[type[BaseException], ...] = (recipients.SendLater,)


def handle(body: dict[str, Any]) -> None:
    """One message of the `sends` queue; SendLater leaves it to SQS's retry."""
    step = STEPS[body.pop("type")]
    step(**body)
