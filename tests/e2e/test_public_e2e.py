"""Issue 9 end to end on the local stack over real HTTP: a multipart upload, an asset and its download,
a form post through the public endpoint, and a landing page fetch."""
import base64
import json
from urllib.parse import urlencode

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
    head = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"guide.pdf\"\r\n"
            "Content-Type: application/pdf\r\n\r\n").encode()
    body = head + CONTENT + f"\r\n--{BOUNDARY}--\r\n".encode()
    status, data, _ = _raw(conn, "POST", "/api/files/assets/new", body, {
        "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
        "Authorization": "Basic " + base64.b64encode(f"admin:{PASSWORD}".encode()).decode()})
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
    status, form, _ = _call(conn, "POST", "/api/forms/new", {
        "name": "Signup", "postAction": "message", "postActionProperty": "Welcome aboard",
        "fields": [{"label": "Email", "alias": "email", "type": "email", "isRequired": True,
                    "mappedObject": "contact", "mappedField": "email"},
                   {"label": "Name", "alias": "name", "type": "text", "mappedObject": "contact",
                    "mappedField": "firstname"}]})
    assert status == 201
    form_id = form["form"]["id"]
    body = urlencode({"mauticform[formId]": form_id, "mauticform[email]": "e2e@example.com",
                      "mauticform[name]": "Eve"})
    status, data, response = _raw(conn, "POST", f"/form/submit?formId={form_id}", body,
                                  {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 200 and b"Welcome aboard" in data
    cookie = response.getheader("Set-Cookie").split(";")[0]
    status, bad, _ = _raw(conn, "POST", f"/form/submit?formId={form_id}", urlencode({"mauticform[email]": "x"}),
                          {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 400 and "email" in json.loads(bad)["errors"][0]["details"]
    status, listed, _ = _call(conn, "GET", f"/api/forms/{form_id}/submissions")
    assert listed["total"] == 1 and listed["submissions"][0]["results"]["name"] == "Eve"
    _call(conn, "POST", "/api/pages/new", {"title": "Welcome", "customHtml": "<p>Hi {contactfield=firstname}</p>"})
    status, page, _ = _raw(conn, "GET", "/welcome", headers={"Cookie": cookie})
    assert status == 200 and page == b"<p>Hi Eve</p>"
    status, pixel, _ = _raw(conn, "GET", "/mtracking.gif?page_url=https%3A%2F%2Fsite.example%2F",
                            headers={"Cookie": cookie, "Accept": "image/*,*/*"})
    assert status == 200 and pixel.startswith(b"GIF89a")
