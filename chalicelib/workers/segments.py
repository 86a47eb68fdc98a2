"""Segment worker: rebuild plans and batches, purges of deleted segments (domain/segments/rebuilds.py), the
timeline moves that finish contact merges (domain/contacts/contact_merge.py), point triggers given to the
contacts already at their threshold (domain/points/point_triggers.py), and the contacts of a deleted stage
taken out of it (domain/stages/stages.py), and the uploads of a deleted form or file field purged
(domain/web/upload_purge.py)."""

from collections.abc import Callable
from typing import Any

from chalicelib.domain.contacts import contact_merge
from chalicelib.domain.points import point_triggers
from chalicelib.domain.segments import rebuilds
from chalicelib.domain.stages import stages
from chalicelib.domain.web import upload_purge

STEPS: dict[str, Callable[..., object]] = {
    "plan": rebuilds.plan,
    "batch": rebuilds.batch,
    "purge": rebuilds.purge_members,
    "merge": contact_merge.move,
    "trigger-plan": point_triggers.plan,
    "trigger-batch": point_triggers.batch,
    "stage-clear": stages.clear_deleted,
    "upload-purge": upload_purge.run,
}


def handle(body: dict[str, Any]) -> None:
    """One message of the `segments` queue."""
    step = STEPS[body.pop("type")]
    step(**body)
