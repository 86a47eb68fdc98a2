"""Automations worker: due events, entry of source segment members, purges (domain/automationruns.py)."""
from chalicelib.domain.automations import automationruns


def handle(body):
    """One message of the `automations` queue."""
    step = automationruns.STEPS[body.pop("type")]
    step(**body)
