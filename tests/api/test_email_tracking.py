"""Issue 8: what recipients do, through the public endpoints: open pixel, web view, signed click
redirects, unsubscribe; and the reply API. Webhooks for sends and opens."""

import re
from html import unescape

from tests.api.test_email_send import hook_receiver, make_contact, make_email, parts, received, sent_messages  # noqa: F401 - a fixture


def _send(api, contact, mail):
    assert api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send").json == {"success": True}
    message = sent_messages()[-1]
    return message["X-Mautic-Tracking"], parts(message)[1]


def _public(api, path, method="GET", headers=None):
    response = api.http.request(method, path, headers=dict({"Accept": "*/*"}, **(headers or {})), body=b"")
    return response


def _activity(api, contact_id):
    return api.get(f"/api/contacts/{contact_id}/activity").json["events"]


def test_the_pixel_records_an_open_once_per_send(api, source_ip):
    contact, mail = make_contact(api), make_email(api)
    tracking, _ = _send(api, contact, mail)
    source_ip("203.0.113.9")
    for _ in range(2):
        pixel = _public(api, f"/email/{tracking}.gif", headers={"X-Forwarded-For": "198.51.100.1"})
        assert pixel.status_code == 200 and pixel.headers["Content-Type"] == "image/gif"
        assert pixel.body.startswith(b"GIF89a")
    assert api.get(f"/api/emails/{mail['id']}").json["email"]["readCount"] == 1
    reads = [e for e in _activity(api, contact["id"]) if e["event"] == "email.read"]
    assert [e["details"] for e in reads] == [
        {"emailId": mail["id"], "statId": reads[0]["details"]["statId"]}
    ]  # never the hash (issue 39): it would let whoever reads the timeline act as the contact
    shown = api.get(f"/api/contacts/{contact['id']}").json["contact"]
    assert shown["lastActive"] is not None
    from chalicelib.domain.messaging import email_stats

    stat = email_stats.find(tracking)
    assert stat["isRead"] and stat["openCount"] == 2 and stat["dateRead"] and stat["ipAddress"] == "203.0.113.9"


def test_unknown_or_malformed_hashes_still_get_the_pixel_and_change_nothing(api):
    assert _public(api, "/email/00000001000000000100112233445566.gif").status_code == 200
    assert _public(api, "/email/nothing.gif").status_code == 200
    assert _public(api, "/email/nothing.png").status_code == 404


def test_a_guessed_hash_with_the_right_ids_finds_nothing(api):
    contact, mail = make_contact(api), make_email(api)
    tracking, _ = _send(api, contact, mail)
    forged = tracking[:18] + ("0" * 16 if tracking[18:] != "0" * 16 else "1" * 16)
    _public(api, f"/email/{forged}.gif")
    assert api.get(f"/api/emails/{mail['id']}").json["email"]["readCount"] == 0
    assert _public(api, f"/email/view/{forged}").status_code == 404


def test_the_web_view_shows_the_email_as_sent_and_counts_an_open(api):
    contact, mail = make_contact(api, firstname="<Ann>"), make_email(api)
    api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send", {"tokens": {"code": "Z-9"}})
    tracking = sent_messages()[-1]["X-Mautic-Tracking"]
    view = _public(api, f"/email/view/{tracking}")
    assert view.status_code == 200 and view.headers["Content-Type"].startswith("text/html")
    assert "Hi &lt;Ann&gt;, your code is Z-9." in view.body.decode()
    assert f"/email/{tracking}.gif" not in view.body.decode()
    assert api.get(f"/api/emails/{mail['id']}").json["email"]["readCount"] == 1


def test_a_click_is_recorded_and_redirected_only_when_signed(api):
    contact, mail = make_contact(api), make_email(api)
    tracking, html = _send(api, contact, mail)
    link = unescape(re.search(r'href="https?://[^/]+(/r/[^"]+)"', html).group(1))
    response = _public(api, link)
    assert response.status_code == 302 and response.headers["Location"] == "https://shop.example/offer"
    (hit,) = [e for e in _activity(api, contact["id"]) if e["event"] == "page.hit"]
    assert hit["details"] == {
        "emailId": mail["id"],
        "statId": hit["details"]["statId"],
        "url": "https://shop.example/offer",
        "source": "email",
        "dateLeft": None,  # no later hit: never left
    }
    tampered = link.replace("shop.example", "evil.example")
    assert _public(api, tampered).status_code == 404
    assert _public(api, f"/r/{tracking}?url=https%3A%2F%2Fevil.example%2F").status_code == 404


def test_unsubscribe_marks_the_contact_do_not_contact(api):
    contact, mail = make_contact(api), make_email(api)
    tracking, html = _send(api, contact, mail)
    assert f"/email/unsubscribe/{tracking}" in html
    page = _public(api, f"/email/unsubscribe/{tracking}")
    assert page.status_code == 200 and b"will no longer receive" in page.body
    (dnc,) = api.get(f"/api/contacts/{contact['id']}").json["contact"]["doNotContact"]
    assert dnc["channel"] == "email" and dnc["reason"] == 1 and dnc["channelId"] == mail["id"]
    assert _public(api, f"/email/unsubscribe/{tracking}", method="POST").status_code == 200
    assert len(api.get(f"/api/contacts/{contact['id']}").json["contact"]["doNotContact"]) == 1
    assert _public(api, "/email/unsubscribe/0123").status_code == 404


def test_reply_marks_the_send_read_and_replied(api):
    contact, mail = make_contact(api), make_email(api)
    tracking, _ = _send(api, contact, mail)
    response = api.post(f"/api/emails/reply/{tracking}")
    assert response.status_code == 201 and response.json == {"success": True}
    assert api.get(f"/api/emails/{mail['id']}").json["email"]["readCount"] == 1
    kinds = [e["event"] for e in _activity(api, contact["id"])]
    assert "email.replied" in kinds and "email.read" in kinds
    missing = api.post("/api/emails/reply/abc")
    assert missing.status_code == 404
    assert missing.json["errors"][0]["message"] == "Email Stat with tracking hash abc was not found"


def test_open_point_actions_score_each_open(api):
    contact, mail = make_contact(api), make_email(api)
    api.post("/api/points/new", {"name": "Opened", "type": "email.open", "delta": 3, "repeatable": False})
    tracking, _ = _send(api, contact, mail)
    _public(api, f"/email/{tracking}.gif")
    _public(api, f"/email/{tracking}.gif")
    assert api.get(f"/api/contacts/{contact['id']}").json["contact"]["points"] == 3


def test_send_and_open_reach_webhooks_with_compat_payloads(api, drain, hook_receiver):  # noqa: F811 - the fixture
    receiver = hook_receiver(["mautic.email_on_send", "mautic.email_on_open"])
    contact, mail = make_contact(api), make_email(api)
    api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send", {"tokens": {"code": "Q"}})
    tracking = sent_messages()[-1]["X-Mautic-Tracking"]
    _public(api, f"/email/{tracking}.gif")
    drain()
    (sent,) = received(receiver, "mautic.email_on_send")
    assert set(sent) == {
        "email",
        "contact",
        "contentHash",
        "idHash",
        "subject",
        "source",
        "headers",
        "content",
        "tokens",
        "timestamp",
    }
    assert sent["idHash"] is None and sent["subject"] == "Hello Ann" and sent["email"]["id"] == mail["id"]
    assert sent["contact"]["id"] == contact["id"] and sent["content"] == mail["customHtml"]
    assert sent["tokens"]["{code}"] == "Q" and "X-Mautic-Tracking" not in sent["headers"]  # no hash (issue 39)
    (opened,) = received(receiver, "mautic.email_on_open")
    stat = opened["stat"]
    assert "trackingHash" not in stat and stat["isRead"] is True and stat["emailAddress"] == "ann@example.com"
    assert not [request for request in receiver.received if tracking in request.body.decode()]
    assert stat["lead"]["id"] == contact["id"] and stat["email"]["id"] == mail["id"]
