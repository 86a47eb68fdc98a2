"""Outbound HTTP requests (webhook deliveries, the automation webhook action), standard library only.

Guarded against server-side request forgery at delivery time: the host is resolved, every address
it resolves to must be public (or inside an allowed network), and the connection goes to that very
address, so a DNS answer cannot change between the check and the connection. Cloud metadata
addresses are refused whatever the allow-list says. Redirects are not followed (a 3xx is a failed
delivery) and the whole exchange has one deadline. A failed delivery is retried on the jittered
schedule of `retry_delay` (webhooks, form reposts). The real implementation of the HTTP port
(`ports/http.py`, which holds `Result`, `networks` and `retry_delay`).
"""

import http.client
import ipaddress
import socket
import ssl
import time
from collections.abc import Iterable, Mapping
from typing import TypeAlias
from urllib.parse import urlsplit

from chalicelib.ports.http import Network, Result, networks, retry_delay

__all__ = ["Network", "Refused", "Result", "networks", "refusal", "request", "resolve", "retry_delay"]

Address: TypeAlias = ipaddress.IPv4Address | ipaddress.IPv6Address

METADATA = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200", "192.0.0.192")
)
NAT64 = ipaddress.ip_network("64:ff9b::/96")
LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215: translated inside a network, never public
COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated IPv4-compatible IPv6 addresses (::a.b.c.d)
READ_LIMIT = 1024  # bytes of the response read before closing
_tls: list[ssl.SSLContext] = []


class Refused(Exception):
    """The target may not be reached (its address is not public, or the URL is unusable)."""


def _embedded(ip: Address) -> Address:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, Teredo, NAT64), else the address."""
    if isinstance(ip, ipaddress.IPv6Address):
        carried = ip.ipv4_mapped or ip.sixtofour
        if carried:
            return carried
        if ip.teredo:
            return ip.teredo[1]
        if ip in NAT64 or (ip in COMPATIBLE and int(ip) > 1):  # `::` and `::1` are IPv6's own
            return ipaddress.ip_address(int(ip) & 0xFFFFFFFF)
    return ip


def refusal(address: str, allowed: Iterable[Network] = ()) -> str | None:
    """Why an address may not be reached ("a loopback address"...), or None when it may."""
    ip = _embedded(ipaddress.ip_address(address.split("%", 1)[0]))
    if ip in METADATA:
        return "a cloud metadata address"
    if ip.version == 6 and ip in LOCAL_NAT64:
        return "a local NAT64 address"
    if any(ip in net for net in allowed):
        return None
    for test, kind in (
        (ip.is_loopback, "loopback"),
        (ip.is_link_local, "link-local"),
        (ip.is_private, "private"),
        (ip.is_multicast, "multicast"),
    ):
        if test:
            return f"a {kind} address"
    return None if ip.is_global else "not a public address"


def resolve(host: str, port: int, allowed: Iterable[Network] = ()) -> str:
    """The address to connect to: the first of the host's addresses, all of which must be allowed."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except UnicodeError:
        raise Refused(f"{host} is not a valid host name.") from None
    except socket.gaierror as error:
        raise OSError(f"cannot resolve {host} ({error.strerror})") from None  # may be passing: retried
    addresses = list(dict.fromkeys(str(info[4][0]) for info in found))
    for address in addresses:
        reason = refusal(address, allowed)
        if reason:
            raise Refused(f"Refused: {host} resolves to {address}, {reason}.")
    return addresses[0]


class _PinnedHTTP(http.client.HTTPConnection):
    """Connects to a resolved address; the Host header still names the host."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        """Open the TCP connection to the pinned address, not to what the host resolves to now."""
        self.sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _PinnedHTTPS(_PinnedHTTP):
    """TLS to a resolved address, verified against the host name (SNI too)."""

    default_port = 443

    def connect(self) -> None:
        """Open the TCP connection, then TLS over it, verified against the host name."""
        super().connect()
        if not _tls:
            _tls.append(ssl.create_default_context())
        self.sock = _tls[0].wrap_socket(self.sock, server_hostname=self.host)


def _target(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, path with query) of an http or https URL; `Refused` otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refused("The URL is not an http or https URL.")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise Refused("The URL has an invalid port.") from None
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, parts.hostname, port, path


def _exchange(
    connection: _PinnedHTTP,
    method: str,
    path: str,
    body: bytes | None,
    headers: Mapping[str, str],
    deadline: float,
) -> int:
    """Send the request and read the status within the deadline; returns the status."""
    connection.connect()
    connection.sock.settimeout(max(deadline - time.monotonic(), 0.001))
    connection.request(method, path, body=body, headers=dict(headers, Connection="close"))
    connection.sock.settimeout(max(deadline - time.monotonic(), 0.001))
    response = connection.getresponse()
    response.read(READ_LIMIT)
    if time.monotonic() > deadline:
        raise TimeoutError()
    return response.status


def request(
    method: str,
    url: str,
    body: bytes | None,
    headers: Mapping[str, str],
    timeout: float,
    allowed: Iterable[Network] = (),
) -> Result:
    """Send one `method` request with `body` (bytes or None) to `url`. Never raises: the outcome is a Result."""
    started = time.monotonic()
    connection = None
    try:
        scheme, host, port, path = _target(url)
        address = resolve(host, port, allowed)
        pinned = _PinnedHTTPS if scheme == "https" else _PinnedHTTP
        connection = pinned(host, port, address, timeout)
        status = _exchange(connection, method, path, body, headers, started + timeout)
        error = None if 200 <= status < 300 else f"HTTP {status}"
        return Result(status, error, time.monotonic() - started)
    except Refused as refused:
        return Result(None, str(refused), time.monotonic() - started, retry=False)
    except TimeoutError:
        return Result(None, f"Timed out after {timeout:g} s.", time.monotonic() - started)
    except (OSError, http.client.HTTPException) as error:
        return Result(None, f"Connection failed: {error or type(error).__name__}", time.monotonic() - started)
    finally:
        if connection is not None:
            connection.close()
