"""The clock port in memory: the system's time, or the moment a test holds it at (`moment`)."""

from __future__ import annotations

from datetime import datetime

from chalicelib.ports.clock import SystemClock


class MemoryClock:
    """Tells the system's time, or the held moment."""

    def __init__(self, moment: datetime | None = None) -> None:
        self.moment = moment

    def now(self) -> datetime:
        """The held moment, else the system's time (UTC, to the second)."""
        return self.moment if self.moment is not None else SystemClock().now()
