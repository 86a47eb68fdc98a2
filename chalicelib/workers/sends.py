"""Sends worker: segment-send plans and batches, point-trigger emails (domain/emailsends.py)."""
from chalicelib.domain.messaging import emailsends

STEPS = {"plan": emailsends.plan, "batch": emailsends.batch, "trigger": emailsends.trigger}


def handle(body):
    """One message of the `sends` queue; SendLater leaves it to SQS's retry."""
    step = STEPS[body.pop("type")]
    step(**body)
