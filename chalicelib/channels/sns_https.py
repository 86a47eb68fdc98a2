"""Small HTTPS GETs to Amazon SNS for `/mailer/callback`: a signing certificate, a subscription's
SubscribeURL. The caller has checked the URL (https, an `sns.<region>.amazonaws.com` host); this
module only fetches, with a short timeout and a size cap. Tests replace the fetcher (`use`), so no
test reaches the network."""

import urllib.request
from collections.abc import Callable

TIMEOUT = 3.0  # seconds: SNS waits 15 s for the endpoint's answer
READ_LIMIT = 64 * 1024  # a certificate or a confirmation answer is a few KB

Fetcher = Callable[[str], bytes]


def _urlopen(url: str) -> bytes:
    """GET `url` (the caller checked it is an https SNS URL) and return at most READ_LIMIT bytes."""
    with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:
        data: bytes = answer.read(READ_LIMIT)
        return data


_fetcher: Fetcher = _urlopen


def use(fetcher: Fetcher | None) -> None:
    """Fetch through `fetcher` from now on (None: the real HTTPS GET again)."""
    global _fetcher
    _fetcher = fetcher or _urlopen


def get(url: str) -> bytes:
    """The body at `url`; raises OSError (urllib's URLError, a timeout) when it cannot be fetched."""
    return _fetcher(url)
