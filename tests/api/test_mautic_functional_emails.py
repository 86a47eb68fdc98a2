"""Mautic 5.1's email API functional tests (`EmailApiControllerFunctionalTest`, `PreviewFunctionalTest`),
read as HTTP requests with the same assertions."""

from tests.api.payloads import assert_error
from tests.api.test_email_send import sent_messages
from tests.api.test_mautic_functional import posted
from tests.api.test_permissions import _as


def test_single_email_workflow(api):
    """`EmailApiControllerFunctionalTest::testSingleEmailWorkflow`: `publicPreview` is false until set."""
    segments = posted(
        api,
        "POST",
        "/api/segments/batch/new",
        [{"name": name, "description": "Segment created via API test"} for name in ("API segment A", "API segment B")],
    ).json["lists"]
    first, second = segments[0]["id"], segments[1]["id"]
    payload = {
        "name": "API email",
        "subject": "Email created via API test",
        "emailType": "list",
        "lists": [first],
        "customHtml": "<h1>Email content created by an API test</h1>",
    }
    created = posted(api, "POST", "/api/emails/new", payload)
    assert created.status_code == 201, created.json
    email = created.json["email"]
    assert ([item["id"] for item in email["lists"]], email["publicPreview"]) == ([first], False)
    patched = posted(
        api,
        "PATCH",
        f"/api/emails/{email['id']}/edit",
        {"name": "API email renamed", "lists": [second], "publicPreview": True},
    ).json["email"]
    assert (patched["name"], [item["id"] for item in patched["lists"]], patched["publicPreview"]) == (
        "API email renamed",
        [second],
        True,
    )
    assert patched["subject"] == payload["subject"]
    put = dict(
        payload, subject="Email created via API test renamed", lists=[first, second], language="en", publicPreview=False
    )
    replaced = posted(api, "PUT", f"/api/emails/{email['id']}/edit", put).json["email"]
    assert (replaced["subject"], len(replaced["lists"]), replaced["publicPreview"]) == (put["subject"], 2, False)
    deleted = api.delete(f"/api/emails/{email['id']}/delete")
    assert (deleted.status_code, deleted.json["email"]["id"], len(deleted.json["email"]["lists"])) == (200, None, 2)
    assert_error(api.get(f"/api/emails/{email['id']}"), 404)
    gone = api.delete(f"/api/segments/batch/delete?ids={first},{second}")
    assert (gone.status_code, len(gone.json["lists"])) == (200, 2)


def _sender_setup(api):
    """TestSendAction's world: a user (owner), Jane Doe owned by them in a segment, and a list email."""
    owner = _as(api, "apitest", {"email:emails": ["viewown"]})
    api.patch(f"/api/users/{owner.user_id}/edit", {"firstName": "John", "lastName": "Doe", "email": "john@api.test"})
    segment = api.post("/api/segments/new", {"name": "API segment", "filters": []}).json["list"]
    contact = api.post(
        "/api/contacts/new", {"firstname": "Jane", "lastname": "Doe", "email": "jane@api.test", "owner": owner.user_id}
    ).json["contact"]
    assert api.post(f"/api/segments/{segment['id']}/contact/{contact['id']}/add").status_code == 200
    return segment, contact


def _email(api, segment, **extra):
    body = {
        "name": "API email",
        "subject": "Email created via API test",
        "emailType": "list",
        "lists": [segment["id"]],
        "customHtml": "<h1>Email content created by an API test</h1>{custom-token}<br>",
        "isPublished": True,
        "fromAddress": "from@api.test",
        "fromName": "API Test",
        "replyToAddress": "reply@api.test",
        "bccAddress": "bcc@api.test",
    }
    created = api.post("/api/emails/new", dict(body, **extra))
    assert created.status_code == 201, created.json
    return created.json["email"]["id"]


def test_send_action(api, drain):
    """`EmailApiControllerFunctionalTest::testSendAction`: the segment send answers exactly `success`,
    `sentCount` and `failedRecipients`; a contact send exactly `success`; sender, reply-to and the
    recipient's name as Mautic sets them, the owner as mailer included."""
    segment, contact = _sender_setup(api)
    email_id = _email(api, segment)
    answer = api.post(f"/api/emails/{email_id}/send")
    assert answer.status_code == 200
    assert answer.json == {"success": 1, "sentCount": 1, "failedRecipients": 0}
    message = sent_messages()[-1]
    assert (message["Subject"], message["To"], message["From"]) == (
        "Email created via API test",
        "Jane Doe <jane@api.test>",
        "API Test <from@api.test>",
    )
    assert message["Reply-To"] == "reply@api.test"
    assert "{custom-token}" in message.get_body(("html",)).get_content()
    single = posted(
        api,
        "POST",
        f"/api/emails/{email_id}/contact/{contact['id']}/send",
        {"tokens": {"{custom-token}": "custom <b>value</b>"}},
    )
    assert (single.status_code, single.json) == (200, {"success": True})
    assert "custom <b>value</b>" in sent_messages()[-1].get_body(("html",)).get_content()
    owned = _email(api, segment, useOwnerAsMailer=True, replyToAddress=None)
    assert api.post(f"/api/emails/{owned}/send").json == {"success": 1, "sentCount": 1, "failedRecipients": 0}
    message = sent_messages()[-1]
    assert (message["From"], message["Reply-To"]) == ("John Doe <john@api.test>", "john@api.test")


def _page(api, path, auth=True):
    """The preview page: (status, HTML text), signed in as `api`'s user or anonymous."""
    headers = dict(api.auth) if auth else {}
    response = api.http.request("GET", path, headers=headers, body=b"")
    return response.status_code, response.body.decode()


def _preview_email(api, **extra):
    body = {
        "name": "Email name",
        "subject": "Email subject",
        "template": "blank",
        "publicPreview": True,
        "customHtml": "Contact emails is {contactfield=email}",
    }
    return api.post("/api/emails/new", dict(body, **extra)).json["email"]["id"]


def test_preview_page(api):
    """`PreviewFunctionalTest::testPreviewPage`: anonymous visitors see placeholders even with a
    `contactId`; a signed-in administrator sees the named contact's values. Nothing is tracked."""
    contact = api.post("/api/contacts/new", {"email": "test@domain.tld"}).json["contact"]
    email_id = _preview_email(api)
    url = f"/email/preview/{email_id}"
    for path in (url, f"{url}?contactId={contact['id']}"):
        status, html = _page(api, path, auth=False)
        assert status == 200 and "Contact emails is [Email]" in html and ".gif" not in html
    assert "Contact emails is [Email]" in _page(api, url)[1]
    assert "Contact emails is test@domain.tld" in _page(api, f"{url}?contactId={contact['id']}")[1]
    shown = api.get(f"/api/emails/{email_id}").json["email"]
    assert (shown["sentCount"], shown["readCount"]) == (0, 0)
    assert sent_messages() == []


def test_preview_page_refuses_what_the_viewer_may_not_see(api):
    """`PublicController::previewAction`: anonymous visitors only see published emails with a public
    preview; a user needs view access to the email, and only an administrator sees contact data."""
    contact = api.post("/api/contacts/new", {"email": "test@domain.tld"}).json["contact"]
    private = _preview_email(api, publicPreview=False)
    unpublished = _preview_email(api, isPublished=False)
    assert _page(api, f"/email/preview/{private}", auth=False)[0] == 403
    assert _page(api, f"/email/preview/{unpublished}", auth=False)[0] == 403
    assert _page(api, f"/email/preview/{private}")[0] == 200
    assert _page(api, "/email/preview/999", auth=False)[0] == 404
    stranger = _as(api, "stranger", {"lead:leads": ["viewother"]})
    assert _page(stranger, f"/email/preview/{private}")[0] == 403
    reader = _as(api, "reader", {"email:emails": ["viewother"], "lead:leads": ["viewother"]})
    status, page = _page(reader, f"/email/preview/{private}?contactId={contact['id']}")
    assert status == 200 and "Contact emails is [Email]" in page and "test@domain.tld" not in page


def test_reply_action_if_not_found(api):
    """`EmailApiControllerFunctionalTest::testReplyActionIfNotFound`: 404 with Mautic's message."""
    answer = api.post("/api/emails/reply/tracking_hash_123")
    assert answer.status_code == 404
    assert answer.json["errors"][0]["message"] == "Email Stat with tracking hash tracking_hash_123 was not found"


def test_reply_action(api):
    """`EmailApiControllerFunctionalTest::testReplyAction`: 201 `{"success": true}`; the reply and the read
    stat in the stats API, whose `total` is Mautic's string count."""
    import re

    contact = api.post("/api/contacts/new", {"email": "john@doe.email"}).json["contact"]["id"]
    email_id = api.post("/api/emails/new", {"name": "Reply", "subject": "S", "customHtml": "<p>Hi</p>"}).json["email"][
        "id"
    ]
    assert api.post(f"/api/emails/{email_id}/contact/{contact}/send").json == {"success": True}
    stat = api.get("/api/stats/email_stats").json["stats"][0]
    tracking_hash = sent_messages()[-1]["X-Mautic-Tracking"]  # the stats API keeps the hash out, as a secret
    answer = api.post(f"/api/emails/reply/{tracking_hash}")
    assert (answer.status_code, answer.json) == (201, {"success": True})
    replies = api.get(
        f"/api/stats/email_stat_replies?where[0][col]=stat_id&where[0][expr]=eq&where[0][val]={stat['id']}"
    ).json
    assert replies["total"] == "1"
    assert int(replies["stats"][0]["stat_id"]) == int(stat["id"])
    assert re.match(r"api-[a-z0-9]*", replies["stats"][0]["message_id"])
    stats = api.get(f"/api/stats/email_stats?where[0][col]=id&where[0][expr]=eq&where[0][val]={stat['id']}").json
    assert stats["total"] == "1"
    assert str(stats["stats"][0]["is_read"]) == "1"
    assert re.match(r"\d{4}-\d{2}-\d{2}\s\d{2}:\d{2}:\d{2}", stats["stats"][0]["date_read"])
