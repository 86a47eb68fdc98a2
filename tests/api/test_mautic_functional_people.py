"""Mautic 5.1's API functional tests of users, points, marketing messages, dynamic content and assets
(`UserApiControllerFunctionalTest`, `PointGroupsApiControllerTest`, `PointEntityValidationTest`,
`MessageApiControllerTest`, `DynamicContentApiControllerFunctionalTest`, `AssetApiControllerFunctionalTest`),
read as HTTP requests with the same assertions."""

import json

import pytest

from tests.api.test_mautic_functional import posted
from tests.api.test_permissions import _as


def test_role_update_by_api_gives_error_response_if_user_does_not_exist(api):
    """`UserApiControllerFunctionalTest::testRoleUpdateByApiGivesErrorResponseIfUserDoesNotExist`."""
    answer = posted(api, "PATCH", "/api/users/99999/edit", {"role": 1})
    assert answer.status_code == 404 and '"message":"Item was not found."' in answer.body.decode()


@pytest.mark.parametrize("role", [99999, {"id": 1}], ids=["unknown", "object"])
def test_role_update_by_api_gives_error_response_if_role_is_not_valid(api, role):
    """`testRoleUpdateByApiGivesErrorResponseIfRoleDoesNotExist` and
    `testRoleUpdateByApiGivesErrorResponseWithInvalidRequestFormat`: both `role: This value is not valid.`
    (Mautic's admin has an email, which our seeded one gets first: a user's email is required.)"""
    assert api.patch("/api/users/1/edit", {"email": "admin@example.com"}).status_code == 200
    answer = posted(api, "PATCH", "/api/users/1/edit", {"role": role})
    assert answer.status_code == 400
    assert '"message":"role: This value is not valid."' in answer.body.decode()
    assert json.dumps(api.get("/api/users/1").json["user"]["role"]) != "null"


@pytest.mark.parametrize("status, password", [(400, "aaa"), (400, "qwerty"), (400, "qwerty123"), (201, "Qwertee@123")])
def test_user_password_policy(api, status, password):
    """`UserApiControllerFunctionalTest::testUserPasswordPolicy`: zxcvbn's score 3 at least, as Mautic."""
    payload = {
        "username": "lorem_ipsum",
        "firstName": "lorem",
        "lastName": "ipsum",
        "email": "loremipsum@example.com",
        "plainPassword": {"password": password, "confirm": password},
        "role": 1,
    }
    answer = posted(api, "POST", "/api/users/new", payload)
    assert answer.status_code == status, answer.json
    if password.startswith("qwerty"):
        assert answer.json["errors"][0]["message"].startswith("plainPassword: Please enter a stronger password.")


def test_role_update_by_api_gives_error_response_if_user_does_not_have_valid_permission_to_update(api):
    """`testRoleUpdateByApiGivesErrorResponseIfUserDoesNotHaveValidPermissionToUpdate`: 403, Mautic's words."""
    viewer = _as(api, "viewer", {"lead:leads": ["viewown"]})
    role = api.get(f"/api/users/{viewer.user_id}").json["user"]["role"]["id"]
    answer = posted(viewer, "PATCH", f"/api/users/{viewer.user_id}/edit", {"role": role})
    assert answer.status_code == 403
    assert '"message":"You do not have access to the requested area\\/action."' in answer.body.decode() or (
        answer.json["errors"][0]["message"] == "You do not have access to the requested area/action."
    )


def test_point_group_workflow_and_contact_group_points(api):
    """`PointGroupsApiControllerTest`: a group made without a description answers `""`; the contact's
    group scores after plus, minus, divide, times and set."""
    group_a = posted(api, "POST", "/api/points/groups/new", {"name": "Group A"}).json["pointGroup"]
    group_b = posted(api, "POST", "/api/points/groups/new", {"name": "Group B"}).json["pointGroup"]
    assert group_a["description"] == ""
    contact = api.post("/api/contacts/new", {"email": "test@example.com"}).json["contact"]["id"]
    steps = [(group_a, "plus", 10, 10), (group_a, "minus", 2, 8), (group_a, "divide", 2, 4), (group_a, "times", 4, 16)]
    for group, operator, value, score in [*steps, (group_b, "set", 21, 21)]:
        answer = api.post(f"/api/contacts/{contact}/points/groups/{group['id']}/{operator}/{value}")
        assert (answer.status_code, answer.json["groupScore"]["score"]) == (200, score)
    scores = api.get(f"/api/contacts/{contact}/points/groups").json
    assert int(scores["total"]) == 2
    assert scores["groupScores"] == [
        {"score": 16, "group": {"id": group_a["id"], "name": "Group A", "description": ""}},
        {"score": 21, "group": {"id": group_b["id"], "name": "Group B", "description": ""}},
    ]


@pytest.mark.parametrize(
    "delta, ok",
    [
        (3000, True),
        (-7857, True),
        (0, True),
        (2**31 - 1, True),
        (-(2**31), True),
        (2**31 + 9, False),
        (-(2**31) - 10, False),
    ],
)
def test_delta_validation_on_create_via_api(api, delta, ok):
    """`PointEntityValidationTest::testDeltaValidationOnCreateViaAPI`: a delta within 32 bits."""
    answer = posted(
        api, "POST", "/api/points/new", {"name": "Point1", "delta": delta, "isPublished": True, "type": "form.submit"}
    )
    assert answer.status_code == (201 if ok else 400), answer.json
    text = answer.body.decode()
    assert ("error" in text) is not ok
    if not ok:
        assert "This value should be between -2147483648 and 2147483647." in text


def _message_channels(answer):
    return [(c["channel"], c["channelId"], c["isEnabled"]) for c in answer["channels"]]


def test_create_message(api):
    """`MessageApiControllerTest::testCreateMessage`: the one channel saved, answered as a list."""
    payload = {
        "name": "API message",
        "description": "Marketing message created via API functional test",
        "channels": {"email": {"channel": "email", "channelId": 12, "isEnabled": True}},
    }
    answer = posted(api, "POST", "/api/messages/new", payload)
    assert answer.status_code == 201, answer.json
    message = answer.json["message"]
    assert (message["name"], message["description"]) == (payload["name"], payload["description"])
    assert _message_channels(message) == [("email", 12, True)]
    assert message["channels"][0]["id"] > 0


@pytest.mark.parametrize(
    "patch, expected",
    [
        ({"name": "API message (updated)"}, ("API message (updated)", None, [("email", 12, True)])),
        (
            {
                "description": "Description (updated)",
                "channels": {"email": {"channel": "email", "channelId": 13, "isEnabled": False}},
            },
            ("API message", "Description (updated)", [("email", 13, False)]),
        ),
    ],
)
def test_edit_message_with_patch(api, patch, expected):
    """`MessageApiControllerTest::testEditMessageWithPatch`."""
    created = api.post(
        "/api/messages/new",
        {"name": "API message", "channels": {"email": {"channel": "email", "channelId": 12, "isEnabled": True}}},
    ).json["message"]
    answer = posted(api, "PATCH", f"/api/messages/{created['id']}/edit", dict({"id": created["id"]}, **patch))
    assert answer.status_code == 200, answer.json
    message = answer.json["message"]
    assert (message["name"], message["description"], _message_channels(message)) == expected


def test_edit_messages_with_patch(api):
    """`MessageApiControllerTest::testEditMessagesWithPatch`: a channel patched by its key keeps its name."""
    ids = [
        api.post(
            "/api/messages/new",
            {
                "name": f"API message {n}",
                "channels": {"email": {"channel": "email", "channelId": cid, "isEnabled": True}},
            },
        ).json["message"]["id"]
        for n, cid in ((1, 12), (2, 13))
    ]
    payload = [
        {"id": ids[0], "name": "API message 1 (updated)"},
        {"id": ids[1], "channels": {"email": {"channelId": 14, "isEnabled": False}}},
    ]
    answer = posted(api, "PATCH", "/api/messages/batch/edit", payload)
    assert answer.status_code == 200, answer.json
    first, second = answer.json["messages"]
    assert (first["name"], _message_channels(first)) == ("API message 1 (updated)", [("email", 12, True)])
    assert (second["name"], _message_channels(second)) == ("API message 2", [("email", 14, False)])


def test_dwc_get_endpoint_for_no_slot_nor_contact(api):
    """`DynamicContentApiControllerFunctionalTest::testDwcGetEndpointForNoSlotNorContact`: 204."""
    answer = api.http.request("GET", "/dwc/slot-a", headers={}, body=b"")
    assert answer.status_code == 204
    assert answer.body in (b"", None)


def test_create_new_remote_asset_with_vulnerable_file(api):
    """`AssetApiControllerFunctionalTest::testCreateNewRemoteAssetWithVulnerableFile`: Mautic's field and
    message (its body there has no `type` key; ours keeps `type: null`, as every other error of its API)."""
    payload = {"file": "file:///etc/passwd", "storageLocation": "remote", "title": "title"}
    answer = posted(api, "POST", "/api/assets/new", payload)
    assert answer.status_code == 400
    (error,) = answer.json["errors"]
    assert (error["code"], error["message"], error["details"]) == (
        400,
        "remotePath: The remote should be a valid URL.",
        {"remotePath": ["The remote should be a valid URL."]},
    )
    assert api.get("/api/assets").json["total"] in (0, "0")


def test_a_contact_points_change_outside_32_bits_is_refused(api):
    """Mautic's contact points are an INT column (`IntHelper`): a change beyond 32 bits is a 400, nothing written."""
    contact = api.post("/api/contacts/new", {"email": "points@example.com", "points": 5}).json["contact"]["id"]
    answer = api.post(f"/api/contacts/{contact}/points/plus/{2**31}")
    assert answer.status_code == 400
    assert "This value should be between -2147483648 and 2147483647." in answer.json["errors"][0]["message"]
    assert api.get(f"/api/contacts/{contact}").json["contact"]["points"] == 5
    assert api.post(f"/api/contacts/{contact}/points/minus/{2**31 - 1}").status_code == 200


def test_focus_api_new(api):
    """`FocusApiControllerTest::testFocusApiNew`: a focus item posted form-encoded, its properties nested."""
    payload = {
        "name": "test",
        "type": "notice",
        "website": "http://",
        "style": "bar",
        "htmlMode": 1,
        "html": '<div><strong style="color:red">html mode enabled</strong></div>',
        "properties": {
            "bar": {"allow_hide": 1, "sticky": 1, "size": "large", "placement": "top"},
            "modal": {"placement": "top"},
            "notification": {"placement": "top_left"},
            "animate": 1,
            "link_activation": 1,
            "colors": {"primary": "27184e"},
            "content": {"headline": "", "font": "Arial, Helvetica, sans-serif"},
            "when": "immediately",
            "frequency": "everypage",
            "stop_after_conversion": 1,
        },
    }
    answer = posted(api, "POST", "/api/focus/new", payload)
    assert answer.status_code == 201, answer.json
    assert answer.json["focus"]["id"] and answer.json["focus"]["name"] == "test"
