"""Send windows of automation events, as Mautic 5.1's interval scheduler computes them
(CampaignBundle/Executioner/Scheduler/Mode/Interval.php): an `interval` event with a `triggerHour`, a
`triggerRestrictedStartHour`/`triggerRestrictedStopHour` range or `triggerRestrictedDaysOfWeek` runs at
the first moment the window allows after its interval, on the clock of the contact's `timezone` (else
the instance's DEFAULT_TIMEZONE). Date and immediate events have no window, as in Mautic.

Pure computation on aware datetimes (zoneinfo): comparisons are made in UTC so that a wall time that
occurs twice (a DST fall-back) or never (a spring-forward gap) compares as the instant it names, as
PHP's DateTime does.
"""

import re
from collections.abc import Mapping
from datetime import datetime, time, timedelta, timezone, tzinfo

from chalicelib import config
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.types import JSON
from chalicelib.records import by_value

WEEK_DAYS = (1, 2, 3, 4, 5)  # Mautic's form choice -1, "week days" (its campaign.js checks Monday to Friday)
HOUR = r"^\s*(\d{1,2}):(\d{2})(?::(\d{2}))?\s*$"


@by_value
class Window:
    """An event's restrictions: `hour` (run at that hour), `start`/`stop` (run between them), `days`
    (0 Sunday to 6 Saturday, PHP's `w`)."""

    hour: time | None
    start: time | None
    stop: time | None
    days: frozenset[int]


def as_hour(value: JSON) -> str:
    """A time of day as Mautic's event form takes it (`H:i`, seconds allowed), normalised to `HH:MM`."""
    found = re.match(HOUR, value) if isinstance(value, str) else None
    if not found or int(found.group(1)) > 23 or int(found.group(2)) > 59:
        raise a.Invalid("This value should be a time of day as HH:MM (00:00 to 23:59).")
    return f"{int(found.group(1)):02d}:{found.group(2)}"


def as_days(value: JSON) -> list[int]:
    """Days of the week, 0 (Sunday) to 6 (Saturday); -1 stands for Monday to Friday, as in Mautic's form."""
    days: set[int] = set()
    for item in a.as_list(value):
        day = a.as_int(item)
        if day not in range(-1, 7):
            raise a.Invalid("Each day should be 0 (Sunday) to 6 (Saturday), or -1 for Monday to Friday.")
        days.update(WEEK_DAYS if day == -1 else (day,))
    return sorted(days)


def _time(value: JSON) -> time | None:
    """A stored hour as a time; None when empty (or stored unchecked, before saves checked it)."""
    try:
        hours, minutes = as_hour(value).split(":")
    except a.Invalid:
        return None
    return time(int(hours), int(minutes))


def _days(value: JSON) -> frozenset[int]:
    try:
        return frozenset(as_days(value or []))
    except a.Invalid:
        return frozenset()


def window(event: Mapping[str, JSON]) -> Window | None:
    """The event's window, None when Mautic schedules it without one (Interval::
    isContactSpecificExecutionDateRequired: interval mode and an hour, both range ends or some days)."""
    if event.get("triggerMode") != "interval":
        return None
    hour = _time(event.get("triggerHour"))
    start, stop = _time(event.get("triggerRestrictedStartHour")), _time(event.get("triggerRestrictedStopHour"))
    days = _days(event.get("triggerRestrictedDaysOfWeek"))
    if hour is None and (start is None or stop is None) and not days:
        return None
    return Window(hour, start, stop, days)


def zone_of(timezone_name: JSON) -> tzinfo:
    """The zone of a contact's `timezone` value; an empty or unknown one is the instance default
    (Interval::getGroupExecutionDateWithTimeZone), and an unknown default is UTC."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # on first use: its import reads sysconfig (~3 ms)

    for name in (timezone_name, config.active().DEFAULT_TIMEZONE):
        if isinstance(name, str) and name.strip():
            try:
                return ZoneInfo(name.strip())
            except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a directory (`America`)
                continue
    return timezone.utc


def earliest(moment: datetime, found: Window, zone: tzinfo) -> datetime:
    """The first moment from `moment` that the window allows (Interval::getGroupExecutionDateTime), in UTC."""
    if found.hour is not None:
        at = _at_hour(moment.astimezone(zone), found.hour)
    elif found.start is not None and found.stop is not None:
        at = _between(moment.astimezone(zone), found.start, found.stop)
    else:
        at = moment.astimezone(timezone.utc)  # no hours: the days are counted on the server's clock (UTC)
    while found.days and at.isoweekday() % 7 not in found.days:
        at = _next_day(at)
    return at.astimezone(timezone.utc)


def _on(day: datetime, clock: time) -> datetime:
    """`day` at that time of day (seconds 0), PHP's setTime: a time in a DST gap moves forward."""
    return _normal(day.replace(hour=clock.hour, minute=clock.minute, second=0, microsecond=0, fold=0))


def _normal(local: datetime) -> datetime:
    """The instant a wall time names, back in its zone (a time that does not exist moves past the gap)."""
    assert local.tzinfo is not None  # windows work on aware datetimes only
    return local.astimezone(timezone.utc).astimezone(local.tzinfo)


def _next_day(local: datetime) -> datetime:
    """PHP's modify('+1 day'): the same wall time on the next day."""
    return _normal(local + timedelta(days=1))


def _after(first: datetime, second: datetime) -> bool:
    """Whether `first` is a later instant than `second` (whatever their wall times say)."""
    return first.astimezone(timezone.utc) > second.astimezone(timezone.utc)


def _at_hour(local: datetime, hour: time) -> datetime:
    """Interval::getExecutionDateTimeFromHour: today at the hour unless that minute has passed, else tomorrow."""
    today = _on(local, hour)
    minute = local.replace(second=0, microsecond=0)
    return _on(_next_day(local), hour) if _after(minute, today) else today


def _between(local: datetime, start: time, stop: time) -> datetime:
    """Interval::getExecutionDateTimeBetweenHours: before the range, its start; at or past its end, the
    next day's start; inside, unchanged. Ends given the wrong way round are swapped."""
    start, stop = min(start, stop), max(start, stop)
    opens, closes = _on(local, start), _on(local, stop)
    if _after(opens, local):
        return opens
    if not _after(closes, local):
        return _on(_next_day(local), start)
    return local


def still_open(moment: datetime, found: Window, zone: tzinfo) -> bool:
    """Whether an event due now may run now (ScheduledExecutioner::validateSchedule: the window's next
    moment, to the minute, is not later than now); else Mautic reschedules it to that moment."""
    return not _after(earliest(moment, found, zone).replace(second=0), moment.replace(second=0, microsecond=0))
