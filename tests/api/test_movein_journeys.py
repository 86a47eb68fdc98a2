"""A moved contact's automation journeys (`POST /api/movein/journeys/<contact>`, administrator-only,
docs/move-in.md): stored without running anything, so the welcome is not sent again and scheduled
events fire at their original time once the copy is published."""

import json
from datetime import timedelta

import pytest

from tests.api.test_automation_events import by_name
from tests.api.test_automations import branch, executed, new_automation, run_due, tag, tags
from tests.api.test_permissions import FORBIDDEN, _as
from tests.api.test_segments import new_contact, new_segment


def _copy(api, **extra):
    """An unpublished copy as the mover makes it: welcome now, a decision after it (its no path two
    days on), and a tag a day after the welcome."""
    return new_automation(
        api,
        [
            tag("new1", "welcomed"),
            branch("new2", "email.open", parent="new1"),
            tag("new3", "no-open", "new2", "no", triggerMode="interval", triggerInterval=2, triggerIntervalUnit="d"),
            tag("new4", "later", "new1", triggerMode="interval", triggerInterval=1, triggerIntervalUnit="d"),
        ],
        isPublished=False,
        **extra,
    )


def _journey(automation, done_at, due_at):
    ids = {e["name"]: e["id"] for e in automation["events"]}
    return {
        "automations": [
            {
                "automation": automation["id"],
                "dateAdded": done_at,
                "rotation": 1,
                "done": [{"event": ids["new1"], "at": done_at, "status": "ok"}],
                "pending": [{"event": ids["new4"], "dueAt": due_at}],
            }
        ]
    }


def test_a_moved_journey_runs_nothing_now_and_its_schedule_fires_at_its_time(api, drain, frozen):
    segment = new_segment(api)
    automation = _copy(api, lists=[segment["id"]])
    ann = new_contact(api, email="ann@example.com", city="Prague")
    start = frozen.moment.replace(microsecond=0)
    done_at, due_at = start.isoformat(), start.replace(year=start.year + 1).isoformat()
    answer = api.post(f"/api/movein/journeys/{ann['id']}", _journey(automation, done_at, due_at))
    assert answer.status_code == 200, answer.json
    assert answer.json == {"contact": ann["id"], "stored": [automation["id"]], "kept": []}
    drain()
    assert tags(api, ann["id"]) == [] and executed(api, ann["id"]) == []  # nothing ran
    log = by_name(api.get(f"/api/automations/{automation['id']}/events/contact/{ann['id']}").json["events"])
    assert log["new1"]["contactLog"][0]["dateTriggered"] == done_at
    assert log["new4"]["contactLog"][0]["triggerDate"] == due_at
    (no_path,) = log["new3"]["contactLog"]  # the waiting decision's no path, two days after the welcome
    assert no_path["nonActionPathTaken"] is True and no_path["triggerDate"] == (start + timedelta(days=2)).isoformat()
    assert api.patch(f"/api/automations/{automation['id']}/edit", {"isPublished": True}).status_code == 200
    drain()  # publishing enrolls the segment's members: Ann is one already, the welcome does not run again
    assert "welcomed" not in tags(api, ann["id"])
    frozen.advance(days=2, minutes=5)
    run_due(drain)
    assert tags(api, ann["id"]) == ["no-open"]  # due by now; the year-later one is not
    again = api.post(f"/api/movein/journeys/{ann['id']}", _journey(automation, done_at, due_at))
    assert again.json == {"contact": ann["id"], "stored": [], "kept": [automation["id"]]}  # live here now


def test_bad_journeys_are_a_400_naming_the_field_and_write_nothing(api):
    automation = _copy(api)
    other = new_automation(api, [tag("new1", "x")], name="Other", isPublished=False)
    ann = new_contact(api, email="ann@example.com")
    good = _journey(automation, "2026-01-01T00:00:00+00:00", "2027-01-01T00:00:00+00:00")["automations"][0]
    foreign = other["events"][0]["id"]
    cases = [
        ({"automations": "x"}, "automations"),
        ({"automations": [{"automation": "1"}]}, "automations[0][automation]"),
        ({"automations": [{"automation": 99999}]}, "automations[0][automation]"),
        ({"automations": [dict(good, dateAdded="soon")]}, "automations[0][dateAdded]"),
        ({"automations": [dict(good, rotation=0)]}, "automations[0][rotation]"),
        (
            {"automations": [dict(good, done=[{"event": foreign, "at": "2026-01-01"}])]},
            "automations[0][done][0][event]",
        ),
        (
            {"automations": [dict(good, done=[dict(good["done"][0], status="maybe")])]},
            "automations[0][done][0][status]",
        ),
        (
            {"automations": [good, dict(good, pending=[{"event": foreign, "dueAt": "x"}])]},
            "automations[1][pending][0][event]",
        ),
    ]
    for body, field in cases:
        answer = api.post(f"/api/movein/journeys/{ann['id']}", body)
        assert answer.status_code == 400, (body, answer.json)
        assert field in answer.json["errors"][0]["details"], (field, answer.json)
    assert api.post("/api/movein/journeys/99999", {"automations": [good]}).status_code == 404
    assert api.get(f"/api/contacts/{ann['id']}/automations").json["total"] == 0


def test_a_limited_user_gets_403_and_changes_nothing(api):
    automation = _copy(api)
    ann = new_contact(api, email="ann@example.com")
    mallory = _as(api, "mallory", {"lead:leads": ["full"], "campaign:campaigns": ["full"]})
    body = _journey(automation, "2026-01-01T00:00:00+00:00", "2027-01-01T00:00:00+00:00")
    for answer in (
        mallory.post(f"/api/movein/journeys/{ann['id']}", body),
        mallory.post("/api/movein/journeys/99999", body),
    ):
        assert answer.status_code == 403 and answer.json["errors"][0]["message"] == FORBIDDEN
        assert "ann@example.com" not in json.dumps(answer.json)
    assert api.get(f"/api/contacts/{ann['id']}/automations").json["total"] == 0
    assert api.get(f"/api/automations/{automation['id']}/contacts").json["total"] == 0


@pytest.mark.aws  # about AWS (its calls): over moto
def test_cost_of_a_moved_journey(api):
    from tests.bench.conftest import dynamodb_calls

    automation = _copy(api)
    people = [new_contact(api, email=f"p{n}@example.com") for n in range(2)]
    body = _journey(automation, "2026-01-01T00:00:00+00:00", "2027-01-01T00:00:00+00:00")
    api.post(f"/api/movein/journeys/{people[0]['id']}", body)  # the process's caches and id blocks warm
    with dynamodb_calls() as calls:
        assert api.post(f"/api/movein/journeys/{people[1]['id']}", body).status_code == 200
    # the contact, the automation, the versions; one transaction: the contact with its members index item,
    # a due item per scheduled run and the timeline events (docs/storage.md)
    assert dict(calls) == {"GetItem": 3, "TransactWriteItems": 1}


def test_a_decision_whose_no_path_ran_is_closed_the_no_way(api):
    """Mautic logs the no path's event (`nonActionPathTaken`), not the decision: it is closed, not waiting."""
    automation = _copy(api)
    ids = {e["name"]: e["id"] for e in automation["events"]}
    ann = new_contact(api, email="ann@example.com")
    journey = {
        "automation": automation["id"],
        "dateAdded": "2026-01-01T00:00:00+00:00",
        "done": [
            {"event": ids["new1"], "at": "2026-01-01T00:00:00+00:00"},
            {"event": ids["new3"], "at": "2026-01-03T00:00:00+00:00"},
            {"event": ids["new4"], "at": "2026-01-02T00:00:00+00:00"},
        ],
    }
    assert api.post(f"/api/movein/journeys/{ann['id']}", {"automations": [journey]}).status_code == 200
    log = by_name(api.get(f"/api/automations/{automation['id']}/events/contact/{ann['id']}").json["events"])
    (decided,) = log["new2"]["contactLog"]
    assert decided["nonActionPathTaken"] is True and decided["dateTriggered"] == "2026-01-03T00:00:00+00:00"
    assert [len(log[name]["contactLog"]) for name in ("new1", "new3", "new4")] == [1, 1, 1]  # nothing scheduled
