"""Issue 9 end to end on the local stack over real HTTP: a multipart upload, an asset and its download,
a form post through the public endpoint, and a landing page fetch."""

import base64
import json
from urllib.parse import parse_qs, urlencode

import pytest

from tests.e2e.test_local_stack import PASSWORD, Stack, _call

BOUNDARY = "e2eBoundary9"
CONTENT = b"%PDF-1.4 e2e\x00\xff"


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    running = Stack(tmp_path_factory.mktemp("public") / "data")
    yield running
    running.stop()


def _raw(conn, method, path, body=None, headers=None):
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    return response.status, response.read(), response


def test_upload_asset_and_download(stack):
    conn = stack.connection()
    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="guide.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n"
    ).encode()
    body = head + CONTENT + f"\r\n--{BOUNDARY}--\r\n".encode()
    status, data, _ = _raw(
        conn,
        "POST",
        "/api/files/assets/new",
        body,
        {
            "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
            "Authorization": "Basic " + base64.b64encode(f"admin:{PASSWORD}".encode()).decode(),
        },
    )
    assert status == 200, data
    name = json.loads(data)["file"]["name"]
    status, created, _ = _call(conn, "POST", "/api/assets/new", {"title": "Guide", "file": name})
    assert status == 201 and created["asset"]["size"] == len(CONTENT)
    status, data, response = _raw(conn, "GET", f"/asset/{created['asset']['id']}:guide", headers={"Accept": "*/*"})
    assert status == 200 and data == CONTENT
    assert response.getheader("Content-Disposition").startswith("attachment")
    status, asset, _ = _call(conn, "GET", f"/api/assets/{created['asset']['id']}")
    assert asset["asset"]["downloadCount"] == 1


def test_form_post_then_page_fetch_as_the_tracked_contact(stack):
    conn = stack.connection()
    status, form, _ = _call(
        conn,
        "POST",
        "/api/forms/new",
        {
            "name": "Signup",
            "postAction": "message",
            "postActionProperty": "Welcome aboard",
            "fields": [
                {
                    "label": "Email",
                    "alias": "email",
                    "type": "email",
                    "isRequired": True,
                    "mappedObject": "contact",
                    "mappedField": "email",
                },
                {
                    "label": "Name",
                    "alias": "name",
                    "type": "text",
                    "mappedObject": "contact",
                    "mappedField": "firstname",
                },
            ],
        },
    )
    assert status == 201
    form_id = form["form"]["id"]
    body = urlencode({"mauticform[formId]": form_id, "mauticform[email]": "e2e@example.com", "mauticform[name]": "Eve"})
    status, data, response = _raw(
        conn, "POST", f"/form/submit?formId={form_id}", body, {"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert status == 200 and b"Welcome aboard" in data
    cookie = "; ".join(value.split(";")[0] for value in response.msg.get_all("Set-Cookie"))
    status, bad, _ = _raw(
        conn,
        "POST",
        f"/form/submit?formId={form_id}",
        urlencode({"mauticform[email]": "x"}),
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert status == 400 and "email" in json.loads(bad)["errors"][0]["details"]
    status, listed, _ = _call(conn, "GET", f"/api/forms/{form_id}/submissions")
    assert int(listed["total"]) == 1 and listed["submissions"][0]["results"]["name"] == "Eve"
    _call(conn, "POST", "/api/pages/new", {"title": "Welcome", "customHtml": "<p>Hi {contactfield=firstname}</p>"})
    status, page, _ = _raw(conn, "GET", "/welcome", headers={"Cookie": cookie})
    assert status == 200 and page == b"<p>Hi Eve</p>"
    status, pixel, _ = _raw(
        conn,
        "GET",
        "/mtracking.gif?page_url=https%3A%2F%2Fsite.example%2F",
        headers={"Cookie": cookie, "Accept": "image/*,*/*"},
    )
    assert status == 200 and pixel.startswith(b"GIF89a")


def test_a_new_visitor_gets_the_cookie_of_an_anonymous_contact(stack):
    conn = stack.connection()
    _call(
        conn, "POST", "/api/pages/new", {"title": "Visitors", "customHtml": "<p>Hi {contactfield=firstname|there}</p>"}
    )
    browser = {
        "User-Agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) "
        "Version/17.4 Safari/605.1.15"
    }
    status, page, response = _raw(conn, "GET", "/visitors", headers=browser)
    assert status == 200 and page == b"<p>Hi there</p>"
    cookies = dict(value.split(";")[0].split("=", 1) for value in response.msg.get_all("Set-Cookie"))
    contact_id = cookies["mtc_id"]
    assert contact_id.isdigit() and cookies["mtc_sid"].startswith(f"{contact_id}.")
    cookie = "; ".join(f"{name}={value}" for name, value in cookies.items())
    status, found, _ = _call(conn, "GET", f"/api/contacts/{contact_id}")
    assert status == 200 and found["contact"]["dateIdentified"] is None
    assert [ip["ipAddress"] for ip in found["contact"]["ipAddresses"]] == ["127.0.0.1"]
    status, _, again = _raw(conn, "GET", "/visitors", headers=dict(browser, Cookie=cookie))
    assert status == 200 and again.msg.get_all("Set-Cookie")[0].split(";")[0] == f"mtc_id={contact_id}"
    status, anonymous, _ = _call(conn, "GET", "/api/contacts?search=is:anonymous")
    assert list(anonymous["contacts"]) == [contact_id]


def test_a_form_repost_reaches_its_target_through_the_worker_threads(stack):
    from tests.receiver import Receiver

    target = Receiver()
    try:
        conn = stack.connection()
        status, form, _ = _call(
            conn,
            "POST",
            "/api/forms/new",
            {
                "name": "Repost",
                "fields": [
                    {
                        "label": "Email",
                        "alias": "email",
                        "type": "email",
                        "mappedObject": "contact",
                        "mappedField": "email",
                    }
                ],
                "actions": [{"name": "To the CRM", "type": "form.repost", "properties": {"post_url": target.url}}],
            },
        )
        assert status == 201, form
        form_id = form["form"]["id"]
        body = urlencode({"mauticform[formId]": form_id, "mauticform[email]": "repost@example.com"})
        status, _, _ = _raw(
            conn, "POST", f"/form/submit?formId={form_id}", body, {"Content-Type": "application/x-www-form-urlencoded"}
        )
        assert status == 200
        (request,) = target.wait(1, timeout=30)
        fields = parse_qs(request.body.decode())
        assert fields["email"] == ["repost@example.com"] and fields["mautic_form[id]"] == [str(form_id)]
    finally:
        target.close()
