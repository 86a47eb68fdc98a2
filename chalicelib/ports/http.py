"""The outbound HTTP port (webhook deliveries, form reposts, the automation webhook action): one
request, its outcome a `Result`, never an exception. The real one (`channels/http.py`) resolves the
host and connects only to public addresses (or an allowed network); in memory
(`devstack/memory/channels.py`) answers from the routes a test gives and keeps the requests."""

import ipaddress
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeAlias

from chalicelib import config
from chalicelib.ports.slot import Slot

Network: TypeAlias = ipaddress.IPv4Network | ipaddress.IPv6Network
JITTER = 0.2  # each retry delay is the schedule's value ±20%


@dataclass(eq=False, repr=False)
class Result:
    """One delivery attempt: status (None without a response), error note, duration in seconds;
    `retry` is False when trying again cannot help (the target is refused)."""

    status: int | None
    error: str | None
    duration: float
    retry: bool = True

    @property
    def ok(self) -> bool:
        """Whether the target answered 2xx."""
        return self.status is not None and 200 <= self.status < 300


def networks(cidrs: Iterable[str]) -> tuple[Network, ...]:
    """Parsed allow-list networks."""
    return tuple(ipaddress.ip_network(cidr, strict=False) for cidr in cidrs)


def retry_delay(failed_attempt: int) -> float | None:
    """Seconds before the attempt after `failed_attempt` (1 = the first), jittered; None when the
    schedule is exhausted."""
    delays = config.active().WEBHOOK_RETRY_DELAYS
    if failed_attempt > len(delays):
        return None
    return delays[failed_attempt - 1] * random.uniform(1 - JITTER, 1 + JITTER)


class Http(Protocol):
    """Sends HTTP requests."""

    def request(
        self,
        method: str,
        url: str,
        body: bytes | None,
        headers: Mapping[str, str],
        timeout: float,
        allowed: Iterable[Network] = (),
    ) -> Result:
        """Send one request; never raises: the outcome is a Result."""


slot: Slot[Http] = Slot("http")


def request(
    method: str,
    url: str,
    body: bytes | None,
    headers: Mapping[str, str],
    timeout: float,
    allowed: Iterable[Network] = (),
) -> Result:
    """Send one `method` request with `body` to `url`; never raises: the outcome is a Result."""
    return slot.get().request(method, url, body, headers, timeout, allowed)


def post(url: str, body: bytes, headers: Mapping[str, str], timeout: float, allowed: Iterable[Network] = ()) -> Result:
    """POST `body` to `url` once; never raises."""
    return request("POST", url, body, headers, timeout, allowed)
