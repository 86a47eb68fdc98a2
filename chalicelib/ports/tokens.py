"""The tokens port: secrets kept by the hash of their key, with an expiry and a single-use flag
(OAuth codes, refresh tokens, nonces). AWS: the tokens table (`store/tokens.py`); in memory:
`devstack/memory/counting.py`."""

from typing import Any, Protocol

from chalicelib.ports.slot import Slot


class Tokens(Protocol):
    """Secrets by (kind, secret)."""

    def put(self, kind: str, secret: str, data: Any, seconds: float | None = None, only_new: bool = False) -> bool:
        """Store data under (kind, secret) for `seconds` (None: no expiry); with `only_new`, False
        when the key exists."""

    def get(self, kind: str, secret: str) -> tuple[Any, bool]:
        """(data, used) for a live key, or (None, False)."""

    def use(self, kind: str, secret: str) -> bool:
        """Mark a key used; True only for the first call."""

    def delete(self, kind: str, secret: str) -> None:
        """Forget a secret, used or not."""


slot: Slot[Tokens] = Slot("tokens")


def put(kind: str, secret: str, data: Any, seconds: float | None = None, only_new: bool = False) -> bool:
    """Store data under (kind, secret); with `only_new`, False when the key exists."""
    return slot.get().put(kind, secret, data, seconds=seconds, only_new=only_new)


def get(kind: str, secret: str) -> tuple[Any, bool]:
    """(data, used) for a live key, or (None, False)."""
    return slot.get().get(kind, secret)


def use(kind: str, secret: str) -> bool:
    """Mark a key used; True only for the first call."""
    return slot.get().use(kind, secret)


def delete(kind: str, secret: str) -> None:
    """Forget a secret."""
    slot.get().delete(kind, secret)
