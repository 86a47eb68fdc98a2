"""Issue 34, empty objects: a PHP client (Mautic's api-library) json-encodes an empty PHP array as `[]`,
also where the attribute is an object. Every object attribute answers an empty value as it was sent
(`[]` -> `[]`, `{}` -> `{}`), top level and in nested items, on create, read, list, PATCH, PUT and the
batch routes; not sent, it keeps its default `{}`. And the rules that read these attributes work the
same with `[]`: forms are submitted, automations run, emails are sent, triggers and point actions fire."""

import json
from urllib.parse import urlencode

import pytest

from tests.api.test_automations import action, contact, new_automation, tags
from tests.api.test_email_send import make_contact, make_email, sent_messages
from tests.api.test_forms_submit import post as submit_form

EMPTIES = ([], {})
FORM_BODY = {"Content-Type": "application/x-www-form-urlencoded"}


def same(sent, answered):
    """Equal as JSON text: `[]` and `{}` differ, as they do for a strict JSON client."""
    return json.dumps(sent, sort_keys=True) == json.dumps(answered, sort_keys=True)


def other(empty):
    return {} if empty == [] else []


def ok(response, status=200):
    assert response.status_code == status, response.json
    return response.json


# --- top-level object attributes ----------------------------------------------------------------------


def _device(api):
    return {"lead": make_contact(api)["id"], "device": "desktop"}


RESOURCES = [
    # (prefix, singular, plural, create body (or a function of the api giving it), object attributes, batch)
    ("emails", "email", "emails", {"name": "Mail", "subject": "Hi"}, ("utmTags", "headers"), True),
    ("dynamiccontents", "dynamicContent", "dynamicContents", {"name": "DC"}, ("utmTags",), True),
    ("notifications", "notification", "notifications", {"name": "Push"}, ("utmTags",), True),
    ("focus", "focus", "focus", {"name": "Bar", "type": "notice", "style": "bar"}, ("properties", "utmTags"), True),
    ("points", "point", "points", {"name": "Visit", "type": "url.hit"}, ("properties",), True),
    ("fields/contact", "field", "fields", {"label": "Shoe", "type": "number"}, ("properties",), True),
    ("fields/company", "field", "fields", {"label": "Founded", "type": "text"}, ("properties",), True),
    ("automations", "automation", "automations", {"name": "Journey"}, ("canvasSettings",), True),
    ("reports", "report", "reports", {"name": "By city", "source": "leads"}, ("settings",), False),
    ("devices", "device", "devices", _device, ("clientInfo",), True),
]


def _listed(api, prefix, plural, entity_id):
    collection = ok(api.get(f"/api/{prefix}?limit=100"))[plural]
    items = collection.values() if isinstance(collection, dict) else collection
    (found,) = [item for item in items if item["id"] == entity_id]
    return found


def _assert_holds(entity, names, empty, where):
    wrong = {name: entity.get(name) for name in names if not same(empty, entity.get(name))}
    assert not wrong, f"{where}: sent {json.dumps(empty)}, answered {wrong}"


@pytest.mark.parametrize("empty", EMPTIES, ids=["list", "object"])
@pytest.mark.parametrize("prefix,singular,plural,body,names,batch", RESOURCES, ids=[r[0] for r in RESOURCES])
def test_an_empty_object_attribute_is_answered_as_sent(api, prefix, singular, plural, body, names, batch, empty):
    base = body(api) if callable(body) else body
    sent = dict(base, **{name: empty for name in names})
    created = ok(api.post(f"/api/{prefix}/new", sent), 201)[singular]
    _assert_holds(created, names, empty, "create")
    _assert_holds(ok(api.get(f"/api/{prefix}/{created['id']}"))[singular], names, empty, "get")
    _assert_holds(_listed(api, prefix, plural, created["id"]), names, empty, "list")
    flipped = other(empty)
    patched = ok(api.patch(f"/api/{prefix}/{created['id']}/edit", {name: flipped for name in names}))[singular]
    _assert_holds(patched, names, flipped, "patch")
    _assert_holds(ok(api.get(f"/api/{prefix}/{created['id']}"))[singular], names, flipped, "get after patch")
    put = ok(api.put(f"/api/{prefix}/{created['id']}/edit", sent))[singular]
    _assert_holds(put, names, empty, "put")
    if batch:
        (made,) = ok(api.post(f"/api/{prefix}/batch/new", [sent]), 201)[plural]
        _assert_holds(made, names, empty, "batch new")
        change = dict({name: flipped for name in names}, id=made["id"])
        (edited,) = ok(api.patch(f"/api/{prefix}/batch/edit", [change]))[plural]
        _assert_holds(edited, names, flipped, "batch edit")
        (replaced,) = ok(api.put(f"/api/{prefix}/batch/edit", [dict(sent, id=made["id"])]))[plural]
        _assert_holds(replaced, names, empty, "batch put")


@pytest.mark.parametrize("prefix,singular,plural,body,names,batch", RESOURCES, ids=[r[0] for r in RESOURCES])
def test_an_object_attribute_not_sent_keeps_its_default(api, prefix, singular, plural, body, names, batch):
    created = ok(api.post(f"/api/{prefix}/new", body(api) if callable(body) else body), 201)[singular]
    _assert_holds(created, names, {}, "create without them")


def test_a_non_empty_object_is_unchanged(api):
    sent = {"name": "Mail", "utmTags": {"utmSource": "news"}, "headers": {"X-A": "1"}}
    created = ok(api.post("/api/emails/new", sent), 201)["email"]
    assert created["utmTags"] == {"utmSource": "news"} and created["headers"] == {"X-A": "1"}


def test_a_non_empty_list_is_still_refused_naming_the_field(api):
    response = api.post("/api/emails/new", {"name": "Mail", "headers": ["X-A: 1"]})
    assert response.status_code == 400
    assert "headers" in json.dumps(response.json["errors"])


def test_a_form_encoded_body_leaves_an_empty_array_out_and_gets_the_default(api):
    """PHP's http_build_query drops an empty array: the attribute is simply absent."""
    body = urlencode({"name": "Mail", "subject": "Hi", "headers[X-A]": "1"}).encode()
    created = ok(api.call("POST", "/api/emails/new", headers=FORM_BODY, raw=body), 201)["email"]
    assert same({}, created["utmTags"]) and created["headers"] == {"X-A": "1"}


# --- nested items -------------------------------------------------------------------------------------


def _assert_items(entity, collection, names, empty, where):
    for item in entity[collection]:
        _assert_holds(item, names, empty, f"{where} {collection}[{item.get('id')}]")


FIELD_OBJECTS = ("properties", "validation", "conditions")


@pytest.mark.parametrize("empty", EMPTIES, ids=["list", "object"])
def test_form_fields_and_actions_answer_empty_objects_as_sent(api, empty):
    sent = {
        "name": "Signup",
        "fields": [
            {"label": "Email", "alias": "email", "type": "email", **{n: empty for n in FIELD_OBJECTS}},
            {"label": "Send", "type": "button", **{n: empty for n in FIELD_OBJECTS}},
        ],
        "actions": [{"name": "Tag", "type": "lead.changetags", "properties": empty}],
    }
    form = ok(api.post("/api/forms/new", sent), 201)["form"]
    for where, entity in (("create", form), ("get", ok(api.get(f"/api/forms/{form['id']}"))["form"])):
        _assert_items(entity, "fields", FIELD_OBJECTS, empty, where)
        _assert_items(entity, "actions", ("properties",), empty, where)
    flipped = other(empty)
    change = {
        "fields": [{"id": f["id"], **{n: flipped for n in FIELD_OBJECTS}} for f in form["fields"]],
        "actions": [{"id": form["actions"][0]["id"], "properties": flipped}],
    }
    patched = ok(api.patch(f"/api/forms/{form['id']}/edit", change))["form"]
    _assert_items(patched, "fields", FIELD_OBJECTS, flipped, "patch")
    _assert_items(patched, "actions", ("properties",), flipped, "patch")
    put = ok(api.put(f"/api/forms/{form['id']}/edit", sent))["form"]
    _assert_items(put, "fields", FIELD_OBJECTS, empty, "put")
    _assert_items(put, "actions", ("properties",), empty, "put")


@pytest.mark.parametrize("empty", EMPTIES, ids=["list", "object"])
def test_automation_events_and_canvas_answer_empty_objects_as_sent(api, empty):
    events = [
        {"id": "new1", "name": "Tag", "type": "lead.changetags", "eventType": "action", "properties": empty},
        {"id": "new2", "name": "Open?", "type": "email.open", "eventType": "decision", "properties": empty},
    ]
    automation = new_automation(api, events, canvasSettings=empty)
    got = ok(api.get(f"/api/automations/{automation['id']}"))["automation"]
    for where, entity in (("create", automation), ("get", got)):
        _assert_items(entity, "events", ("properties",), empty, where)
        _assert_holds(entity, ("canvasSettings",), empty, where)
    flipped = other(empty)
    change = {"events": [{"id": e["id"], "properties": flipped} for e in automation["events"]]}
    patched = ok(api.patch(f"/api/automations/{automation['id']}/edit", change))["automation"]
    _assert_items(patched, "events", ("properties",), flipped, "patch")
    clone = ok(api.post(f"/api/automations/clone/{automation['id']}"), 201)["automation"]
    _assert_holds(clone, ("canvasSettings",), empty, "clone")


@pytest.mark.parametrize("empty", EMPTIES, ids=["list", "object"])
def test_point_trigger_events_answer_empty_objects_as_sent(api, empty):
    sent = {"name": "Hot", "points": 10, "events": [{"name": "Tag", "type": "lead.changetags", "properties": empty}]}
    trigger = ok(api.post("/api/points/triggers/new", sent), 201)["trigger"]
    _assert_items(trigger, "events", ("properties",), empty, "create")
    got = ok(api.get(f"/api/points/triggers/{trigger['id']}"))["trigger"]
    _assert_items(got, "events", ("properties",), empty, "get")
    flipped = other(empty)
    change = {"events": [{"id": trigger["events"][0]["id"], "properties": flipped}]}
    patched = ok(api.patch(f"/api/points/triggers/{trigger['id']}/edit", change))["trigger"]
    _assert_items(patched, "events", ("properties",), flipped, "patch")
    put = ok(api.put(f"/api/points/triggers/{trigger['id']}/edit", sent))["trigger"]
    _assert_items(put, "events", ("properties",), empty, "put")


@pytest.mark.parametrize("empty", EMPTIES, ids=["list", "object"])
def test_marketing_message_channel_properties_are_stored_as_sent(api, empty):
    """Mautic does not show a channel's `properties`; they are kept as sent."""
    from chalicelib.domain.kernel import registry, service

    mail = make_email(api)
    sent = {"name": "Offer", "channels": {"email": {"channelId": mail["id"], "isEnabled": True, "properties": empty}}}
    message = ok(api.post("/api/messages/new", sent), 201)["message"]
    stored = service.load(registry.resource("message"), message["id"])
    (entry,) = [e for e in stored["channels"] if e["channel"] == "email"]
    assert same(empty, entry["properties"])


# --- the rules still work with `[]` ---------------------------------------------------------------------


def test_a_form_whose_objects_are_empty_lists_renders_and_is_submitted(api):
    fields = [
        {"label": "Email", "alias": "email", "type": "email", "mappedObject": "contact", "mappedField": "email"},
        {"label": "Send", "type": "button"},
    ]
    sent = {
        "name": "Signup",
        "postActionProperty": "Thanks!",
        "fields": [dict(f, properties=[], validation=[], conditions=[]) for f in fields],
        "actions": [{"name": "Tag", "type": "lead.changetags", "properties": []}],
    }
    form = ok(api.post("/api/forms/new", sent), 201)["form"]
    assert 'name="mauticform[email]"' in form["cachedHtml"]
    response = submit_form(api, form["id"], {"email": "ann@example.com"})
    assert response.status_code == 200 and "Thanks!" in response.body.decode()
    (found,) = ok(api.get("/api/contacts?search=email:ann@example.com"))["contacts"].values()
    assert found["fields"]["all"]["email"] == "ann@example.com"


def test_an_automation_whose_event_properties_are_empty_lists_runs(api, drain):
    ann = make_contact(api)
    events = [
        dict(action("new1", "lead.changetags"), properties=[]),
        action("new2", "lead.changepoints", {"points": 5}, parent="new1"),
    ]
    automation = new_automation(api, events, canvasSettings=[])
    ok(api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add"))
    drain()
    assert contact(api, ann["id"])["points"] == 5
    assert tags(api, ann["id"]) == []


def test_an_email_whose_utm_tags_and_headers_are_empty_lists_is_sent(api):
    ann, mail = make_contact(api), make_email(api, utmTags=[], headers=[])
    assert ok(api.post(f"/api/emails/{mail['id']}/contact/{ann['id']}/send")) == {"success": True}
    (message,) = sent_messages()
    assert message["To"] == "Ann <ann@example.com>"


def test_a_point_trigger_whose_event_properties_are_empty_fires(api):
    sent = {"name": "Hot", "points": 10, "events": [{"name": "Tag", "type": "lead.changetags", "properties": []}]}
    trigger = ok(api.post("/api/points/triggers/new", sent), 201)["trigger"]
    ann = make_contact(api)
    ok(api.patch(f"/api/contacts/{ann['id']}/edit", {"points": 20}))
    query = "filters[includeEvents][]=point.gained&limit=100"
    (gained,) = ok(api.get(f"/api/contacts/{ann['id']}/activity?{query}"))["events"]
    assert gained["details"]["triggerEvents"] == [trigger["events"][0]["id"]]


def test_a_point_action_whose_properties_are_an_empty_list_scores(api):
    sent = {"name": "Sent", "type": "email.send", "delta": 3, "properties": [], "repeatable": True}
    ok(api.post("/api/points/new", sent), 201)
    ann, mail = make_contact(api), make_email(api)
    ok(api.post(f"/api/emails/{mail['id']}/contact/{ann['id']}/send"))
    assert contact(api, ann["id"])["points"] == 3
