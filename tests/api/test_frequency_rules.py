"""Issue 34: a contact payload's `frequencyRules` (LeadApiController::preSaveEntity ->
FrequencyRuleTrait, LeadModel::setFrequencyRules): Mautic's input (keyed by channel, snake_case) or
the list the contact is answered with; stored on the contact, one rule per preference channel,
answered in Mautic's `frequencyRulesList` shape, checked as Mautic's form fields (400 naming
`frequencyRules`, nothing written), and read back by the stats API's `lead_frequencyrules`."""

import pytest

from tests.api.payloads import assert_error
from tests.api.test_permissions import _as

LISTED = {"channel", "frequencyNumber", "frequencyTime", "preferredChannel", "pauseFromDate", "pauseToDate"}
NONE = {"frequencyNumber": None, "frequencyTime": None, "pauseFromDate": None, "pauseToDate": None}


def rules_of(api, contact_id):
    return api.get(f"/api/contacts/{contact_id}").json["contact"]["frequencyRules"]


def test_mautic_input_is_answered_in_mautic_shape(api):
    sent = {
        "email": {
            "frequency_number": 2,
            "frequency_time": "WEEK",
            "pause_from_date": "2026-12-20",
            "pause_to_date": "2027-01-03",
        },
        "sms": {"frequency_number": "1", "frequency_time": "DAY", "preferred_channel": 1},
        "global_categories": [],  # not a channel: ignored
    }
    r = api.post("/api/contacts/new", {"email": "ann@example.com", "frequencyRules": sent})
    assert r.status_code == 201, r.json
    expected = [
        {
            "channel": "email",
            "frequencyNumber": 2,
            "frequencyTime": "WEEK",
            "preferredChannel": False,
            "pauseFromDate": "2026-12-20T00:00:00+00:00",
            "pauseToDate": "2027-01-03T00:00:00+00:00",
        },
        dict(NONE, channel="sms", frequencyNumber=1, frequencyTime="DAY", preferredChannel=True),
    ]
    assert r.json["contact"]["frequencyRules"] == expected
    assert rules_of(api, r.json["contact"]["id"]) == expected
    assert all(set(rule) == LISTED for rule in expected)


def test_one_rule_per_channel_first_preferred_by_default(api):
    r = api.post(
        "/api/contacts/new",
        {"email": "ann@example.com", "frequencyRules": {"email": {"frequency_number": 3, "frequency_time": "MONTH"}}},
    )
    assert r.json["contact"]["frequencyRules"] == [
        dict(NONE, channel="email", frequencyNumber=3, frequencyTime="MONTH", preferredChannel=True),
        dict(NONE, channel="sms", preferredChannel=False),
    ]


def test_a_number_without_a_time_is_no_cap(api):
    rules = {"email": {"frequency_number": 3}, "sms": {"frequency_time": "DAY", "frequency_number": 0}}
    r = api.post("/api/contacts/new", {"email": "ann@example.com", "frequencyRules": rules})
    assert [(x["frequencyNumber"], x["frequencyTime"]) for x in r.json["contact"]["frequencyRules"]] == [
        (None, None),
        (None, None),
    ]


def test_the_answer_sent_back_round_trips_and_a_payload_replaces_the_rules(api):
    rules = {"email": {"frequency_number": 2, "frequency_time": "DAY", "pause_to_date": "2027-02-01"}}
    contact = api.post("/api/contacts/new", {"email": "ann@example.com", "frequencyRules": rules}).json["contact"]
    answered = contact["frequencyRules"]
    for method in (api.put, api.patch):
        r = method(f"/api/contacts/{contact['id']}/edit", {"email": "ann@example.com", "frequencyRules": answered})
        assert r.status_code == 200, r.json
        assert r.json["contact"]["frequencyRules"] == answered
    r = api.patch(f"/api/contacts/{contact['id']}/edit", {"frequencyRules": {"sms": {"preferred_channel": True}}})
    assert r.json["contact"]["frequencyRules"] == [
        dict(NONE, channel="email", preferredChannel=False),
        dict(NONE, channel="sms", preferredChannel=True),
    ]


def test_without_rules_or_empty_the_rules_stay(api):
    rules = {"email": {"frequency_number": 2, "frequency_time": "DAY"}}
    contact = api.post("/api/contacts/new", {"email": "ann@example.com", "frequencyRules": rules}).json["contact"]
    for payload in ({"firstname": "Ann"}, {"frequencyRules": []}, {"frequencyRules": {}}, {"frequencyRules": None}):
        assert api.patch(f"/api/contacts/{contact['id']}/edit", payload).status_code == 200
    api.put(f"/api/contacts/{contact['id']}/edit", {"email": "ann@example.com"})
    assert rules_of(api, contact["id"]) == contact["frequencyRules"]


def test_a_new_contact_has_none(api):
    assert api.post("/api/contacts/new", {"email": "ann@example.com"}).json["contact"]["frequencyRules"] == []


@pytest.mark.parametrize(
    "rules, words",
    [
        ({"email": {"frequency_number": "many", "frequency_time": "DAY"}}, "frequency_number"),
        ({"email": {"frequency_number": -1, "frequency_time": "DAY"}}, "frequency_number"),
        ({"email": {"frequency_number": 40000, "frequency_time": "DAY"}}, "frequency_number"),
        ({"email": {"frequency_number": 1, "frequency_time": "YEAR"}}, "frequency_time"),
        ({"email": {"frequency_number": 1, "frequency_time": "day"}}, "frequency_time"),
        ({"sms": {"pause_from_date": "soon"}}, "pause_from_date"),
        ({"sms": {"pause_to_date": "2026-13-45"}}, "pause_to_date"),
        ({"sms": {"preferred_channel": "perhaps"}}, "preferred_channel"),
        ({"email": "weekly"}, "email"),
        ([{"channel": "fax", "frequencyNumber": 1, "frequencyTime": "DAY"}], "channel"),
        (["weekly"], "channel"),
    ],
)
def test_bad_values_are_a_400_naming_frequency_rules_and_nothing_is_written(api, rules, words):
    good = {"email": {"frequency_number": 2, "frequency_time": "DAY"}}
    contact = api.post("/api/contacts/new", {"email": "ann@example.com", "frequencyRules": good}).json["contact"]
    r = api.patch(f"/api/contacts/{contact['id']}/edit", {"frequencyRules": rules, "firstname": "Changed"})
    error = assert_error(r, 400, "frequencyRules")
    assert words in error["details"]["frequencyRules"][0]
    stored = api.get(f"/api/contacts/{contact['id']}").json["contact"]
    assert stored["frequencyRules"] == contact["frequencyRules"] and stored["fields"]["all"]["firstname"] is None
    assert_error(api.post("/api/contacts/new", {"email": "bob@example.com", "frequencyRules": rules}), 400)
    assert int(api.get("/api/contacts?search=email:bob@example.com").json["total"]) == 0


def test_batch_routes(api):
    rules = {"email": {"frequency_number": 1, "frequency_time": "DAY"}}
    r = api.post(
        "/api/contacts/batch/new",
        [
            {"email": "a@example.com", "frequencyRules": rules},
            {"email": "b@example.com", "frequencyRules": {"email": {"frequency_time": "HOUR"}}},
        ],
    )
    assert r.status_code == 201, r.json
    (created,) = r.json["contacts"]
    assert created["frequencyRules"][0]["frequencyNumber"] == 1
    assert "frequencyRules" in r.json["errors"]["1"]["details"]
    r = api.patch(
        "/api/contacts/batch/edit", [{"id": created["id"], "frequencyRules": {"sms": {"preferred_channel": 1}}}]
    )
    assert r.status_code == 200, r.json
    assert [x["preferredChannel"] for x in rules_of(api, created["id"])] == [False, True]


def stats_rows(api, **where):
    query = "&".join(
        f"where[{i}][col]={col}&where[{i}][expr]=eq&where[{i}][val]={val}" for i, (col, val) in enumerate(where.items())
    )
    r = api.get(f"/api/stats/lead_frequencyrules?{query}")
    assert r.status_code == 200, r.json
    return r.json


def test_the_stats_table_reads_the_rules(api):
    rules = {"email": {"frequency_number": 2, "frequency_time": "WEEK", "pause_from_date": "2026-12-20"}}
    contact = api.post("/api/contacts/new", {"email": "ann@example.com", "frequencyRules": rules}).json["contact"]
    api.post("/api/contacts/new", {"email": "bob@example.com"})
    answer = stats_rows(api, lead_id=contact["id"])
    assert int(answer["total"]) == 2
    email, sms = answer["stats"]
    assert email["lead_id"] == str(contact["id"]) and email["channel"] == "email"
    assert (email["frequency_number"], email["frequency_time"], email["preferred_channel"]) == ("2", "WEEK", "1")
    assert email["pause_from_date"] == "2026-12-20 00:00:00" and email["pause_to_date"] is None
    assert email["date_added"] and email["id"] and email["id"] != sms["id"]
    assert (sms["channel"], sms["frequency_number"], sms["preferred_channel"]) == ("sms", None, "0")
    # an edit keeps each channel's row (its id), as Mautic updates the rule of a channel
    api.patch(f"/api/contacts/{contact['id']}/edit", {"frequencyRules": {"email": {"frequency_number": 5}}})
    again = stats_rows(api, lead_id=contact["id"])["stats"]
    assert [row["id"] for row in again] == [email["id"], sms["id"]] and again[0]["frequency_number"] is None


def test_a_limited_user_sees_and_sets_rules_of_its_own_contacts_only(api):
    rules = {"email": {"frequency_number": 2, "frequency_time": "WEEK"}}
    victim = api.post("/api/contacts/new", {"email": "v@example.com", "frequencyRules": rules}).json["contact"]
    mallory = _as(api, "mallory", {"lead:leads": ["viewown", "editown", "create"]})
    r = mallory.patch(f"/api/contacts/{victim['id']}/edit", {"frequencyRules": {"email": {"frequency_number": 9}}})
    assert r.status_code == 403
    assert rules_of(api, victim["id"]) == victim["frequencyRules"]
    mine = mallory.post("/api/contacts/new", {"email": "m@example.com", "frequencyRules": rules})
    assert mine.status_code == 201 and mine.json["contact"]["frequencyRules"][0]["frequencyNumber"] == 2
    r = mallory.get("/api/stats/lead_frequencyrules")
    assert r.status_code == 403  # the contact tables need lead:leads:viewother, as Mautic's stats API
