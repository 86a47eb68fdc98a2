"""Visitor addresses as this service stores them (issue 32): whole, truncated to their network (/24 for
IPv4, /48 for IPv6: the street, not the house) or not at all, as the `ANONYMIZE_IP` setting says
(docs/privacy.md, "IP addresses and browser signals"). Mautic's `anonymize_ip` stores `*.*.*.*` for every
visitor, which is our `none`; `truncate` keeps the coarse location a marketer reads without the host."""

import ipaddress

from chalicelib import config

FULL, TRUNCATE, NONE = "off", "truncate", "none"
PREFIX = {4: 24, 6: 48}


def truncated(address: str) -> str | None:
    """The address with its host part zeroed (/24 IPv4, /48 IPv6; an IPv4-mapped IPv6 address as its
    IPv4 address), or None when it is not an IP address."""
    try:
        ip = ipaddress.ip_address(address.strip().split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return str(ipaddress.ip_network(f"{ip}/{PREFIX[ip.version]}", strict=False).network_address)


def stored(address: str | None, mode: str | None = None) -> str | None:
    """What may be stored of a visitor's `address` under `mode` (the setting when None): the address,
    its network, or None."""
    chosen = mode or config.active().ANONYMIZE_IP
    if not address or chosen == FULL:
        return address
    return truncated(address) if chosen == TRUNCATE else None
