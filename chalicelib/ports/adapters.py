"""The adapters the ports forward to, as one object, installed explicitly by a composition root.

`chalicelib/aws_adapters.py` builds AWS's set (`build()`), which `app.py`, the CLI and the local stack install;
tests and the local tools build the in-memory set (`devstack/memory/adapters.py`). Nothing installs
by being imported: a port called before an install raises `slot.NotInstalled`, naming the fix.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from chalicelib.ports import (
    certificates,
    clock,
    files,
    http,
    idempotency,
    mail,
    outages,
    queues,
    sms,
    tokens,
    window_counters,
)
from chalicelib.ports.slot import Slot


@dataclass(eq=False, repr=False)
class Adapters:
    """One implementation of every port."""

    queues: queues.Queues
    files: files.Files
    window_counters: window_counters.WindowCounters
    tokens: tokens.Tokens
    mail: mail.Mailer
    sms: sms.Texter
    http: http.Http
    certificates: certificates.Fetcher
    clock: clock.Clock
    outages: outages.Outages
    idempotency: idempotency.Records


_SLOTS: dict[str, Slot[Any]] = {
    "queues": queues.slot,
    "files": files.slot,
    "window_counters": window_counters.slot,
    "tokens": tokens.slot,
    "mail": mail.slot,
    "sms": sms.slot,
    "http": http.slot,
    "certificates": certificates.slot,
    "clock": clock.slot,
    "outages": outages.slot,
    "idempotency": idempotency.slot,
}
_installed: list[Adapters] = []


def install(adapters: Adapters | None) -> Adapters | None:
    """Make `adapters` the ones every port forwards to (None: none); returns those it replaces."""
    previous = _installed[0] if _installed else None
    _installed[:] = [adapters] if adapters is not None else []
    for field in fields(Adapters):
        _SLOTS[field.name].use(getattr(adapters, field.name) if adapters is not None else None)
    return previous


def active() -> Adapters | None:
    """The adapters installed with `install` (None before any)."""
    return _installed[0] if _installed else None
