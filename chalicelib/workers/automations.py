"""Automations worker: due events, entry of source segment members, purges (domain/automations/automation_runs.py)."""

from chalicelib.domain.automations import automation_runs


def handle(body):
    """One message of the `automations` queue."""
    step = automation_runs.STEPS[body.pop("type")]
    step(**body)
