"""Per-source limits of the public endpoints, so one address cannot flood the contact list or turn
forms into a mail relay: counted per source address (the gateway's, never a client's header) in
windows of PUBLIC_WINDOW seconds (docs/security.md)."""

from typing import Protocol

from chalicelib import config
from chalicelib.domain.kernel.errors import TooMany
from chalicelib.ports import window_counters


class Visit(Protocol):
    """What the limits read of a public visit (`hits.Visit`): the caller's address as the gateway saw it."""

    source: str | None


def _take(name: str, allowed: int) -> tuple[bool, int]:
    """Count one more `name` event; (whether it is within `allowed`, seconds to wait if not). One
    UpdateItem: refused events count too, which only keeps a flooding source refused."""
    used, wait = window_counters.count(name, config.active().PUBLIC_WINDOW)
    return used <= allowed, wait


def submission(visit: Visit) -> None:
    """Let one form submission of the visit's source through, or TooMany (429)."""
    if not visit.source:
        return
    allowed, wait = _take(f"submit:{visit.source}", config.active().FORM_SUBMISSIONS_PER_ADDRESS)
    if not allowed:
        raise TooMany(f"Too many form submissions from your address. Try again in {wait} seconds.", wait)


def relay() -> bool:
    """Whether one more form mail to a submitted address fits FORM_RELAY_PER_WINDOW, all forms
    and sources together (many addresses cannot add up to a relay)."""
    return _take("relay", config.active().FORM_RELAY_PER_WINDOW)[0]


def new_visitor(visit: Visit) -> bool:
    """Whether the visit's source may have one more anonymous contact created for it."""
    return not visit.source or _take(f"visitor:{visit.source}", config.active().VISITORS_PER_ADDRESS)[0]
