"""Automations that run (issue 7): graph validation, clone, enrollment from segments, forms and by
hand, immediate / interval / date events, decisions and conditions, the actions, cancellation,
once-only execution, membership views. Time is driven by the `frozen` clock; `drain` runs the
workers and `dispatch` the minute job."""

import json
from urllib.parse import parse_qs, urlsplit

import pytest

from chalicelib.domain.automations import automation_runs, journey_routing, journeys
from chalicelib.store import port as store
from tests.api.payloads import assert_error
from tests.api.test_forms_submit import make_form
from tests.api.test_forms_submit import post as submit_form
from tests.api.test_segments import new_contact, new_segment
from tests.conftest import visitor_cookie


def action(ref, type_, properties=None, parent=None, path=None, **timing):
    return dict(
        {
            "id": ref,
            "name": ref,
            "type": type_,
            "eventType": "action",
            "properties": properties or {},
            "parent": parent,
            "decisionPath": path,
        },
        **timing,
    )


def branch(ref, type_, properties=None, parent=None, path=None, kind="decision"):
    return {
        "id": ref,
        "name": ref,
        "type": type_,
        "eventType": kind,
        "properties": properties or {},
        "parent": parent,
        "decisionPath": path,
    }


def tag(ref, name, parent=None, path=None, **timing):
    return action(ref, "lead.changetags", {"add_tags": [name]}, parent, path, **timing)


def new_automation(api, events, **extra):
    r = api.post("/api/automations/new", dict({"name": "Welcome", "events": events}, **extra))
    assert r.status_code == 201, r.json
    return r.json["automation"]


def contact(api, contact_id):
    return api.get(f"/api/contacts/{contact_id}").json["contact"]


def tags(api, contact_id):
    return sorted(t["tag"] for t in contact(api, contact_id)["tags"])


def executed(api, contact_id):
    r = api.get(
        f"/api/contacts/{contact_id}/activity?filters[includeEvents][]=campaign.event&order[]=timestamp"
        f"&order[]=ASC&limit=100"
    )
    return [(e["details"]["eventName"], e["details"]["status"]) for e in r.json["events"]]


def memberships(api, contact_id):
    r = api.get(f"/api/contacts/{contact_id}/automations")
    assert r.status_code == 200, r.json
    return r.json


def run_due(drain):
    automation_runs.dispatch()
    drain()


@pytest.fixture
def welcome(api, drain):
    """A segment of Pragueans feeding an automation: tag `welcomed` at once, then +5 points."""
    segment = new_segment(api)
    automation = new_automation(
        api,
        [tag("new1", "welcomed"), action("new2", "lead.changepoints", {"points": 5}, parent="new1")],
        lists=[segment["id"]],
    )
    drain()
    return segment, automation


# --- the graph -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "events, field",
    [
        ([action("new1", "lead.flyaway")], "events[0][type]"),
        ([branch("new1", "email.open"), tag("new2", "x", parent="new1")], "events[1][decisionPath]"),
        (
            [branch("new1", "lead.points", kind="condition"), tag("new2", "x", parent="new1", path="maybe")],
            "events[1][decisionPath]",
        ),
        ([tag("new1", "x", parent="new2"), tag("new2", "y", parent="new1")], "events[0][parent]"),
        ([tag("new1", "x", triggerMode="interval")], "events[0][triggerInterval]"),
        ([tag("new1", "x", triggerMode="date")], "events[0][triggerDate]"),
    ],
)
def test_invalid_graphs_are_refused_naming_the_event(api, events, field):
    assert_error(api.post("/api/automations/new", {"name": "Bad", "events": events}), 400, field=field)
    assert int(api.get("/api/automations").json["total"]) == 0


def test_clone_copies_the_whole_graph_unpublished(api):
    original = new_automation(
        api,
        [
            branch("new1", "email.open"),
            tag("new2", "yes", "new1", "yes"),
            tag("new3", "no", "new1", "no", triggerMode="interval", triggerInterval=2),
        ],
        canvasSettings={
            "nodes": [{"id": "new1", "positionX": "650", "positionY": "10"}],
            "connections": [{"sourceId": "new1", "targetId": "new2", "anchors": {"source": "yes", "target": "top"}}],
        },
    )
    first = original["events"][0]["id"]
    assert original["canvasSettings"]["nodes"][0] == {"id": str(first), "positionX": "650", "positionY": "10"}
    r = api.post(f"/api/automations/clone/{original['id']}")
    assert r.status_code == 201, r.json
    copy = r.json["automation"]
    assert r.headers["Location"].endswith(f"/api/automations/{copy['id']}")
    assert copy["id"] != original["id"] and copy["isPublished"] is False and copy["name"] == original["name"]
    old_ids, new_ids = {e["id"] for e in original["events"]}, {e["id"] for e in copy["events"]}
    assert len(new_ids) == 3 and not old_ids & new_ids

    def shape(automation):
        by_id = {e["id"]: e["name"] for e in automation["events"]}
        return sorted(
            (
                e["name"],
                by_id.get((e["parent"] or {}).get("id")),
                e["decisionPath"],
                e["triggerMode"],
                e["triggerInterval"],
            )
            for e in automation["events"]
        )

    assert shape(copy) == shape(original)
    assert copy["canvasSettings"]["nodes"][0]["id"] == str(copy["events"][0]["id"])
    assert copy["canvasSettings"]["connections"][0]["targetId"] == str(copy["events"][1]["id"])
    jumper = new_automation(api, [tag("new1", "x"), action("new2", "campaign.jump_to_event", {"jumpToEvent": "new1"})])
    cloned = api.post(f"/api/automations/clone/{jumper['id']}").json["automation"]
    assert cloned["events"][1]["properties"]["jumpToEvent"] == cloned["events"][0]["id"]
    assert_error(api.post("/api/automations/clone/999"), 404)


# --- entering --------------------------------------------------------------------------------------


def test_joining_a_source_segment_enters_and_runs_immediate_actions_in_the_same_write(api, welcome):
    segment, automation = welcome
    ann = new_contact(api, email="ann@example.com", city="Prague")
    assert ann["points"] == 5 and [t["tag"] for t in ann["tags"]] == ["welcomed"]
    assert executed(api, ann["id"]) == [("new1", "ok"), ("new2", "ok")]
    view = memberships(api, ann["id"])
    assert int(view["total"]) == 1
    assert view["automations"][str(automation["id"])] == {
        "id": automation["id"],
        "name": "Welcome",
        "dateAdded": ann["dateAdded"],
        "manuallyRemoved": False,
        "manuallyAdded": False,
        "listMembership": [segment["id"]],
    }
    r = api.get(f"/api/automations/{automation['id']}/contacts")
    assert int(r.json["total"]) == 1
    (row,) = r.json["contacts"]
    assert row["campaign_id"] == str(automation["id"]) and row["lead_id"] == str(ann["id"])
    assert row["manually_added"] == "0" and row["manually_removed"] == "0" and row["rotation"] == "1"
    bob = new_contact(api, email="bob@example.com", city="Brno")
    assert memberships(api, bob["id"]) == {"total": 0, "automations": {}}


def test_existing_segment_members_enter_when_the_automation_is_created(api, drain):
    segment = new_segment(api)
    drain()
    people = [new_contact(api, email=f"p{i}@example.com", city="Prague")["id"] for i in range(3)]
    automation = new_automation(api, [tag("new1", "welcomed")], lists=[segment["id"]])
    assert all(tags(api, p) == [] for p in people)  # never inside the request
    drain()
    assert all(tags(api, p) == ["welcomed"] for p in people)
    assert int(api.get(f"/api/automations/{automation['id']}/contacts").json["total"]) == 3


def test_unpublished_automations_do_not_enroll(api, drain):
    segment = new_segment(api)
    new_automation(api, [tag("new1", "welcomed")], lists=[segment["id"]], isPublished=False)
    drain()
    ann = new_contact(api, email="ann@example.com", city="Prague")
    assert int(memberships(api, ann["id"])["total"]) == 0 and tags(api, ann["id"]) == []


def test_submitting_a_source_form_enters(api, drain):
    form = make_form(api)
    automation = new_automation(api, [tag("new1", "from-form")], forms=[form["id"]])
    assert submit_form(api, form["id"], {"email": "ann@example.com"}).status_code in (200, 302)
    (ann,) = api.get("/api/contacts?search=email:ann@example.com").json["contacts"].values()
    assert tags(api, ann["id"]) == ["from-form"]
    assert memberships(api, ann["id"])["automations"][str(automation["id"])]["listMembership"] == []


def test_manual_add_and_remove(api, drain):
    automation = new_automation(api, [tag("new1", "hello")])
    ann = new_contact(api, email="ann@example.com")
    r = api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    assert r.status_code == 200 and r.body == b'{"success":1}'
    assert tags(api, ann["id"]) == ["hello"]
    assert memberships(api, ann["id"])["automations"][str(automation["id"])]["manuallyAdded"] is True
    assert api.get(f"/api/automations/{automation['id']}/contacts").json["contacts"][0]["manually_added"] == "1"
    r = api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/remove")
    assert r.status_code == 200 and r.json == {"success": 1}
    assert int(memberships(api, ann["id"])["total"]) == 0
    assert api.get(f"/api/automations/{automation['id']}/contacts").json == {"total": 0, "contacts": []}
    events = api.get(f"/api/contacts/{ann['id']}/activity?filters[includeEvents][]=campaign_membership").json
    assert [(e["details"]["action"], e["details"]["manual"]) for e in events["events"]] == [
        ("removed", True),
        ("added", True),
    ]
    assert_error(api.post(f"/api/automations/999/contact/{ann['id']}/add"), 404)
    assert_error(api.post(f"/api/automations/{automation['id']}/contact/999/add"), 404)
    assert_error(api.get("/api/contacts/999/automations"), 404)


def test_removal_by_hand_sticks_while_the_segment_matches(api, welcome):
    segment, automation = welcome
    ann = new_contact(api, email="ann@example.com", city="Prague")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/remove")
    api.patch(f"/api/contacts/{ann['id']}/edit", {"firstname": "Ann"})
    assert int(memberships(api, ann["id"])["total"]) == 0


# --- time --------------------------------------------------------------------------------------------


def test_interval_events_fire_on_time_not_before(api, drain, frozen):
    automation = new_automation(
        api,
        [
            tag("new1", "now"),
            tag("new2", "tomorrow", parent="new1", triggerMode="interval", triggerInterval=1, triggerIntervalUnit="d"),
        ],
    )
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    assert tags(api, ann["id"]) == ["now"]
    scheduled = api.get(f"/api/contacts/{ann['id']}/activity?filters[includeEvents][]=campaign.event.scheduled")
    assert scheduled.json["events"][0]["details"]["eventName"] == "new2"
    frozen.advance(hours=23)
    run_due(drain)
    assert tags(api, ann["id"]) == ["now"]
    frozen.advance(hours=1, minutes=1)
    run_due(drain)
    assert tags(api, ann["id"]) == ["now", "tomorrow"]
    assert list(store.iterate(journey_routing.due_kind(ann["id"]))) == []  # nothing left scheduled


def test_date_events_fire_at_their_date(api, drain, frozen):
    when = (frozen.moment.replace(microsecond=0)).isoformat()
    later = frozen.moment.replace(year=frozen.moment.year + 1).isoformat()
    automation = new_automation(
        api,
        [
            tag("new1", "past-date", triggerMode="date", triggerDate=when),
            tag("new2", "next-year", triggerMode="date", triggerDate=later),
        ],
    )
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    assert tags(api, ann["id"]) == ["past-date"]
    frozen.advance(days=366)
    run_due(drain)
    assert tags(api, ann["id"]) == ["next-year", "past-date"]


def test_leaving_the_segment_cancels_pending_events(api, drain, frozen):
    segment = new_segment(api)
    new_automation(
        api,
        [tag("new1", "later", triggerMode="interval", triggerInterval=1, triggerIntervalUnit="h")],
        lists=[segment["id"]],
    )
    drain()
    ann = new_contact(api, email="ann@example.com", city="Prague")
    assert len(list(store.iterate(journey_routing.due_kind(ann["id"])))) == 1
    api.patch(f"/api/contacts/{ann['id']}/edit", {"city": "Brno"})
    assert int(memberships(api, ann["id"])["total"]) == 0
    assert list(store.iterate(journey_routing.due_kind(ann["id"]))) == []
    frozen.advance(hours=2)
    run_due(drain)
    assert tags(api, ann["id"]) == []


def test_segment_exit_keeps_members_when_the_automation_says_so(api, drain):
    segment = new_segment(api)
    automation = new_automation(api, [tag("new1", "x")], lists=[segment["id"]], removeOnSegmentExit=False)
    assert automation["removeOnSegmentExit"] is False
    drain()
    ann = new_contact(api, email="ann@example.com", city="Prague")
    api.patch(f"/api/contacts/{ann['id']}/edit", {"city": "Brno"})
    assert int(memberships(api, ann["id"])["total"]) == 1


def test_restart_runs_again_only_when_allowed(api, drain):
    for allow, expected in ((True, 2), (False, 1)):
        segment = new_segment(api, name=f"S{allow}")
        automation = new_automation(
            api,
            [action("new1", "lead.changepoints", {"points": 1})],
            lists=[segment["id"]],
            allowRestart=allow,
            name=f"A{allow}",
        )
        drain()
        person = new_contact(api, email=f"{allow}@example.com", city="Prague")
        api.patch(f"/api/contacts/{person['id']}/edit", {"city": "Brno"})
        api.patch(f"/api/contacts/{person['id']}/edit", {"city": "Prague"})
        assert contact(api, person["id"])["points"] == expected
        rows = api.get(f"/api/automations/{automation['id']}/contacts").json["contacts"]
        assert rows[0]["rotation"] == str(expected)
        assert api.delete(f"/api/segments/{segment['id']}/delete").status_code == 422  # an automation uses it
        api.delete(f"/api/automations/{automation['id']}/delete")
        assert api.delete(f"/api/segments/{segment['id']}/delete").status_code == 200
        drain()


# --- decisions and conditions --------------------------------------------------------------------------


def _form_decision(api, form):
    return new_automation(
        api,
        [
            branch("new1", "form.submit", {"forms": [form["id"]]}),
            tag("new2", "submitted", "new1", "yes"),
            tag("new3", "silent", "new1", "no", triggerMode="interval", triggerInterval=2, triggerIntervalUnit="d"),
        ],
    )


def test_a_decision_takes_the_yes_path_when_the_contact_acts(api, drain, frozen):
    form = make_form(api)
    automation = _form_decision(api, form)
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    assert tags(api, ann["id"]) == []
    submit_form(api, form["id"], {"email": "ann@example.com"})
    assert tags(api, ann["id"]) == ["submitted"]
    frozen.advance(days=3)
    run_due(drain)
    assert tags(api, ann["id"]) == ["submitted"]
    assert executed(api, ann["id"]) == [("new1", "yes"), ("new2", "ok")]


def test_a_decision_takes_the_no_path_after_its_interval(api, drain, frozen):
    form = make_form(api)
    automation = _form_decision(api, form)
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    frozen.advance(days=2, minutes=1)
    run_due(drain)
    assert tags(api, ann["id"]) == ["silent"]
    submit_form(api, form["id"], {"email": "ann@example.com"})  # too late: the no path was taken
    assert tags(api, ann["id"]) == ["silent"]
    assert executed(api, ann["id"]) == [("new1", "no"), ("new3", "ok")]


def test_other_forms_do_not_satisfy_the_decision(api, drain):
    form, other = make_form(api), make_form(api, name="Other")
    automation = _form_decision(api, form)
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    submit_form(api, other["id"], {"email": "ann@example.com"})
    assert tags(api, ann["id"]) == []


@pytest.mark.parametrize(
    "kind, properties, values, path",
    [
        ("lead.field_value", {"field": "city", "operator": "=", "value": "Prague"}, {"city": "Prague"}, "yes"),
        ("lead.field_value", {"field": "city", "operator": "=", "value": "Prague"}, {"city": "Brno"}, "no"),
        ("lead.points", {"operator": "gte", "score": 10}, {"points": 12}, "yes"),
        ("lead.points", {"operator": "gte", "score": 10}, {"points": 3}, "no"),
        ("lead.tags", {"tags": ["vip"]}, {"tags": ["vip"]}, "yes"),
        ("email.validate.address", {}, {"email": "ann@example.com"}, "yes"),
    ],
)
def test_conditions_choose_a_path_at_once(api, kind, properties, values, path):
    automation = new_automation(
        api,
        [
            branch("new1", kind, properties, kind="condition"),
            tag("new2", "yes", "new1", "yes"),
            tag("new3", "no", "new1", "no"),
        ],
    )
    ann = new_contact(api, **dict({"email": "ann@example.com"}, **values))
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    assert path in tags(api, ann["id"]) and ({"yes", "no"} - {path}).isdisjoint(tags(api, ann["id"]))


def test_unavailable_event_types_are_recorded_as_failed(api):
    automation = new_automation(
        api,
        [
            action("new1", "twitter.tweet"),
            tag("new2", "after", parent="new1"),
            branch("new3", "lead.pageHit", kind="condition"),
            tag("new4", "x", "new3", "yes"),
        ],
    )
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    assert sorted(executed(api, ann["id"])) == [("new1", "failed"), ("new3", "failed")]
    assert tags(api, ann["id"]) == []


# --- actions --------------------------------------------------------------------------------------------


def test_contact_actions(api, drain):
    segment = new_segment(api, name="Manual", filters=[])
    company = api.post("/api/companies/new", {"companyname": "Acme"}).json["company"]
    other = new_automation(api, [tag("new1", "in-other")], name="Other")
    admin = api.get("/api/users/self").json
    automation = new_automation(
        api,
        [
            action("new1", "lead.changelist", {"addToLists": [segment["id"]]}),
            action("new2", "lead.updatelead", {"city": "Paris", "firstname": ""}, parent="new1"),
            action("new3", "lead.changeowner", {"owner": admin["id"]}, parent="new2"),
            action("new4", "lead.adddnc", {"channels": ["email"], "reason": "asked"}, parent="new3"),
            action("new5", "lead.addtocompany", {"company": company["id"]}, parent="new4"),
            action("new6", "campaign.addremovelead", {"addTo": [other["id"]], "removeFrom": ["this"]}, parent="new5"),
            tag("new7", "never", parent="new6"),
        ],
    )
    ann = new_contact(api, email="ann@example.com", firstname="Ann")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    after = contact(api, ann["id"])
    assert api.get(f"/api/contacts/{ann['id']}/segments").json["lists"][str(segment["id"])]["manuallyAdded"] is True
    assert after["fields"]["all"]["city"] == "Paris" and after["fields"]["all"]["firstname"] == "Ann"
    assert after["owner"]["id"] == admin["id"]
    assert [(d["channel"], d["reason"], d["comments"]) for d in after["doNotContact"]] == [("email", 3, "asked")]
    assert after["fields"]["all"]["company"] == "Acme"
    assert list(memberships(api, ann["id"])["automations"]) == [str(other["id"])]
    assert [t["tag"] for t in after["tags"]] == ["in-other"]  # removed from this one before `never`


def test_remove_dnc_jump_and_invalid_properties(api):
    automation = new_automation(
        api,
        [
            action("new1", "lead.removednc", {"channels": ["email"]}),
            action("new2", "campaign.jump_to_event", {"jumpToEvent": "new4"}, parent="new1"),
            tag("new3", "skipped", parent="new2", triggerMode="interval", triggerInterval=9),
            tag("new4", "landed", parent="new3"),  # reached only by the jump
            action("new5", "lead.changeowner", {"owner": 999}),
        ],
    )
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/contacts/{ann['id']}/dnc/email/add", {"reason": 1})
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    assert contact(api, ann["id"])["doNotContact"] == []
    assert tags(api, ann["id"]) == ["landed"]
    assert ("new5", "failed") in executed(api, ann["id"])


def test_webhook_action_sends_once_with_contact_tokens(api, drain, receiver):
    automation = new_automation(
        api,
        [
            action(
                "new1",
                "campaign.sendwebhook",
                {
                    "url": receiver.url,
                    "method": "post",
                    "headers": {"list": [{"label": "Content-Type", "value": "application/json"}]},
                    "additional_data": {
                        "list": [
                            {"label": "email", "value": "{contactfield=email}"},
                            {"label": "city", "value": "{contactfield=city|nowhere}"},
                        ]
                    },
                },
            ),
            tag("new2", "hooked", parent="new1"),
            action(
                "new3",
                "campaign.sendwebhook",
                {"url": receiver.url, "method": "get", "additional_data": {"id": "{contactfield=email}"}},
                parent="new1",
            ),
        ],
    )
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    assert tags(api, ann["id"]) == []  # outside actions run in the worker, never in the request
    drain()
    first, second = receiver.wait(2)
    assert first.method == "POST" and first.json == {"email": "ann@example.com", "city": "nowhere"}
    assert second.method == "GET" and parse_qs(urlsplit(second.path).query) == {
        "source": ["test"],
        "id": ["ann@example.com"],
    }
    assert tags(api, ann["id"]) == ["hooked"]
    due = [item["id"] for kind in {journey_routing.due_kind(ann["id"])} for item in store.iterate(kind)]
    assert due == []
    automation_runs.fire(ann["id"], 12345)  # a retried or stale message does nothing
    drain()
    assert len(receiver.received) == 2


@pytest.mark.parametrize("timeout", ["NaN", "-1", "soon", None, "inf"])
def test_a_webhook_timeout_that_is_not_a_positive_number_takes_the_ceiling(api, drain, receiver, timeout):
    automation = new_automation(
        api, [action("new1", "campaign.sendwebhook", {"url": receiver.url, "method": "get", "timeout": timeout})]
    )
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    drain()
    assert len(receiver.wait(1)) == 1
    assert ("new1", "ok") in executed(api, ann["id"])


def test_a_retried_fire_message_runs_the_event_once(api, drain, frozen):
    automation = new_automation(
        api,
        [
            action(
                "new1",
                "lead.changepoints",
                {"points": 1},
                triggerMode="interval",
                triggerInterval=1,
                triggerIntervalUnit="h",
            )
        ],
    )
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    (item,) = store.iterate(journey_routing.due_kind(ann["id"]))
    frozen.advance(hours=2)
    automation_runs.fire(ann["id"], item["id"])
    automation_runs.fire(ann["id"], item["id"])
    run_due(drain)
    assert contact(api, ann["id"])["points"] == 1


def test_refused_webhook_targets_fail_and_stop_the_path(api, drain):
    automation = new_automation(
        api,
        [
            action("new1", "campaign.sendwebhook", {"url": "http://169.254.169.254/x"}),
            tag("new2", "after", parent="new1"),
        ],
    )
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    drain()
    assert executed(api, ann["id"]) == [("new1", "failed")] and tags(api, ann["id"]) == []


def test_delete_contact_action(api, drain):
    automation = new_automation(api, [action("new1", "lead.deletecontact")])
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    drain()
    assert_error(api.get(f"/api/contacts/{ann['id']}"), 404)
    assert int(api.get(f"/api/automations/{automation['id']}/contacts").json["total"]) == 0


# --- webhooks and deletion ---------------------------------------------------------------------------


def test_executed_events_and_membership_changes_fire_webhooks(api, drain, receiver):
    api.post(
        "/api/hooks/new",
        {
            "name": "R",
            "webhookUrl": receiver.url,
            "triggers": ["mautic.campaign_on_event_executed", "mautic.campaign_on_leadchange"],
        },
    )
    automation = new_automation(api, [tag("new1", "x")])
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    drain()
    (request,) = receiver.wait(1)
    body = json.loads(request.body)
    (change,) = body["mautic.campaign_on_leadchange"]
    assert change["automation"] == {"id": automation["id"], "name": "Welcome"} and change["action"] == "added"
    assert change["contact"]["id"] == ann["id"]
    (ran,) = body["mautic.campaign_on_event_executed"]
    assert ran["event"]["eventName"] == "new1" and ran["event"]["status"] == "ok"


def test_deleting_an_automation_purges_memberships_and_schedules(api, drain):
    automation = new_automation(api, [tag("new1", "later", triggerMode="interval", triggerInterval=3)])
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    api.delete(f"/api/automations/{automation['id']}/delete")
    drain()
    assert int(memberships(api, ann["id"])["total"]) == 0
    assert list(store.iterate(journey_routing.enrolled_kind(automation["id"]))) == []
    assert list(store.iterate(journey_routing.due_kind(ann["id"]))) == []


def test_unpublished_automations_hold_events_until_published(api, drain, frozen):
    automation = new_automation(api, [tag("new1", "held")], isPublished=False)
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    assert tags(api, ann["id"]) == [] and int(memberships(api, ann["id"])["total"]) == 1
    api.patch(f"/api/automations/{automation['id']}/edit", {"isPublished": True})
    frozen.advance(minutes=61)
    run_due(drain)
    assert tags(api, ann["id"]) == ["held"]


def test_page_hit_decision_with_url_pattern(api, drain):
    automation = new_automation(
        api, [branch("new1", "page.pagehit", {"url": "*pricing*"}), tag("new2", "pricing", "new1", "yes")]
    )
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    pixel = "/mtracking.gif?page_url={}"
    cookie = {"Cookie": visitor_cookie(ann["id"])}
    api.http.request("GET", pixel.format("https://example.com/about"), headers=cookie, body=b"")  # the GIF
    assert tags(api, ann["id"]) == []
    api.http.request("GET", pixel.format("https://example.com/pricing?plan=pro"), headers=cookie, body=b"")
    assert tags(api, ann["id"]) == ["pricing"]


def test_point_triggers_move_contacts_into_automations(api):
    automation = new_automation(api, [tag("new1", "hot-lead")])
    api.post(
        "/api/points/triggers/new",
        {
            "name": "Hot",
            "points": 10,
            "events": [
                {"name": "Nurture", "type": "campaign.changecampaign", "properties": {"addTo": [automation["id"]]}}
            ],
        },
    )
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/contacts/{ann['id']}/points/plus/12")
    assert memberships(api, ann["id"])["automations"][str(automation["id"])]["manuallyAdded"] is False
    assert tags(api, ann["id"]) == ["hot-lead"]


def test_asset_download_decision(api):
    guide = api.post(
        "/api/assets/new", {"title": "Guide", "storageLocation": "remote", "file": "https://cdn.example/guide.pdf"}
    ).json["asset"]
    other = api.post(
        "/api/assets/new", {"title": "Other", "storageLocation": "remote", "file": "https://cdn.example/other.pdf"}
    ).json["asset"]
    automation = new_automation(
        api, [branch("new1", "asset.download", {"assets": [guide["id"]]}), tag("new2", "read-guide", "new1", "yes")]
    )
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    cookie = {"Cookie": visitor_cookie(ann["id"])}
    api.http.request("GET", f"/asset/{other['id']}:other", headers=cookie, body=b"")
    assert tags(api, ann["id"]) == []
    api.http.request("GET", f"/asset/{guide['id']}:guide", headers=cookie, body=b"")
    assert tags(api, ann["id"]) == ["read-guide"]


def test_email_send_action_and_open_decision(api, drain):
    from tests.api.test_email_send import make_email, sent_messages

    mail = make_email(api)
    automation = new_automation(
        api,
        [
            action("new1", "email.send", {"email": mail["id"]}),
            branch("new2", "email.open", parent="new1"),
            tag("new3", "opened", "new2", "yes"),
        ],
    )
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    drain()
    message = sent_messages()[-1]
    assert message["To"].endswith("ann@example.com>") or "ann@example.com" in message["To"]
    assert executed(api, ann["id"]) == [("new1", "ok")]
    api.http.request("GET", f"/email/{message['X-Mautic-Tracking']}.gif", headers={"Accept": "*/*"}, body=b"")
    assert tags(api, ann["id"]) == ["opened"]
    assert executed(api, ann["id"]) == [("new1", "ok"), ("new2", "yes"), ("new3", "ok")]


def test_long_chains_continue_in_the_worker(api, drain):
    chain = [tag(f"new{n}", f"t{n:02}", parent=f"new{n - 1}" if n else None) for n in range(14)]
    automation = new_automation(api, chain)
    ann = new_contact(api, email="ann@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    assert len(tags(api, ann["id"])) == journeys.INLINE_MAX
    drain()
    assert tags(api, ann["id"]) == [f"t{n:02}" for n in range(14)]


def test_message_send_uses_the_first_enabled_channel_that_reaches_the_contact(api, drain):
    from tests.api.test_email_send import make_email, sent_messages
    from tests.api.test_sms_send import make_sms, sms_messages

    mail, text = make_email(api), make_sms(api, "Hello")
    message = api.post(
        "/api/messages/new",
        {
            "name": "Both",
            "channels": {
                "email": {"channelId": mail["id"], "isEnabled": 1},
                "sms": {"channelId": text["id"], "isEnabled": 1},
            },
        },
    )
    assert message.status_code == 201, message.json
    automation = new_automation(
        api, [action("new1", "message.send", {"marketingMessage": message.json["message"]["id"]})]
    )
    ann = new_contact(api, email="ann@example.com", mobile="+420777123456")
    api.post(f"/api/contacts/{ann['id']}/dnc/email/add")  # email refused: the text message goes
    bob = new_contact(api, email="bob@example.com")
    for contact in (ann, bob):
        api.post(f"/api/automations/{automation['id']}/contact/{contact['id']}/add")
    drain()
    assert sms_messages() == [("+420777123456", "Hello")]
    assert ["bob@example.com" in m["To"] for m in sent_messages()] == [True]
    assert executed(api, ann["id"]) == [("new1", "ok")] and executed(api, bob["id"]) == [("new1", "ok")]
    carol = new_contact(api, email="carol@example.com")
    api.post(f"/api/contacts/{carol['id']}/dnc/email/add")  # no channel reaches her
    api.post(f"/api/automations/{automation['id']}/contact/{carol['id']}/add")
    drain()
    assert executed(api, carol["id"]) == [("new1", "failed")]
