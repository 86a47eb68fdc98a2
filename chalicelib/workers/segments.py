"""Segment worker: rebuild plans and batches, purges of deleted segments (domain/rebuilds.py)."""
from chalicelib.domain import rebuilds

STEPS = {"plan": rebuilds.plan, "batch": rebuilds.batch, "purge": rebuilds.purge_members}


def handle(body):
    """One message of the `segments` queue."""
    step = STEPS[body.pop("type")]
    step(**body)
