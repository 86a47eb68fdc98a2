"""The frequency rules of a contact payload (domain/contacts/frequency_rules.py): Mautic's input or the
answered list, one rule per preference channel, checked as Mautic's form fields."""

from datetime import datetime, timezone

import pytest

from chalicelib.domain.contacts import frequency_rules as fr
from chalicelib.domain.kernel.attributes import Invalid

NOW = "2026-11-26T08:00:00+00:00"


def test_mautic_input_and_the_answered_list_give_the_same_rules():
    mautic = {"sms": {"frequency_number": "3", "frequency_time": "WEEK", "preferred_channel": "1"}, "lead_lists": [1]}
    answered = [{"channel": "sms", "frequencyNumber": 3, "frequencyTime": "WEEK", "preferredChannel": True}]
    assert fr.requested(mautic) == fr.requested(answered)


def test_one_rule_per_channel_keeping_stored_ids():
    stored = [{"id": 7, "channel": "email"}]
    rules = fr.rules(stored, fr.requested({"sms": {"pause_from_date": "2026-12-01 15:30:00"}}), NOW)
    assert [(r["id"], r["channel"], r["preferredChannel"], r["dateAdded"]) for r in rules] == [
        (7, "email", True, NOW),
        (None, "sms", False, NOW),
    ]
    assert rules[1]["pauseFromDate"] == "2026-12-01T00:00:00+00:00"


def test_the_last_flagged_channel_is_preferred_and_a_lone_number_is_no_cap():
    wanted = fr.requested(
        {"email": {"preferred_channel": True, "frequency_number": 4}, "sms": {"preferred_channel": True}}
    )
    rules = fr.rules([], wanted, NOW)
    assert [r["preferredChannel"] for r in rules] == [False, True]
    assert rules[0]["frequencyNumber"] is None and rules[0]["frequencyTime"] is None


@pytest.mark.parametrize(
    "value",
    [
        {"email": {"frequency_number": 1.5}},
        {"email": {"frequency_time": "HOURS"}},
        {"email": {"pause_to_date": "tomorrow-ish"}},
        {"email": []},
        [{"frequencyNumber": 1}],
    ],
)
def test_bad_values_are_refused(value):
    with pytest.raises(Invalid):
        fr.requested(value)


def test_shown_lists_mautics_list_properties_only():
    rules = fr.rules([], {}, NOW)
    assert [list(rule) for rule in fr.shown({"frequencyRules": rules})] == [list(fr.LISTED)] * 2


def test_a_cap_needs_a_number_and_a_time_on_the_channel():
    email = {"channel": "email", "frequencyNumber": 2, "frequencyTime": "WEEK"}
    assert fr.cap({"frequencyRules": [email]}) == (2, "WEEK")
    assert fr.cap({"frequencyRules": [dict(email, channel="sms")]}) is None
    assert fr.cap({"frequencyRules": [dict(email, frequencyTime=None)]}) is None
    assert fr.cap({"frequencyRules": [dict(email, frequencyNumber=None)]}) is None
    assert fr.cap({}) is None and fr.cap({"frequencyRules": None}) is None


def test_the_configured_default_caps_only_contacts_without_an_email_rule(configure):

    configure(EMAIL_FREQUENCY_NUMBER=3)
    assert fr.cap({}) is None  # a number without a time is no default
    configure(EMAIL_FREQUENCY_TIME="MONTH")
    assert fr.cap({}) == (3, "MONTH")
    assert fr.cap({"frequencyRules": [{"channel": "email", "frequencyNumber": None, "preferredChannel": True}]}) == (
        3,
        "MONTH",
    )
    own = {"channel": "email", "frequencyNumber": 9, "frequencyTime": "DAY"}
    assert fr.cap({"frequencyRules": [own]}) == (9, "DAY")


def test_periods_are_a_day_a_week_and_a_calendar_month_the_day_kept_or_the_months_last():
    moment = datetime(2026, 3, 31, 9, 30, tzinfo=timezone.utc)
    assert fr.shifted(moment, "DAY") == datetime(2026, 4, 1, 9, 30, tzinfo=timezone.utc)
    assert fr.shifted(moment, "WEEK", -1) == datetime(2026, 3, 24, 9, 30, tzinfo=timezone.utc)
    assert fr.shifted(moment, "MONTH") == datetime(2026, 4, 30, 9, 30, tzinfo=timezone.utc)
    assert fr.shifted(moment, "MONTH", -1) == datetime(2026, 2, 28, 9, 30, tzinfo=timezone.utc)
    december = datetime(2026, 12, 15, tzinfo=timezone.utc)
    assert fr.shifted(december, "MONTH") == datetime(2027, 1, 15, tzinfo=timezone.utc)
    assert fr.shifted(datetime(2026, 1, 15, tzinfo=timezone.utc), "MONTH", -1) == datetime(
        2025, 12, 15, tzinfo=timezone.utc
    )


def test_a_text_message_cap_is_the_sms_rule_else_the_sms_default_for_contacts_without_any_rule(configure):
    sms = {"channel": "sms", "frequencyNumber": 2, "frequencyTime": "DAY"}
    email = {"channel": "email", "frequencyNumber": 9, "frequencyTime": "WEEK"}
    assert fr.cap({"frequencyRules": [email, sms]}, "sms") == (2, "DAY")
    assert fr.cap({"frequencyRules": [email]}, "sms") is None
    configure(SMS_FREQUENCY_NUMBER=4, SMS_FREQUENCY_TIME="WEEK")
    assert fr.cap({}, "sms") == (4, "WEEK") and fr.cap({}) is None  # email's default is its own
    assert fr.cap({"frequencyRules": [email]}, "sms") is None  # a rule on any channel: no default (Mautic's NOT EXISTS)
    assert fr.cap({"frequencyRules": [dict(email, frequencyNumber=None)]}, "sms") == (4, "WEEK")
    configure(EMAIL_FREQUENCY_NUMBER=3, EMAIL_FREQUENCY_TIME="MONTH")
    assert fr.cap({"frequencyRules": [sms]}) is None and fr.cap({}) == (3, "MONTH")  # email's default alike
