"""Webhook worker: outbox fan-out, delivery attempts, log purges (domain/webhooks.py)."""
from chalicelib.domain import webhooks

STEPS = {"outbox": webhooks.fan_out, "delivery": webhooks.attempt, "purge": webhooks.purge_logs}


def handle(body):
    """One message of the `webhooks` queue."""
    STEPS[body["type"]](body)
