"""Issue 41: send windows of automation events (`triggerHour`, `triggerRestrictedStartHour` /
`triggerRestrictedStopHour`, `triggerRestrictedDaysOfWeek`) on the contact's clock, as Mautic 5.1's
Interval scheduler: the `triggerDate` a client reads in the contact's event log is the time the event
runs. Time is driven by the `frozen` clock; `run_due` is the minute job and the workers."""

from datetime import datetime, timedelta, timezone

from chalicelib.domain.automations import automation_runs
from tests.api.payloads import assert_error
from tests.api.test_automations import new_automation, run_due, tag, tags
from tests.api.test_segments import new_contact

MONDAY_0818_NY = datetime(2026, 3, 2, 13, 18, 23, tzinfo=timezone.utc)


def enrolled(api, frozen, when, timing, **contact):
    """An automation (tag `now`, then tag `later` with `timing`) and a contact added to it at `when`."""
    frozen.moment = when
    automation = new_automation(api, [tag("new1", "now"), tag("new2", "later", parent="new1", **timing)])
    person = new_contact(api, email="ann@example.com", **contact)
    assert api.post(f"/api/automations/{automation['id']}/contact/{person['id']}/add").status_code == 200
    return automation, person


def trigger_date(api, automation, person):
    log = api.get(f"/api/automations/{automation['id']}/events/contact/{person['id']}").json
    (row,) = next(e for e in log["events"] if e["name"] == "new2")["contactLog"]
    assert row["isScheduled"] is True
    return row["triggerDate"]


def runs_at(api, drain, frozen, person, moment):
    """The `later` tag is not there before `moment` (past the minute job's look-ahead, as SQS delays are
    real time) and is there at it."""
    frozen.moment = moment - automation_runs.LOOKAHEAD - timedelta(minutes=1)
    run_due(drain)
    assert tags(api, person["id"]) == ["now"]
    frozen.moment = moment.replace(second=5)
    run_due(drain)
    assert tags(api, person["id"]) == ["later", "now"]


def test_trigger_hour_runs_at_that_hour_of_the_contacts_timezone(api, drain, frozen):
    timing = {"triggerMode": "interval", "triggerInterval": 1, "triggerIntervalUnit": "d", "triggerHour": "09:00"}
    automation, ann = enrolled(api, frozen, MONDAY_0818_NY, timing, timezone="America/New_York")
    assert trigger_date(api, automation, ann) == "2026-03-03T14:00:00+00:00"  # Tuesday 09:00 in New York
    scheduled = api.get(f"/api/contacts/{ann['id']}/activity?filters[includeEvents][]=campaign.event.scheduled")
    assert scheduled.json["events"][0]["details"]["triggerDate"] == "2026-03-03T14:00:00+00:00"
    runs_at(api, drain, frozen, ann, datetime(2026, 3, 3, 14, 0, tzinfo=timezone.utc))


def test_a_restricted_day_is_skipped(api, drain, frozen):
    friday_0818_ny = datetime(2026, 3, 6, 13, 18, tzinfo=timezone.utc)
    timing = {
        "triggerMode": "interval",
        "triggerInterval": 1,
        "triggerIntervalUnit": "d",
        "triggerHour": "09:00",
        "triggerRestrictedDaysOfWeek": [1, 2, 3, 4, 5],
    }
    automation, ann = enrolled(api, frozen, friday_0818_ny, timing, timezone="America/New_York")
    assert trigger_date(api, automation, ann) == "2026-03-09T13:00:00+00:00"  # Monday 09:00 EDT, not Saturday
    frozen.moment = datetime(2026, 3, 7, 14, 0, 30, tzinfo=timezone.utc)  # Saturday 09:00 EST
    run_due(drain)
    assert tags(api, ann["id"]) == ["now"]
    runs_at(api, drain, frozen, ann, datetime(2026, 3, 9, 13, 0, tzinfo=timezone.utc))


def test_start_and_stop_hours_hold_the_event_until_the_window_opens(api, drain, frozen):
    timing = {
        "triggerMode": "interval",
        "triggerInterval": 10,
        "triggerIntervalUnit": "h",
        "triggerRestrictedStartHour": "09:00",
        "triggerRestrictedStopHour": "17:00",
    }
    automation, ann = enrolled(api, frozen, MONDAY_0818_NY, timing, timezone="America/New_York")
    assert trigger_date(api, automation, ann) == "2026-03-03T14:00:00+00:00"  # 18:18 is shut: next day's 09:00
    runs_at(api, drain, frozen, ann, datetime(2026, 3, 3, 14, 0, tzinfo=timezone.utc))


def test_an_event_fired_after_its_window_shut_moves_to_the_next_opening(api, drain, frozen):
    timing = {
        "triggerMode": "interval",
        "triggerInterval": 1,
        "triggerIntervalUnit": "h",
        "triggerRestrictedStartHour": "09:00",
        "triggerRestrictedStopHour": "17:00",
    }
    automation, ann = enrolled(
        api, frozen, datetime(2026, 3, 2, 20, 50, tzinfo=timezone.utc), timing, timezone="America/New_York"
    )
    assert trigger_date(api, automation, ann) == "2026-03-02T21:50:00+00:00"  # 16:50, inside
    frozen.moment = datetime(2026, 3, 2, 22, 5, tzinfo=timezone.utc)  # the worker comes at 17:05: shut
    run_due(drain)
    assert tags(api, ann["id"]) == ["now"]
    assert trigger_date(api, automation, ann) == "2026-03-03T14:00:00+00:00"
    runs_at(api, drain, frozen, ann, datetime(2026, 3, 3, 14, 0, tzinfo=timezone.utc))


def test_contacts_without_a_timezone_use_the_instance_default(api, drain, frozen, configure):
    configure(DEFAULT_TIMEZONE="Europe/Prague")
    timing = {"triggerMode": "interval", "triggerInterval": 1, "triggerIntervalUnit": "d", "triggerHour": "09:00"}
    automation, ann = enrolled(api, frozen, MONDAY_0818_NY, timing)
    assert trigger_date(api, automation, ann) == "2026-03-04T08:00:00+00:00"  # Tuesday 14:18 in Prague: Wednesday


def test_date_mode_runs_at_its_date_whatever_the_window(api, drain, frozen):
    timing = {
        "triggerMode": "date",
        "triggerDate": "2026-03-05T03:00:00+00:00",
        "triggerHour": "09:00",
        "triggerRestrictedDaysOfWeek": [1],
    }
    automation, ann = enrolled(api, frozen, MONDAY_0818_NY, timing, timezone="America/New_York")
    assert trigger_date(api, automation, ann) == "2026-03-05T03:00:00+00:00"  # as Mautic's DateTime mode
    runs_at(api, drain, frozen, ann, datetime(2026, 3, 5, 3, 0, tzinfo=timezone.utc))


def test_window_fields_are_checked_and_normalised(api):
    bad = tag("new1", "x", triggerMode="interval", triggerInterval=1, triggerHour="25:00")
    assert_error(
        api.post("/api/automations/new", {"name": "Bad", "events": [bad]}), 400, field="events[0][triggerHour]"
    )
    bad = tag("new1", "x", triggerMode="interval", triggerInterval=1, triggerRestrictedDaysOfWeek=[8])
    r = api.post("/api/automations/new", {"name": "Bad", "events": [bad]})
    assert_error(r, 400, field="events[0][triggerRestrictedDaysOfWeek]")
    good = tag(
        "new1", "x", triggerMode="interval", triggerInterval=1, triggerHour="9:00", triggerRestrictedDaysOfWeek=[-1]
    )
    (event,) = new_automation(api, [good])["events"]
    assert event["triggerHour"] == "09:00" and event["triggerRestrictedDaysOfWeek"] == [1, 2, 3, 4, 5]
