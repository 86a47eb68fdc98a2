"""Webhook worker: outbox fan-out, delivery attempts, log purges (domain/webhooks.py); the sweep
of outbox items whose message was lost (domain/webhook_events.py)."""
from chalicelib.domain import webhook_events, webhooks

STEPS = {"outbox": webhooks.fan_out, "delivery": webhooks.attempt, "purge": webhooks.purge_logs}


def handle(body):
    """One message of the `webhooks` queue."""
    STEPS[body["type"]](body)


sweep = webhook_events.sweep
