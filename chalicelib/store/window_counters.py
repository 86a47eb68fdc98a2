"""Rate limits shared by every worker and container: fixed windows counted in DynamoDB.

Each message takes a number from the counter of the current window (`rate#<name>#<window>` in the
tokens table, one UpdateItem; DynamoDB's TTL removes old windows). A number beyond the window's
allowance waits for the next window, so all senders together stay at the configured rate.
Events that are limited per source (failed sign-ins, public submissions, new visitors) are counted
the same way (`count#<name>#<window>`) and read back before the next one is let through.
"""

import math
import time
from collections.abc import Callable
from datetime import datetime, timezone

from chalicelib.store.models import Token

Clock = Callable[[], float]  # Unix seconds now (time.time, or a test's clock)


def _window(per_second: float) -> tuple[int, int]:
    """(window length in seconds, messages allowed per window) for a rate."""
    length = 1 if per_second >= 1 else math.ceil(1 / per_second)
    return length, max(1, int(per_second * length))


def _window_key(name: str, window: int, clock: Clock) -> tuple[str, int]:
    """(counter key of the current window of `window` seconds, the time it ends)."""
    start = int(clock() // window) * window
    return f"count#{name}#{start}", start + window


def counted(name: str, window: int, clock: Clock = time.time) -> tuple[int, int]:
    """(events counted for `name` in the current window of `window` seconds, seconds left in it).
    One GetItem."""
    key, end = _window_key(name, window, clock)
    try:
        return int(Token.get(key).used or 0), max(1, math.ceil(end - clock()))
    except Token.DoesNotExist:
        return 0, max(1, math.ceil(end - clock()))


def count(name: str, window: int, clock: Clock = time.time) -> tuple[int, int]:
    """Count one event for `name` in the current window: (the count with it, seconds left in the
    window). One UpdateItem."""
    key, end = _window_key(name, window, clock)
    item = Token(key)
    item.update(actions=[Token.used.add(1), Token.expires.set(datetime.fromtimestamp(end + 3600, tz=timezone.utc))])
    return int(item.used), max(1, math.ceil(end - clock()))


def acquire(
    name: str, per_second: float, sleep: Callable[[float], None] = time.sleep, clock: Clock = time.time
) -> float:
    """Wait until one more `name` message fits the rate (messages per second; 0 or less: no limit).
    Returns the time (Unix seconds) of the window the message was let through in."""
    if per_second <= 0:
        return clock()
    length, allowance = _window(per_second)
    while True:
        now = clock()
        start = int(now // length) * length
        item = Token(f"rate#{name}#{start}")
        expires = datetime.fromtimestamp(start + length + 3600, tz=timezone.utc)
        item.update(actions=[Token.used.add(1), Token.expires.set(expires)])
        if int(item.used) <= allowance:
            return now
        sleep(start + length - now)


def acquire_many(
    name: str, per_second: float, n: int, sleep: Callable[[float], None] = time.sleep, clock: Clock = time.time
) -> list[float]:
    """Wait until `n` more `name` messages fit the rate, taking a window's numbers in one UpdateItem
    (a batch of sends: one call per window, not per message). Returns, per message, the time (Unix
    seconds) of the window it was let through in."""
    if per_second <= 0:
        now = clock()
        return [now] * n
    length, allowance = _window(per_second)
    moments: list[float] = []
    while len(moments) < n:
        now = clock()
        start = int(now // length) * length
        wanted = min(n - len(moments), allowance)
        item = Token(f"rate#{name}#{start}")
        expires = datetime.fromtimestamp(start + length + 3600, tz=timezone.utc)
        item.update(actions=[Token.used.add(wanted), Token.expires.set(expires)])
        let_through = max(0, min(wanted, allowance - (int(item.used) - wanted)))
        moments += [now] * let_through
        if len(moments) < n:
            sleep(start + length - now)
    return moments
