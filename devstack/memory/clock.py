"""The clock port in memory: the system's time until a test holds it (`hold`), then moved only by
`advance`."""

from __future__ import annotations

from datetime import datetime, timedelta

from chalicelib.ports.clock import SystemClock


class MemoryClock:
    """Tells the system's time, or the held moment."""

    def __init__(self, moment: datetime | None = None) -> None:
        self.moment = moment

    def now(self) -> datetime:
        """The held moment, else the system's time (UTC, to the second)."""
        return self.moment if self.moment is not None else SystemClock().now()

    def hold(self, moment: datetime | None = None) -> datetime:
        """Hold time at `moment` (now when None); the moment held."""
        self.moment = moment or SystemClock().now()
        return self.moment

    def advance(self, **delta: float) -> None:
        """Move held time on (timedelta keywords: hours=1)."""
        self.moment = self.now() + timedelta(**delta)
