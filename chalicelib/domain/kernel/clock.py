"""Time: the current instant (from the clock port, `ports/clock.py`) and the ISO 8601 UTC form used
in every response."""

from datetime import datetime, timedelta, timezone

from dateutil import parser as date_parser

from chalicelib import config
from chalicelib.ports import clock as clock_port


def order_slack() -> timedelta:
    """How far ids read in id order (timeline events, documents) may lag or lead their times: ids of
    different processes follow time only to within an id block's age (`ID_BLOCK_SECONDS`), plus a
    request's own length. A read by time in id order goes on this far past its window's edge."""
    return timedelta(seconds=config.active().ID_BLOCK_SECONDS + 5)


def now() -> datetime:
    """The current instant in UTC, to the second (the installed clock's)."""
    return clock_port.now()


def fresh(read_at: float, seconds: float, now: float) -> bool:
    """True while a copy a container read at `read_at` (wall-clock seconds, time.time) is younger than
    `seconds`. Per-container caches expire by wall time, never the monotonic clock, which may stand
    still while a Lambda container is frozen between invocations; a clock set back reads again."""
    return 0 <= now - read_at < seconds


def iso(moment: datetime) -> str:
    """`2024-10-24T15:54:35+00:00`: ISO 8601 with offset, in UTC."""
    return moment.astimezone(timezone.utc).replace(microsecond=0).isoformat()


def now_iso() -> str:
    """The current instant as `iso` writes it."""
    return iso(now())


def parse(text: object) -> datetime:
    """Parse a date/time string (ISO 8601, `Y-m-d H:i:s`, ...); naive values are UTC. Raises ValueError."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("not a date")
    value: datetime = date_parser.parse(text.strip())
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value
