"""The SNS fetch port: small HTTPS GETs to Amazon SNS for `/mailer/callback` (a signing
certificate, a subscription's SubscribeURL), the URL checked by the caller. AWS: `channels/sns_https.py`
(no redirects, a size cap); in memory: `devstack/memory/channels.py`, answering from the pages given."""

from typing import Protocol

from chalicelib.ports.slot import Slot


class Fetcher(Protocol):
    """GETs a checked URL."""

    def get(self, url: str) -> bytes:
        """The body at `url`; OSError when it cannot be fetched."""


slot: Slot[Fetcher] = Slot("SNS fetch")


def get(url: str) -> bytes:
    """The body at `url`; OSError when it cannot be fetched."""
    return slot.get().get(url)
