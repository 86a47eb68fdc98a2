"""Webhook worker: outbox fan-out, delivery attempts, log purges (domain/webhooks.py); form
follow-ups and their actions (domain/formfollowups.py)."""
from chalicelib.domain.web import formfollowups
from chalicelib.domain.webhooks import webhooks

STEPS = {"outbox": webhooks.fan_out, "delivery": webhooks.attempt, "purge": webhooks.purge_logs,
         "formfollowup": formfollowups.fan_out, "formaction": formfollowups.attempt}


def handle(body):
    """One message of the `webhooks` queue."""
    STEPS[body["type"]](body)
