"""The local outbox: on the local stage every message sent is also written under OUTBOX_DIR
(`DATA_DIR/outbox`), so a developer reads exactly what a contact would receive."""

import os
import time

from chalicelib import config


def write(message_id: object, extension: str, data: bytes | str) -> str | None:
    """Store one sent message as `<time>-<message id>.<extension>`; nothing when no outbox is set."""
    if not config.active().OUTBOX_DIR:
        return None
    os.makedirs(config.active().OUTBOX_DIR, exist_ok=True)
    safe = "".join(c for c in str(message_id) if c.isalnum() or c in "-_.")[:80]
    path = os.path.join(config.active().OUTBOX_DIR, f"{time.time_ns()}-{safe}.{extension}")
    with open(path, "wb") as handle:
        handle.write(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path
