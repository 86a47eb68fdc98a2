"""Due items: work to do at a time, kept in `due#<shard>` (shard: contact id % AUTOMATION_DUE_SHARDS)
under time-ordered ids, which the minute job (`automations/automation_runs.dispatch`) queues as
they fall due and queues again when their message was lost. Automations keep their scheduled
events here; messaging the sends a frequency cap deferred (`messaging/frequency_caps.py`), items naming an
`email` or an `sms`.
"""

import secrets
from datetime import datetime

from chalicelib import config
from chalicelib.store.port import EntityId

ID_SCALE = 10**6


def due_kind(contact_id: EntityId) -> str:
    """The due items' shard of a contact: `due#<contact id % AUTOMATION_DUE_SHARDS>`."""
    return f"due#{int(contact_id) % config.active().AUTOMATION_DUE_SHARDS}"


def due_id(moment: datetime) -> int:
    """A new due id: milliseconds of the due time, then six random digits."""
    return int(moment.timestamp() * 1000) * ID_SCALE + secrets.randbelow(ID_SCALE)


def due_id_floor(moment: datetime) -> int:
    """The smallest due id of that due time (for range queries)."""
    return int(moment.timestamp() * 1000) * ID_SCALE


def due_at(due: int) -> float:
    """The due time of a due id, in seconds since the epoch."""
    return (due // ID_SCALE) / 1000
