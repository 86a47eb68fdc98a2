"""The local outbox: on the local stage every message sent is also written under OUTBOX_DIR
(`DATA_DIR/outbox`), so a developer reads exactly what a contact would receive. An erased contact's
copies go with the rest of its data (`erase`, the messaging erasure step `outbox`, docs/privacy.md)."""

import json
import os
import time
from collections.abc import Iterable
from email.parser import BytesHeaderParser
from email.utils import getaddresses

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


def erase(recipients: Iterable[str]) -> int:
    """Delete every copy sent to one of these recipients (email addresses, any case, or E.164 phone
    numbers): the outbox holds what the person received. Returns how many files went; nothing without
    an outbox (on AWS there is none: SES and SNS keep no copy here)."""
    wanted = {recipient.casefold() for recipient in recipients if recipient}
    if not config.active().OUTBOX_DIR or not wanted or not os.path.isdir(config.active().OUTBOX_DIR):
        return 0
    erased = 0
    for entry in os.scandir(config.active().OUTBOX_DIR):
        if entry.is_file() and _recipients(entry.path) & wanted:
            os.remove(entry.path)
            erased += 1
    return erased


def _recipients(path: str) -> set[str]:
    """Whom a copy was sent to: an email's `To` addresses, a text message's number (casefolded)."""
    if path.endswith(".eml"):
        with open(path, "rb") as handle:
            headers = BytesHeaderParser().parse(handle)
        return {address.casefold() for _, address in getaddresses(headers.get_all("To") or []) if address}
    if path.endswith(".json"):
        with open(path, "rb") as handle:
            try:
                return {str(json.load(handle).get("to") or "").casefold()}
            except (ValueError, AttributeError):  # not a text message's copy
                return set()
    return set()
