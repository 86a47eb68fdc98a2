"""Small HTTPS GETs to Amazon SNS for `/mailer/callback`: a signing certificate, a subscription's
SubscribeURL. The caller has checked the URL (https, the exact regional SNS host of the topic);
this module only fetches, with a short timeout, a size cap and no redirects (a redirect would lead
away from the host the caller checked). Tests replace the fetcher (`use`), so no test reaches the
network."""

import urllib.request
from collections.abc import Callable
from email.message import Message
from functools import cache
from typing import IO, NoReturn

TIMEOUT = 3.0  # seconds: SNS waits 15 s for the endpoint's answer
READ_LIMIT = 64 * 1024  # a certificate or a confirmation answer is a few KB

Fetcher = Callable[[str], bytes]


class Redirected(OSError):
    """The host answered with a redirect, which is not followed."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuses every redirect instead of following it."""

    def redirect_request(
        self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str, headers: Message, newurl: str
    ) -> NoReturn:
        raise Redirected(f"HTTP {code}: redirects are not followed")


@cache
def _opener() -> urllib.request.OpenerDirector:
    """The opener, built on first use: its HTTPS handler loads the CA certificates (tens of ms),
    which a cold start that fetches nothing from SNS should not pay."""
    return urllib.request.build_opener(_NoRedirect)


def _urlopen(url: str) -> bytes:
    """GET `url` (the caller checked it is an https SNS URL) and return at most READ_LIMIT bytes."""
    with _opener().open(url, timeout=TIMEOUT) as answer:
        data: bytes = answer.read(READ_LIMIT)
        return data


_fetcher: Fetcher = _urlopen


def use(fetcher: Fetcher | None) -> None:
    """Fetch through `fetcher` from now on (None: the real HTTPS GET again)."""
    global _fetcher
    _fetcher = fetcher or _urlopen


def get(url: str) -> bytes:
    """The body at `url`; raises OSError (urllib's URLError, a timeout, a redirect) when it cannot be
    fetched."""
    return _fetcher(url)
