"""Nested collections written through the parent payload: form fields/actions, trigger events,
automation events; the type catalogues (points, trigger events, webhook triggers)."""

import pytest

from tests.api.payloads import assert_error, make

# --- forms: fields and actions ---------------------------------------------------------------------


@pytest.fixture
def form(api):
    return make(
        api,
        "forms",
        {
            "name": "Signup",
            "fields": [
                {"label": "Email", "type": "email", "isRequired": True},
                {"label": "First name", "type": "text"},
            ],
            "actions": [{"name": "Notify", "type": "form.email", "properties": {"to": "a@example.com"}}],
        },
    )


def _labels(items):
    return [item["label"] for item in items]


def test_new_form_items_get_ids(form):
    fields, actions = form["fields"], form["actions"]
    assert _labels(fields) == ["Email", "First name"]
    assert all(type(f["id"]) is int and f["id"] > 0 for f in fields + actions)
    assert len({f["id"] for f in fields}) == 2
    assert fields[0]["type"] == "email" and fields[0]["isRequired"] is True
    assert fields[1]["isRequired"] is False
    assert [f["alias"] for f in fields] == ["email", "first_name"]
    assert [f["order"] for f in fields] == [1, 2]
    assert actions[0]["name"] == "Notify" and actions[0]["type"] == "form.email"
    assert actions[0]["properties"] == {"to": "a@example.com"}


def test_form_field_shows_spec_properties(form):
    spec = (
        "id",
        "label",
        "showLabel",
        "alias",
        "type",
        "defaultValue",
        "isRequired",
        "validationMessage",
        "helpMessage",
        "order",
        "properties",
        "labelAttributes",
        "inputAttributes",
        "containerAttributes",
    )
    assert [k for k in spec if k not in form["fields"][0]] == []
    assert [
        k for k in ("id", "type", "name", "description", "order", "properties") if k not in form["actions"][0]
    ] == []


def test_form_items_are_stored(api, form):
    assert api.get(f"/api/forms/{form['id']}").json["form"] == form


def test_patch_keeps_unsent_items_and_adds_new(api, form):
    r = api.patch(f"/api/forms/{form['id']}/edit", {"fields": [{"label": "Phone", "type": "tel"}]})
    assert r.status_code == 200, r.json
    fields = r.json["form"]["fields"]
    assert _labels(fields) == ["Email", "First name", "Phone"]
    assert [f["id"] for f in fields[:2]] == [f["id"] for f in form["fields"]]
    assert fields[2]["id"] not in [f["id"] for f in form["fields"]]
    assert r.json["form"]["actions"] == form["actions"]


def test_patch_edits_item_with_existing_id(api, form):
    email = form["fields"][0]
    r = api.patch(f"/api/forms/{form['id']}/edit", {"fields": [{"id": email["id"], "label": "E-mail"}]})
    assert r.status_code == 200, r.json
    fields = r.json["form"]["fields"]
    assert len(fields) == 2
    assert fields[0]["id"] == email["id"]
    assert fields[0]["label"] == "E-mail"
    assert fields[0]["type"] == "email" and fields[0]["isRequired"] is True  # unsent keys kept
    assert fields[1] == form["fields"][1]


def test_patch_without_items_keeps_them(api, form):
    r = api.patch(f"/api/forms/{form['id']}/edit", {"name": "Renamed"})
    assert r.json["form"]["fields"] == form["fields"]
    assert r.json["form"]["actions"] == form["actions"]


def test_put_deletes_items_absent_from_request(api, form):
    keep = form["fields"][1]
    r = api.put(
        f"/api/forms/{form['id']}/edit",
        {
            "name": "Signup",
            "fields": [
                {"id": keep["id"], "label": "Given name", "type": "text"},
                {"label": "Country", "type": "country"},
            ],
        },
    )
    assert r.status_code == 200, r.json
    fields = r.json["form"]["fields"]
    assert _labels(fields) == ["Given name", "Country"]
    assert fields[0]["id"] == keep["id"]
    assert fields[1]["id"] not in (form["fields"][0]["id"], keep["id"])
    assert r.json["form"]["actions"] == []  # actions absent from the PUT are deleted too
    assert api.get(f"/api/forms/{form['id']}").json["form"] == r.json["form"]


def test_item_with_a_temporary_id_is_new_and_an_unknown_field_id_a_404(api, form):
    """A temporary id (`new7`) adds an item; a numeric field id the form does not hold is Mautic's 404
    (FormApiControllerFunctionalTest::testFormWithInvalidField), nothing written."""
    r = api.patch(f"/api/forms/{form['id']}/edit", {"fields": [{"id": "new7", "label": "X", "type": "text"}]})
    assert r.status_code == 200, r.json
    fields = r.json["form"]["fields"]
    assert len(fields) == 3
    assert fields[2]["label"] == "X" and fields[2]["id"] != "new7"
    refused = api.patch(f"/api/forms/{form['id']}/edit", {"fields": [{"id": 987654, "label": "Y", "type": "text"}]})
    assert refused.status_code == 404 and refused.json["errors"][0]["message"] == "Form Field ID 987654 not found"
    assert len(api.get(f"/api/forms/{form['id']}").json["form"]["fields"]) == 3


def test_nested_item_ids_are_unique_across_forms(api, form):
    other = make(api, "forms", {"name": "Other", "fields": [{"label": "Email", "type": "email"}]})
    assert other["fields"][0]["id"] not in [f["id"] for f in form["fields"]]


def test_field_aliases_unique_within_form(api):
    form = make(
        api, "forms", {"name": "F", "fields": [{"label": "Name", "type": "text"}, {"label": "Name", "type": "text"}]}
    )
    aliases = [f["alias"] for f in form["fields"]]
    assert len(set(aliases)) == 2 and aliases[0] == "f_name"  # `name` is one of the form's own ids (Mautic's f_)


def test_form_field_without_type_is_400(api):
    r = api.post("/api/forms/new", {"name": "F", "fields": [{"label": "Email"}]})
    assert_error(r, 400, field="fields[0][type]")
    assert api.get("/api/forms").json["total"] == 0


def test_form_field_with_unknown_type_is_400(api):
    r = api.post(
        "/api/forms/new", {"name": "F", "fields": [{"label": "A", "type": "text"}, {"label": "B", "type": "hologram"}]}
    )
    assert_error(r, 400, field="fields[1][type]")


def test_form_action_without_type_is_400(api):
    assert_error(api.post("/api/forms/new", {"name": "F", "actions": [{"name": "x"}]}), 400, field="actions[0][type]")


def test_form_fields_not_a_list_is_400(api):
    assert_error(api.post("/api/forms/new", {"name": "F", "fields": "Email"}), 400, field="fields")


def test_delete_form_fields(api, form):
    extra = api.patch(f"/api/forms/{form['id']}/edit", {"fields": [{"label": "Phone", "type": "tel"}]}).json["form"][
        "fields"
    ][2]
    first = form["fields"][0]["id"]
    r = api.delete(f"/api/forms/{form['id']}/fields/delete?fields[]={first}&fields[]={extra['id']}")
    assert r.status_code == 200, r.json
    assert list(r.json) == ["form"]
    assert [f["id"] for f in r.json["form"]["fields"]] == [form["fields"][1]["id"]]
    assert r.json["form"]["actions"] == form["actions"]
    assert api.get(f"/api/forms/{form['id']}").json["form"]["fields"] == r.json["form"]["fields"]


def test_delete_form_fields_indexed_brackets(api, form):
    first = form["fields"][0]["id"]
    r = api.delete(f"/api/forms/{form['id']}/fields/delete?fields[0]={first}")
    assert r.status_code == 200, r.json
    assert [f["id"] for f in r.json["form"]["fields"]] == [form["fields"][1]["id"]]


def test_delete_form_actions(api, form):
    r = api.delete(f"/api/forms/{form['id']}/actions/delete?actions[]={form['actions'][0]['id']}")
    assert r.status_code == 200, r.json
    assert r.json["form"]["actions"] == []
    assert r.json["form"]["fields"] == form["fields"]
    assert api.get(f"/api/forms/{form['id']}").json["form"]["actions"] == []


def test_delete_unknown_item_ids_changes_nothing(api, form):
    r = api.delete(f"/api/forms/{form['id']}/fields/delete?fields[]=987654")
    assert r.status_code == 200
    assert r.json["form"]["fields"] == form["fields"]


def test_delete_items_of_unknown_form_is_404(api):
    assert_error(api.delete("/api/forms/987654/fields/delete?fields[]=1"), 404, message="Item was not found.")
    assert_error(api.delete("/api/forms/987654/actions/delete?actions[]=1"), 404)


def test_delete_items_bad_ids_is_400(api, form):
    assert_error(api.delete(f"/api/forms/{form['id']}/fields/delete?fields[]=abc"), 400, field="fields")


def test_delete_form_items_wrong_method_is_405(api, form):
    r = api.get(f"/api/forms/{form['id']}/fields/delete?fields[]=1")
    assert_error(r, 405)
    assert r.headers["Allow"] == "DELETE"


# --- point triggers: events ------------------------------------------------------------------------


@pytest.fixture
def trigger(api):
    return make(
        api,
        "points/triggers",
        {
            "name": "Hot lead",
            "points": 50,
            "color": "#ff0000",
            "events": [
                {"type": "email.send", "name": "Send", "properties": {"email": 1}},
                {"type": "lead.changetags", "name": "Tag"},
            ],
        },
    )


def test_trigger_events_get_ids(trigger):
    events = trigger["events"]
    assert [e["name"] for e in events] == ["Send", "Tag"]
    assert all(type(e["id"]) is int for e in events) and events[0]["id"] != events[1]["id"]
    assert [e["order"] for e in events] == [1, 2]
    assert events[0]["properties"] == {"email": 1}
    assert [k for k in ("id", "type", "name", "description", "order", "properties") if k not in events[0]] == []
    assert trigger["color"] == "ff0000"  # no leading '#'
    assert trigger["points"] == 50


def test_trigger_patch_keeps_events(api, trigger):
    r = api.patch(
        f"/api/points/triggers/{trigger['id']}/edit", {"events": [{"type": "plugin.leadpush", "name": "Push"}]}
    )
    assert r.status_code == 200, r.json
    assert [e["name"] for e in r.json["trigger"]["events"]] == ["Send", "Tag", "Push"]


def test_trigger_put_deletes_absent_events(api, trigger):
    keep = trigger["events"][1]
    r = api.put(
        f"/api/points/triggers/{trigger['id']}/edit",
        {"name": "Hot lead", "events": [{"id": keep["id"], "type": "lead.changetags", "name": "Tags"}]},
    )
    assert r.status_code == 200, r.json
    assert [(e["id"], e["name"]) for e in r.json["trigger"]["events"]] == [(keep["id"], "Tags")]
    r = api.put(f"/api/points/triggers/{trigger['id']}/edit", {"name": "Hot lead"})
    assert r.json["trigger"]["events"] == []


def test_trigger_events_delete(api, trigger):
    first = trigger["events"][0]["id"]
    r = api.delete(f"/api/points/triggers/{trigger['id']}/events/delete?events[]={first}")
    assert r.status_code == 200, r.json
    assert list(r.json) == ["trigger"]
    assert [e["id"] for e in r.json["trigger"]["events"]] == [trigger["events"][1]["id"]]
    assert api.get(f"/api/points/triggers/{trigger['id']}").json["trigger"]["events"] == r.json["trigger"]["events"]


def test_trigger_events_delete_unknown_trigger_is_404(api):
    assert_error(api.delete("/api/points/triggers/987654/events/delete?events[]=1"), 404)


def test_unknown_trigger_event_type_is_400(api):
    r = api.post("/api/points/triggers/new", {"name": "T", "events": [{"type": "email.send"}, {"type": "teleport"}]})
    assert_error(r, 400, field="events[1][type]")
    assert api.get("/api/points/triggers").json["total"] == 0


def test_unknown_trigger_event_type_on_edit_changes_nothing(api, trigger):
    r = api.patch(f"/api/points/triggers/{trigger['id']}/edit", {"name": "X", "events": [{"type": "teleport"}]})
    assert_error(r, 400)
    assert "teleport" in r.json["errors"][0]["message"]
    assert api.get(f"/api/points/triggers/{trigger['id']}").json["trigger"] == trigger


def test_unknown_trigger_event_type_on_patch_names_request_index(api, trigger):
    r = api.patch(f"/api/points/triggers/{trigger['id']}/edit", {"events": [{"type": "teleport"}]})
    assert_error(r, 400, field="events[0][type]")


def test_trigger_event_types(api):
    r = api.get("/api/points/triggers/events/types")
    assert r.status_code == 200
    assert r.json == {
        "eventTypes": {
            "campaign.changecampaign": "Modify contact's campaigns",
            "email.send": "Send an email",
            "email.send_to_user": "Send an email to user",
            "lead.changelists": "Modify contact's segments",
            "lead.changetags": "Modify contact's tags",
            "plugin.leadpush": "Push contact to integration",
        }
    }


def test_point_action_types(api):
    r = api.get("/api/points/actions/types")
    assert r.status_code == 200
    assert r.json == {
        "pointActionTypes": {
            "asset.download": "Downloads an asset",
            "email.open": "Opens an email",
            "email.send": "Is sent an email",
            "form.submit": "Submits a form",
            "page.hit": "Visits a landing page",
            "url.hit": "Visits specific URL",
        }
    }


@pytest.mark.parametrize(
    "action_type", ["asset.download", "email.open", "email.send", "form.submit", "page.hit", "url.hit"]
)
def test_every_point_action_type_is_accepted(api, action_type):
    assert make(api, "points", {"name": "p", "type": action_type})["type"] == action_type


def test_unknown_point_action_type_is_400(api):
    assert_error(api.post("/api/points/new", {"name": "p", "type": "teleport"}), 400, field="type")


def test_point_action_type_required(api):
    assert_error(api.post("/api/points/new", {"name": "p"}), 400, field="type")


def test_catalogue_paths_are_not_ids(api):
    """`/points/actions/types` and `/points/triggers/events/types` are not entity ids."""
    assert api.get("/api/points/triggers").status_code == 200
    assert_error(api.get("/api/points/actions"), 404)


# --- automations: events with temporary ids --------------------------------------------------------


def _by_name(events):
    return {e["name"]: e for e in events}


def test_automation_events_with_temporary_ids(api):
    auto = make(
        api,
        "automations",
        {
            "name": "Welcome",
            "events": [
                {
                    "id": "new1",
                    "name": "Opened?",
                    "type": "email.open",
                    "eventType": "decision",
                    "order": 1,
                    "children": ["new2", "new3"],
                },
                {
                    "id": "new2",
                    "name": "Add points",
                    "type": "lead.changepoints",
                    "eventType": "action",
                    "order": 2,
                    "properties": {"points": 5},
                    "triggerMode": "interval",
                    "triggerInterval": 1,
                    "triggerIntervalUnit": "d",
                    "parent": "new1",
                    "decisionPath": "yes",
                },
                {
                    "id": "new3",
                    "name": "Remind",
                    "type": "email.send",
                    "eventType": "action",
                    "order": 3,
                    "parent": "new1",
                    "decisionPath": "no",
                },
            ],
        },
    )
    events = _by_name(auto["events"])
    decision, yes, no = events["Opened?"], events["Add points"], events["Remind"]
    assert all(type(e["id"]) is int for e in auto["events"])
    assert len({e["id"] for e in auto["events"]}) == 3
    assert decision["parent"] is None
    assert yes["parent"]["id"] == decision["id"] and no["parent"]["id"] == decision["id"]
    assert sorted(c["id"] for c in decision["children"]) == sorted([yes["id"], no["id"]])
    assert yes["children"] == [] and no["children"] == []
    assert yes["decisionPath"] == "yes" and no["decisionPath"] == "no" and decision["decisionPath"] is None
    assert decision["eventType"] == "decision" and yes["eventType"] == "action"
    assert yes["properties"] == {"points": 5}
    assert yes["triggerMode"] == "interval" and yes["triggerInterval"] == 1 and yes["triggerIntervalUnit"] == "d"
    assert no["triggerMode"] == "immediate"  # default
    spec = (
        "id",
        "name",
        "description",
        "type",
        "eventType",
        "order",
        "properties",
        "triggerMode",
        "triggerDate",
        "triggerInterval",
        "triggerIntervalUnit",
        "children",
        "parent",
        "decisionPath",
    )
    assert [k for k in spec if k not in yes] == []
    assert api.get(f"/api/automations/{auto['id']}").json["automation"] == auto


def test_automation_children_alone_link_parents(api):
    auto = make(
        api,
        "automations",
        {
            "name": "A",
            "events": [
                {"id": "new1", "name": "root", "type": "email.open", "eventType": "decision", "children": ["new2"]},
                {"id": "new2", "name": "child", "type": "email.send", "eventType": "action", "decisionPath": "yes"},
            ],
        },
    )
    events = _by_name(auto["events"])
    assert events["child"]["parent"]["id"] == events["root"]["id"]
    assert [c["id"] for c in events["root"]["children"]] == [events["child"]["id"]]


def test_automation_parent_alone_links_children(api):
    auto = make(
        api,
        "automations",
        {
            "name": "A",
            "events": [
                {"id": "new_a", "name": "root", "type": "email.open", "eventType": "decision"},
                {
                    "id": "new_b",
                    "name": "child",
                    "type": "email.send",
                    "eventType": "action",
                    "parent": "new_a",
                    "decisionPath": "no",
                },
            ],
        },
    )
    events = _by_name(auto["events"])
    assert [c["id"] for c in events["root"]["children"]] == [events["child"]["id"]]


def test_automation_new_event_linked_to_existing_event(api):
    auto = make(
        api,
        "automations",
        {"name": "A", "events": [{"id": "new1", "name": "root", "type": "email.open", "eventType": "decision"}]},
    )
    root = auto["events"][0]
    r = api.patch(
        f"/api/automations/{auto['id']}/edit",
        {
            "events": [
                {
                    "id": "new9",
                    "name": "child",
                    "type": "email.send",
                    "eventType": "action",
                    "parent": root["id"],
                    "decisionPath": "no",
                }
            ]
        },
    )
    assert r.status_code == 200, r.json
    events = _by_name(r.json["automation"]["events"])
    assert events["root"]["id"] == root["id"]
    assert events["child"]["parent"]["id"] == root["id"]
    assert [c["id"] for c in events["root"]["children"]] == [events["child"]["id"]]


def test_automation_put_deletes_absent_events(api):
    auto = make(
        api,
        "automations",
        {
            "name": "A",
            "events": [
                {"id": "new1", "name": "one", "type": "email.send", "eventType": "action"},
                {"id": "new2", "name": "two", "type": "email.send", "eventType": "action"},
            ],
        },
    )
    keep = auto["events"][1]
    r = api.put(
        f"/api/automations/{auto['id']}/edit",
        {"name": "A", "events": [{"id": keep["id"], "name": "two!", "type": "email.send", "eventType": "action"}]},
    )
    assert r.status_code == 200, r.json
    assert [(e["id"], e["name"]) for e in r.json["automation"]["events"]] == [(keep["id"], "two!")]


def test_automation_unknown_parent_is_400(api):
    r = api.post(
        "/api/automations/new",
        {
            "name": "A",
            "events": [{"id": "new1", "name": "x", "type": "email.send", "eventType": "action", "parent": "new7"}],
        },
    )
    assert_error(r, 400, field="events[0][parent]")
    assert api.get("/api/automations").json["total"] == 0


def test_automation_unknown_parent_on_patch_changes_nothing(api):
    auto = make(
        api,
        "automations",
        {"name": "A", "events": [{"id": "new1", "name": "one", "type": "email.send", "eventType": "action"}]},
    )
    r = api.patch(
        f"/api/automations/{auto['id']}/edit",
        {
            "name": "B",
            "events": [{"id": "new2", "name": "two", "type": "email.send", "eventType": "action", "parent": "new7"}],
        },
    )
    assert_error(r, 400)
    assert "new7" in r.json["errors"][0]["message"]
    assert api.get(f"/api/automations/{auto['id']}").json["automation"] == auto


def test_automation_unknown_parent_on_patch_names_request_index(api):
    auto = make(
        api,
        "automations",
        {"name": "A", "events": [{"id": "new1", "name": "one", "type": "email.send", "eventType": "action"}]},
    )
    r = api.patch(
        f"/api/automations/{auto['id']}/edit",
        {"events": [{"id": "new2", "name": "two", "type": "email.send", "eventType": "action", "parent": "new7"}]},
    )
    assert_error(r, 400, field="events[0][parent]")


@pytest.mark.parametrize(
    "event, field",
    [
        ({"name": "x", "eventType": "action"}, "events[0][type]"),
        ({"name": "x", "type": "email.send"}, "events[0][eventType]"),
        ({"name": "x", "type": "email.send", "eventType": "maybe"}, "events[0][eventType]"),
        (
            {"name": "x", "type": "email.send", "eventType": "action", "decisionPath": "sideways"},
            "events[0][decisionPath]",
        ),
        ({"name": "x", "type": "email.send", "eventType": "action", "triggerMode": "never"}, "events[0][triggerMode]"),
        (
            {"name": "x", "type": "email.send", "eventType": "action", "triggerIntervalUnit": "w"},
            "events[0][triggerIntervalUnit]",
        ),
    ],
)
def test_automation_bad_event_is_400(api, event, field):
    assert_error(api.post("/api/automations/new", {"name": "A", "events": [event]}), 400, field=field)


# --- webhooks: triggers ----------------------------------------------------------------------------

WEBHOOK_TRIGGERS = {
    "mautic.lead_post_save_new",
    "mautic.lead_post_save_update",
    "mautic.lead_points_change",
    "mautic.lead_post_delete",
    "mautic.lead_channel_subscription_changed",
    "mautic.lead_company_change",
    "mautic.company_post_save",
    "mautic.company_post_delete",
    "mautic.lead_list_change",
    "mautic.email_on_send",
    "mautic.email_on_open",
    "mautic.form_on_submit",
    "mautic.page_on_hit",
    "mautic.sms_on_send",
    "mautic.campaign_on_leadchange",
    "mautic.campaign_on_event_executed",  # automations (Mautic's event names)
}


def test_hook_triggers_catalogue(api):
    r = api.get("/api/hooks/triggers")
    assert r.status_code == 200
    assert list(r.json) == ["triggers"]
    triggers = r.json["triggers"]
    assert set(triggers) == WEBHOOK_TRIGGERS
    for item in triggers.values():
        assert set(item) == {"label", "description"}
        assert item["label"] and isinstance(item["description"], str)
    assert triggers["mautic.lead_post_save_new"]["label"] == "Contact Identified Event"
    assert triggers["mautic.form_on_submit"]["label"] == "Form Submit Event"
    labels = [t["label"] for t in triggers.values()]
    assert labels == sorted(labels, key=str.lower)  # sorted by label


HOOK = {"name": "H", "webhookUrl": "https://example.com/h"}


def test_hook_with_triggers(api):
    hook = make(api, "hooks", {**HOOK, "triggers": ["mautic.lead_post_save_new", "mautic.form_on_submit"]})
    assert hook["triggers"] == ["mautic.lead_post_save_new", "mautic.form_on_submit"]
    assert hook["secret"]  # generated when not sent
    r = api.patch(f"/api/hooks/{hook['id']}/edit", {"triggers": ["mautic.email_on_open"]})
    assert r.status_code == 200
    assert r.json["hook"]["triggers"] == [
        "mautic.lead_post_save_new",
        "mautic.form_on_submit",
        "mautic.email_on_open",
    ]  # PATCH only adds
    assert r.json["hook"]["secret"] == hook["secret"]
    r = api.put(f"/api/hooks/{hook['id']}/edit", {**HOOK, "triggers": ["mautic.page_on_hit"]})
    assert r.status_code == 200
    assert r.json["hook"]["triggers"] == ["mautic.page_on_hit"]  # PUT replaces
    r = api.put(f"/api/hooks/{hook['id']}/edit", HOOK)
    assert r.json["hook"]["triggers"] == []  # ... and clears when absent


def test_hook_secret_kept_when_sent(api):
    assert make(api, "hooks", {**HOOK, "secret": "s3cr3t"})["secret"] == "s3cr3t"


def test_hook_unknown_trigger_is_400(api):
    r = api.post("/api/hooks/new", {**HOOK, "triggers": ["mautic.lead_post_save_new", "mautic.nope"]})
    assert_error(r, 400, field="triggers")
    assert api.get("/api/hooks").json["total"] == 0


def test_hook_unknown_trigger_on_patch_changes_nothing(api):
    hook = make(api, "hooks", {**HOOK, "triggers": ["mautic.lead_post_save_new"]})
    assert_error(api.patch(f"/api/hooks/{hook['id']}/edit", {"triggers": ["nope"]}), 400, field="triggers")
    assert api.get(f"/api/hooks/{hook['id']}").json["hook"] == hook


@pytest.mark.parametrize(
    "body, field",
    [
        ({"name": "H"}, "webhookUrl"),
        ({"webhookUrl": "https://example.com"}, "name"),
        ({"name": "H", "webhookUrl": "not a url"}, "webhookUrl"),
        ({"name": "H", "webhookUrl": "ftp://example.com/x"}, "webhookUrl"),
        ({**HOOK, "eventsOrderbyDir": "UP"}, "eventsOrderbyDir"),
    ],
)
def test_hook_validation(api, body, field):
    assert_error(api.post("/api/hooks/new", body), 400, field=field)


@pytest.mark.parametrize("direction", ["ASC", "DESC"])
def test_hook_events_orderby_dir(api, direction):
    assert make(api, "hooks", {**HOOK, "eventsOrderbyDir": direction})["eventsOrderbyDir"] == direction
