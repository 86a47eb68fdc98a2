"""Send windows of automation events (Mautic 5.1's Interval scheduler, CampaignBundle/Executioner/
Scheduler/Mode/Interval.php), computed on zoneinfo clocks: hours, ranges, days of the week, DST."""

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from chalicelib.domain.automations import automation_graph as graph
from chalicelib.domain.automations import send_windows as sw
from chalicelib.domain.kernel.attributes import Invalid

NY = ZoneInfo("America/New_York")


def utc(*parts):
    return datetime(*parts, tzinfo=timezone.utc)


def event(**timing):
    return dict({"id": 1, "eventType": "action", "triggerMode": "interval", "triggerInterval": 0}, **timing)


def earliest(moment, zone=NY, **timing):
    found = sw.window(event(**timing))
    assert found is not None
    return sw.earliest(moment, found, zone)


def test_a_one_day_interval_with_an_hour_runs_at_that_hour_in_the_contacts_zone():
    reached = utc(2026, 3, 2, 13, 18, 23)  # Monday 08:18 in New York (EST)
    timing = {"triggerInterval": 1, "triggerIntervalUnit": "d", "triggerHour": "09:00"}
    assert graph.due_at(event(**timing), reached, NY) == utc(2026, 3, 3, 14, 0)  # Tuesday 09:00 EST
    assert graph.due_at(event(**timing), reached, ZoneInfo("Europe/Prague")) == utc(2026, 3, 4, 8, 0)
    assert graph.due_at(event(triggerInterval=1, triggerIntervalUnit="d"), reached, NY) == utc(2026, 3, 3, 13, 18, 23)


def test_an_hour_already_past_is_the_next_day_and_seconds_are_dropped_as_mautic_does():
    assert earliest(utc(2026, 3, 2, 14, 30), triggerHour="09:00") == utc(2026, 3, 3, 14, 0)
    assert earliest(utc(2026, 3, 2, 14, 0, 40), triggerHour="09:00") == utc(2026, 3, 2, 14, 0)  # the same minute
    assert earliest(utc(2026, 3, 2, 14, 1), triggerHour="09:00") == utc(2026, 3, 3, 14, 0)


@pytest.mark.parametrize(
    "moment, expected",
    [
        (utc(2026, 3, 2, 12, 0), utc(2026, 3, 2, 14, 0)),  # 07:00: too early, the start
        (utc(2026, 3, 2, 15, 30, 12), utc(2026, 3, 2, 15, 30, 12)),  # 10:30:12: inside, unchanged
        (utc(2026, 3, 2, 22, 0), utc(2026, 3, 3, 14, 0)),  # 17:00: the stop is excluded, next day's start
        (utc(2026, 3, 2, 23, 0), utc(2026, 3, 3, 14, 0)),
    ],
)
def test_a_start_and_stop_hour_range(moment, expected):
    assert earliest(moment, triggerRestrictedStartHour="09:00", triggerRestrictedStopHour="17:00") == expected
    swapped = {"triggerRestrictedStartHour": "17:00", "triggerRestrictedStopHour": "09:00"}
    assert earliest(moment, **swapped) == expected  # Mautic swaps ends given the wrong way round


def test_restricted_days_are_skipped_keeping_the_wall_time():
    friday_late = utc(2026, 3, 6, 15, 0)  # Friday 10:00 New York: today's 09:00 has passed
    assert earliest(friday_late, triggerHour="09:00", triggerRestrictedDaysOfWeek=[-1]) == utc(2026, 3, 9, 13, 0)
    # Monday 09:00 is EDT: the clocks moved on Sunday 8 March, the wall time stays 09:00
    saturday = utc(2026, 3, 7, 15, 0)
    assert earliest(saturday, triggerRestrictedDaysOfWeek=[0]) == utc(2026, 3, 8, 15, 0)  # days alone: UTC's


def test_days_alone_are_counted_on_utc_whatever_the_contact():
    late_sunday_in_ny = utc(2026, 3, 2, 1, 0)  # Monday in UTC, Sunday evening in New York
    assert earliest(late_sunday_in_ny, triggerRestrictedDaysOfWeek=[1]) == late_sunday_in_ny


def test_dst_gaps_and_repeated_hours_resolve_as_php_does():
    spring = utc(2026, 3, 8, 6, 0)  # Sunday 01:00 EST, the day 02:00 to 03:00 does not exist
    assert earliest(spring, triggerHour="02:30") == utc(2026, 3, 8, 7, 30)  # 03:30 EDT
    fall = utc(2026, 11, 1, 4, 0)  # Sunday 00:00 EDT, the day 01:00 to 02:00 happens twice
    assert earliest(fall, triggerHour="01:30") == utc(2026, 11, 1, 5, 30)  # the first 01:30 (EDT)
    after_first = utc(2026, 11, 1, 6, 10)  # 01:10 EST, the second time round: today's first 01:30 has passed
    assert earliest(after_first, triggerHour="01:30") == utc(2026, 11, 2, 6, 30)


def test_a_window_only_for_interval_events_with_a_restriction():
    assert sw.window(event()) is None
    assert sw.window(event(triggerRestrictedStartHour="09:00")) is None  # a range needs both ends
    assert sw.window(dict(event(triggerHour="09:00"), triggerMode="date")) is None  # Mautic's DateTime mode
    assert sw.window(event(triggerHour="09:00")) == sw.Window(
        hour=datetime(2000, 1, 1, 9).time(), start=None, stop=None, days=frozenset()
    )


def test_the_zone_is_the_contacts_else_the_default(configure):
    assert sw.zone_of("America/New_York") == NY
    configure(DEFAULT_TIMEZONE="Europe/Prague")
    assert sw.zone_of("") == ZoneInfo("Europe/Prague") and sw.zone_of("Mars/Olympus") == ZoneInfo("Europe/Prague")
    configure(DEFAULT_TIMEZONE="nowhere")
    assert sw.zone_of(None) == timezone.utc


def test_still_open_is_to_the_minute():
    found = sw.window(event(triggerRestrictedStartHour="09:00", triggerRestrictedStopHour="17:00"))
    assert found is not None
    assert sw.still_open(utc(2026, 3, 2, 21, 59, 59), found, NY)
    assert not sw.still_open(utc(2026, 3, 2, 22, 0, 5), found, NY)


def test_field_values_are_checked_and_normalised():
    assert sw.as_hour("9:05") == "09:05" and sw.as_hour("23:59:30") == "23:59"
    assert sw.as_days(["1", 3, -1]) == [1, 2, 3, 4, 5]
    for bad in ("24:00", "9h", 900):
        with pytest.raises(Invalid):
            sw.as_hour(bad)
    with pytest.raises(Invalid):
        sw.as_days([7])


def test_a_contacts_timezone_naming_a_region_of_zones_is_the_default(configure):
    configure(DEFAULT_TIMEZONE="Europe/Prague")
    assert sw.zone_of("America") == ZoneInfo("Europe/Prague")  # a directory of the zone database, not a zone
    configure(DEFAULT_TIMEZONE="Etc")
    assert sw.zone_of(None) == timezone.utc
