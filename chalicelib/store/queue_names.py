"""The service's queues by short name and their SQS names in this stage: what `app.py` needs to
declare the worker functions, apart from the tables and clients of `schema.py`, so that declaring
them imports no AWS library."""

from chalicelib import config

QUEUES = ("webhooks", "segments", "automations", "sends", "feedback", "erasure")
# Receives before SQS moves a message to its dead-letter queue (the RedrivePolicy's maxReceiveCount):
# with the workers' backoff, at least 11 minutes of failures (docs/reliability.md, "Backoff and poison").
MAX_RECEIVES = 50


def queue_name(queue: str) -> str:
    """The SQS name of a queue of `QUEUES` in this stage."""
    return f"{config.active().RESOURCE_PREFIX}{queue}"
