"""The SMS port: a transactional text to a phone number in E.164. AWS: SNS `Publish`
(`channels/sms.py`); in memory: `devstack/memory/channels.py`, which keeps what was sent. Both
raise `Rejected` or `Unavailable` and copy each text sent to the local outbox."""

import re
from typing import Protocol

from chalicelib.ports.failures import Rejected, Unavailable
from chalicelib.ports.slot import Slot

__all__ = ["Rejected", "Texter", "Unavailable", "e164", "send"]

E164 = r"^\+[1-9][0-9]{6,14}$"


def e164(number: object) -> str | None:
    """The number in E.164 (`+` and 7 to 15 digits; spaces, dots, dashes, brackets and a leading 00
    allowed), or None."""
    digits = re.sub(r"[\s().\-/]", "", str(number or ""))
    if digits.startswith("00"):
        digits = "+" + digits[2:]
    return digits if re.match(E164, digits) else None


class Texter(Protocol):
    """Sends SMS."""

    def send(self, number: str, text: str) -> str:
        """Send a text; the carrier's message id. Raises Rejected or Unavailable."""


slot: Slot[Texter] = Slot("sms")


def send(number: str, text: str) -> str:
    """Send a text; its message id. Raises Rejected or Unavailable."""
    return slot.get().send(number, text)
