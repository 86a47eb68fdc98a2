"""Issue 8 end to end on the local stack over real HTTP: a transactional email lands in
DATA_DIR/outbox, its pixel, click redirect and unsubscribe link work, a segment send runs in the
stack's worker threads, and a text message is sent."""

import email
import json
import re
import time
from email import policy
from html import unescape

import pytest

from tests.e2e.test_local_stack import _call, own_outbox_stack


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    running = own_outbox_stack(tmp_path_factory.mktemp("email"))
    yield running
    running.stop()


def _outbox(stack, extension):
    folder = stack.data_dir / "outbox"
    return sorted(folder.glob(f"*.{extension}")) if folder.exists() else []


def _get(conn, path):
    conn.request("GET", path, headers={"Accept": "*/*"})
    response = conn.getresponse()
    return response.status, response.read(), response


def test_send_open_click_unsubscribe(stack):
    conn = stack.connection()
    _, contact, _ = _call(conn, "POST", "/api/contacts/new", {"email": "eve@example.com", "firstname": "Eve"})
    _, created, _ = _call(
        conn,
        "POST",
        "/api/emails/new",
        {
            "name": "Hello",
            "subject": "Hi {contactfield=firstname}",
            "customHtml": '<p>Hello {contactfield=firstname}</p><a href="https://shop.example/">Shop</a>'
            "{unsubscribe_text}",
        },
    )
    mail_id, contact_id = created["email"]["id"], contact["contact"]["id"]
    status, sent, _ = _call(conn, "POST", f"/api/emails/{mail_id}/contact/{contact_id}/send")
    assert status == 200 and sent == {"success": True}
    (path,) = _outbox(stack, "eml")
    message = email.message_from_bytes(path.read_bytes(), policy=policy.default)
    assert message["Subject"] == "Hi Eve" and message["To"] == "Eve <eve@example.com>"
    html = message.get_body(("html",)).get_content()
    tracking = message["X-Mautic-Tracking"]
    status, pixel, _ = _get(conn, f"/email/{tracking}.gif")
    assert status == 200 and pixel.startswith(b"GIF89a")
    link = unescape(re.search(r'href="http://127\.0\.0\.1:\d+(/r/[^"]+)"', html).group(1))
    status, _, response = _get(conn, link)
    assert status == 302 and response.getheader("Location") == "https://shop.example/"
    status, page, _ = _get(conn, f"/email/unsubscribe/{tracking}")
    assert status == 200 and b"no longer receive" in page
    _, shown, _ = _call(conn, "GET", f"/api/emails/{mail_id}")
    assert shown["email"]["sentCount"] == 1 and shown["email"]["readCount"] == 1
    _, activity, _ = _call(conn, "GET", f"/api/contacts/{contact_id}/activity")
    assert {"email.sent", "email.read", "page.hit", "lead.donotcontact"} <= {e["event"] for e in activity["events"]}


def test_segment_send_runs_in_the_workers_and_sms_is_sent(stack):
    conn = stack.connection()
    _, segment, _ = _call(conn, "POST", "/api/segments/new", {"name": "Team"})
    segment_id = segment["list"]["id"]
    for n in range(3):
        _, contact, _ = _call(
            conn, "POST", "/api/contacts/new", {"email": f"team{n}@example.com", "mobile": "+14155550100"}
        )
        _call(conn, "POST", f"/api/segments/{segment_id}/contact/{contact['contact']['id']}/add")
    _, created, _ = _call(
        conn,
        "POST",
        "/api/emails/new",
        {"name": "News", "subject": "News", "customHtml": "<p>x</p>", "emailType": "list", "lists": [segment_id]},
    )
    before = len(_outbox(stack, "eml"))
    status, queued, _ = _call(conn, "POST", f"/api/emails/{created['email']['id']}/send")
    assert status == 200 and queued["success"] == 1
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        _, shown, _ = _call(conn, "GET", f"/api/emails/{created['email']['id']}")
        if (shown["email"]["sendProgress"] or {}).get("status") == "done":
            break
        time.sleep(0.3)
    assert shown["email"]["sentCount"] == 3 and shown["email"]["pendingCount"] == 0
    assert len(_outbox(stack, "eml")) == before + 3
    _, sms, _ = _call(conn, "POST", "/api/smses/new", {"name": "Ping", "message": "Ping {contactfield=email}"})
    status, answer, _ = _call(conn, "GET", f"/api/smses/{sms['sms']['id']}/contact/{contact['contact']['id']}/send")
    assert status == 200 and answer["success"] is True
    (text,) = _outbox(stack, "json")
    assert json.loads(text.read_text())["message"] == "Ping team2@example.com"
