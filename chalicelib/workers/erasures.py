"""Erasure worker: the background erasure of deleted contacts (domain/contacts/erasure.py, docs/privacy.md)."""

from typing import Any

from chalicelib.domain.contacts import erasure


def handle(body: dict[str, Any]) -> None:
    """One message of the `erasure` queue: `{"type": "erase", "id": contact id}`."""
    if body.get("type") == "erase":
        erasure.run(body["id"])
