"""Focus items (`/api/focus`) and marketing messages (`/api/messages`): envelopes, list shapes,
references checked, channel entries as Mautic shows them, the focus script, batch."""

from tests.api.payloads import assert_error

FOCUS = {
    "name": "Spring",
    "type": "notice",
    "style": "bar",
    "properties": {"content": {"headline": "Sale", "link_text": "Shop", "link_url": "https://example.com"}},
}


def _focus(api, **extra):
    response = api.post("/api/focus/new", dict(FOCUS, **extra))
    assert response.status_code == 201, response.json
    return response.json["focus"]


def test_focus_create_get_list_keyed_by_id(api):
    form = api.post("/api/forms/new", {"name": "Signup"}).json["form"]
    item = _focus(api, form=form["id"], utmTags={"utmSource": "web"}, website="https://example.com")
    assert item["form"] == form["id"] and item["type"] == "notice" and item["style"] == "bar"
    assert item["utmTags"] == {"utmSource": "web"} and item["cache"] is None and item["isPublished"] is True
    assert api.get(f"/api/focus/{item['id']}").json["focus"]["name"] == "Spring"
    listing = api.get("/api/focus").json
    assert listing["total"] == 1 and list(listing["focus"]) == [str(item["id"])]
    minimal = api.get("/api/focus?minimal=1").json["focus"][str(item["id"])]
    assert "html" not in minimal and minimal["name"] == "Spring"


def test_focus_search_commands(api):
    first = _focus(api)
    second = _focus(api, name="Other", isPublished=False)
    assert list(api.get("/api/focus?search=is:unpublished").json["focus"]) == [str(second["id"])]
    assert list(api.get(f"/api/focus?search=ids:{first['id']}").json["focus"]) == [str(first["id"])]
    assert api.get("/api/focus?search=is:uncategorized").json["total"] == 2


def test_focus_bad_input_names_the_field_and_writes_nothing(api):
    assert_error(api.post("/api/focus/new", {"name": "x", "type": "notice"}), 400, field="style")
    assert_error(api.post("/api/focus/new", dict(FOCUS, type="popup")), 400, field="type")
    assert_error(api.post("/api/focus/new", dict(FOCUS, form=999)), 400, field="form")
    assert api.get("/api/focus").json["total"] == 0
    assert_error(api.get("/api/focus/5"), 404)


def test_focus_edit_delete_and_batch(api):
    item = _focus(api)
    assert api.patch(f"/api/focus/{item['id']}/edit", {"style": "modal"}).json["focus"]["style"] == "modal"
    assert_error(api.put(f"/api/focus/{item['id']}/edit", {"name": "Only"}), 400, field="type")
    gone = api.delete(f"/api/focus/{item['id']}/delete")
    assert gone.status_code == 200 and gone.json["focus"]["id"] is None
    batch = api.post("/api/focus/batch/new", [FOCUS, dict(FOCUS, name="B")])
    assert batch.status_code == 201 and batch.json["statusCodes"] == [201, 201]


def test_focus_script_renders_the_item(api):
    item = _focus(api, properties={"content": {"headline": "</script><b>Hi", "link_text": "Go"}})
    script = api.get(f"/api/focus/{item['id']}/js")
    assert script.status_code == 200
    js = script.json["js"]
    assert f"mautic-focus-{item['id']}" in js and "createElement" in js
    assert "</script>" not in js and "\\u003c/script\\u003e\\u003cb\\u003eHi" in js
    assert_error(api.get("/api/focus/99/js"), 404)


def _content(api):
    email = api.post("/api/emails/new", {"name": "Mail", "subject": "S"}).json["email"]
    sms = api.post("/api/smses/new", {"name": "Text", "message": "m"}).json["sms"]
    return email, sms


def by_channel(message):
    """A message's `channels` (a list, as Mautic's MessageApiControllerTest reads it) keyed by channel."""
    assert isinstance(message["channels"], list)
    return {entry["channel"]: entry for entry in message["channels"]}


def test_message_create_saves_the_channels_named_and_names_the_content(api):
    email, sms = _content(api)
    body = {
        "name": "Offer",
        "description": "d",
        "channels": {
            "email": {"channel": "email", "channelId": email["id"], "isEnabled": 1, "properties": {"x": 1}},
            "sms": {"channelId": sms["id"], "isEnabled": 0},
        },
    }
    response = api.post("/api/messages/new", body)
    assert response.status_code == 201, response.json
    message = response.json["message"]
    channels = by_channel(message)
    assert [entry["channel"] for entry in message["channels"]] == ["email", "sms"]  # the saved ones, in order
    assert {k: v for k, v in channels["email"].items() if k != "id"} == {
        "channel": "email",
        "channelId": email["id"],
        "channelName": "Mail",
        "isEnabled": True,
    }
    assert channels["sms"]["channelName"] == "Text" and channels["sms"]["isEnabled"] is False
    listing = api.get("/api/messages").json
    assert listing["total"] == 1 and [m["id"] for m in listing["messages"]] == [message["id"]]
    assert api.get(f"/api/messages/{message['id']}").json["message"]["channels"] == message["channels"]


def test_message_patch_changes_named_channels_keeping_ids_and_put_resets(api):
    email, sms = _content(api)
    message = api.post(
        "/api/messages/new",
        {"name": "Offer", "channels": [{"channel": "email", "channelId": email["id"], "isEnabled": True}]},
    ).json["message"]
    patched = api.patch(
        f"/api/messages/{message['id']}/edit", {"channels": {"sms": {"channelId": sms["id"], "isEnabled": True}}}
    ).json["message"]
    assert by_channel(patched)["email"] == by_channel(message)["email"]
    assert by_channel(patched)["sms"]["id"] > by_channel(message)["email"]["id"]
    assert by_channel(patched)["sms"]["isEnabled"] is True
    put = api.put(f"/api/messages/{message['id']}/edit", {"name": "Offer"}).json["message"]
    assert not any(c["isEnabled"] for c in put["channels"])
    assert by_channel(put)["email"]["id"] == by_channel(message)["email"]["id"]


def test_message_refuses_an_unknown_channel_and_writes_nothing(api):
    assert_error(
        api.post("/api/messages/new", {"name": "M", "channels": {"fax": {"channelId": 1}}}), 400, field="channels"
    )
    assert_error(api.post("/api/messages/new", {"channels": {}}), 400, field="name")
    assert api.get("/api/messages").json == {"total": 0, "messages": []}
    assert_error(api.get("/api/messages/3"), 404)


def test_message_takes_any_content_id_as_mautic_and_names_none_for_missing_content(api):
    """Mautic's `channelId` is a plain integer column (`MessageApiControllerTest` saves 12 with no such email)."""
    created = api.post("/api/messages/new", {"name": "M", "channels": {"email": {"channelId": "42", "isEnabled": 1}}})
    assert created.status_code == 201, created.json
    assert [(c["channelId"], c["channelName"]) for c in created.json["message"]["channels"]] == [(42, None)]


def test_message_delete_and_batch(api):
    email, _ = _content(api)
    batch = api.post("/api/messages/batch/new", [{"name": "A"}, {"name": "B", "channels": {"fax": {"channelId": 999}}}])
    assert batch.status_code == 201 and batch.json["statusCodes"] == [201, 400]
    created = batch.json["messages"][0]
    gone = api.delete(f"/api/messages/{created['id']}/delete")
    assert gone.status_code == 200 and gone.json["message"]["id"] is None
    assert api.get("/api/messages").json["total"] == 0
