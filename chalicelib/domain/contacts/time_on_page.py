"""Time on page: when a visitor left a hit, derived when read instead of written on the public hit.

Mautic (PageModel::hitPage) sets a hit's `date_left` when the same browser's next hit arrives while
its `mautic_referer_id` cookie, set on every hit for 1800 s (CookieHelper::setCookie), still names
it. Here the hits are `page.hit` timeline events of a contact, so a hit's date left is the time of
the same contact's next hit when that one came less than SESSION_SECONDS later; otherwise (the last
hit, or a later visit) it has none, and Mautic's dwell-time counts leave it out. Hits record no
device, so the next hit is the contact's, whatever browser made it.

Streams come in id order, which follows time only to within clock.order_slack() (ids come from blocks of
different processes): a hit read oldest first waits for its next hit until the stream is
SESSION_SECONDS + clock.order_slack() past it.
"""

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Generic, TypeVar

from chalicelib.domain.kernel import clock

SESSION_SECONDS = 1800  # Mautic's `mautic_referer_id` cookie lifetime
T = TypeVar("T")
# (visitor, when) of an item: visitor None for an item that is no hit (it keeps its place in the stream)
Key = Callable[[T], tuple[Hashable | None, datetime]]


def moment(text: str) -> datetime:
    """An ISO 8601 or `Y-m-d H:i:s` date as an aware UTC datetime (naive: UTC)."""
    value = datetime.fromisoformat(text)
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def left_at(hit: datetime, following: datetime | None) -> datetime | None:
    """When a hit was left: the time of its visitor's next hit if that came within the session."""
    if following is None or not 0 <= (following - hit).total_seconds() < SESSION_SECONDS:
        return None
    return following


def seconds(hit: datetime, left: datetime | None) -> int | None:
    """Whole seconds on the page (MySQL's TIMESTAMPDIFF(SECOND, date_hit, date_left)); None when not left."""
    return None if left is None else int((left - hit).total_seconds())


def dates_left(hits: Sequence[tuple[Hashable, datetime]]) -> list[datetime | None]:
    """The date left of each hit [(visitor, when)] ordered oldest first."""
    return [left for _, left in newest_first(reversed(hits), lambda hit: hit)][::-1]


def newest_first(items: Iterable[T], key: Key[T]) -> Iterator[tuple[T, datetime | None]]:
    """(item, date left) of items read newest first: a hit's next hit was read before it."""
    following: dict[Hashable, datetime] = {}
    for item in items:
        visitor, when = key(item)
        if visitor is None:
            yield item, None
            continue
        yield item, left_at(when, following.get(visitor))
        following[visitor] = when


@dataclass(eq=False, repr=False)
class _Held(Generic[T]):
    """An item waiting in `oldest_first`: a hit until its next hit is read or its session is over."""

    item: T
    visitor: Hashable | None
    when: datetime
    left: datetime | None = None
    settled: bool = False


def oldest_first(items: Iterable[T], key: Key[T]) -> Iterator[tuple[T, datetime | None]]:
    """(item, date left) of items read oldest first, in their order: a hit is held (and the items
    after it) until its visitor's next hit is read or the stream is a session past it."""
    held: deque[_Held[T]] = deque()
    waiting: dict[Hashable, _Held[T]] = {}
    for item in items:
        visitor, when = key(item)
        entry = _Held(item, visitor, when, settled=visitor is None)
        if visitor is not None:
            earlier = waiting.pop(visitor, None)
            if earlier is not None:
                earlier.left, earlier.settled = left_at(earlier.when, when), True
            waiting[visitor] = entry
        held.append(entry)
        yield from _released(held, waiting, when)
    yield from _released(held, waiting, None)


def _released(
    held: deque[_Held[T]], waiting: dict[Hashable, _Held[T]], now: datetime | None
) -> Iterator[tuple[T, datetime | None]]:
    """The held items that may go, oldest first (all of them when `now` is None): settled ones, and
    hits a session (and the order slack) older than `now`, which no later hit can settle."""
    bound = timedelta(seconds=SESSION_SECONDS) + clock.order_slack()
    while held:
        first = held[0]
        if not first.settled and now is not None and now - first.when < bound:
            return
        held.popleft()
        if first.visitor is not None and waiting.get(first.visitor) is first:
            del waiting[first.visitor]
        yield first.item, first.left
