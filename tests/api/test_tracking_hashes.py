"""Issue 39: the API handed out tracking hashes. With a send's hash, `GET /email/view/<hash>` gives the
browser the contact's visitor token and `/email/unsubscribe/<hash>` unsubscribes the contact, so a
user who may only view a contact could act as it. The contact export showed the web view and
unsubscribe links in `emails[].record.tokens` and the hash in `record.headers.X-Mautic-Tracking`;
`/contacts/{id}/activity`, `/events` and all contacts' activity showed `details.trackingHash`; the
webhooks' `email_on_send` and `email_on_open` payloads carried it as `idHash`, in headers, tokens
and the stat. No answer of any `GET /api` route, no stats table, report or widget, and no webhook
payload holds the hash now (its value anywhere, not only its key), for a viewer or an administrator."""

import json
import re
from html import unescape

import pytest

from chalicelib.domain.kernel import timeline
from chalicelib.store import port as store
from tests.api.test_email_send import parts, sent_messages
from tests.api.test_permissions import _as

HTML = (
    '<html><body><p>Hi {contactfield=firstname}</p><a href="https://shop.example/offer">Offer</a>'
    ' <a href="{webview_url}">View online</a> {unsubscribe_text} <a href="{unsubscribe_url}">Leave</a></body></html>'
)
VIEWER = {  # may view everything, edit nothing
    "lead:leads": ["viewother"],
    "email:emails": ["viewother"],
    "webhook:webhooks": ["viewother"],
    "report:reports": ["viewother"],
    "form:forms": ["viewother"],
    "campaign:campaigns": ["viewother"],
    "point:points": ["view"],
    "stage:stages": ["view"],
    "page:pages": ["viewother"],
    "asset:assets": ["viewother"],
}


def _public(api, path):
    return api.http.request("GET", path, headers={"Accept": "*/*"}, body=b"")


@pytest.fixture
def world(api, drain, receiver):
    """A hook on sends and opens; a contact sent an email (web view and unsubscribe links, a token),
    which she opened, viewed in her browser and clicked; her first send's event as stored before."""
    triggers = ["mautic.email_on_send", "mautic.email_on_open"]
    hook = api.post("/api/hooks/new", {"name": "R", "webhookUrl": receiver.url, "triggers": triggers}).json["hook"]
    contact = api.post("/api/contacts/new", {"email": "ann@example.com", "firstname": "Ann"}).json["contact"]
    mail = api.post("/api/emails/new", {"name": "W", "subject": "Hi", "customHtml": HTML}).json["email"]
    sent = api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send", {"tokens": {"code": "A"}})
    assert sent.json == {"success": True}
    message = sent_messages()[-1]
    tracking = message["X-Mautic-Tracking"]
    html = parts(message)[1]
    assert f"/email/view/{tracking}" in html and f"/email/unsubscribe/{tracking}" in html
    assert _public(api, f"/email/{tracking}.gif").status_code == 200
    assert _public(api, f"/email/view/{tracking}").status_code == 200
    assert _public(api, unescape(re.search(r'href="https?://[^/]+(/r/[^"]+)"', html).group(1))).status_code == 302
    _stored_as_before(contact["id"], tracking)
    drain()
    report = api.post("/api/reports/new", {"name": "Sends", "source": "email.stats"}).json["report"]
    return {"hash": tracking, "contact": contact, "mail": mail, "hook": hook, "report": report}


def _stored_as_before(contact_id, tracking):
    """The `email.sent` event as sends stored it before issue 39: with the hash in its details."""
    (event,) = [e for e in store.iterate(timeline.kind(contact_id)) if e["event"] == "email.sent"]
    store.put(timeline.kind(contact_id), dict(event, details=dict(event["details"], trackingHash=tracking)))


def _paths(api, world):
    """Every GET route of the API with its parameters naming the world's documents (a stats table
    and a widget: each of them)."""
    from chalicelib.api.blueprints import API_ROUTES

    ids = {"contacts": world["contact"]["id"], "emails": world["mail"]["id"], "hooks": world["hook"]["id"]}
    ids["reports"] = world["report"]["id"]
    for routes in API_ROUTES:
        for path, methods in routes.needs.items():
            if "GET" not in methods:
                continue
            if path == "/stats/{table}":
                yield from (f"/stats/{table}" for table in api.get("/api/stats").json["availableTables"])
            elif path == "/data/{type}":
                yield from (f"/data/{kind}" for kinds in api.get("/api/data").json["types"].values() for kind in kinds)
            else:
                found = ids.get(path.strip("/").split("/")[0], world["contact"]["id"])
                yield re.sub(r"{(id|contact_id)}", str(found), path)


def test_no_api_answer_holds_a_tracking_hash(api, world):
    viewer = _as(api, "viewer", VIEWER)
    checked = 0
    for path in _paths(api, world):
        for client in (api, viewer):
            answer = client.get("/api" + path)
            assert answer.status_code != 500, path
            assert world["hash"] not in answer.body.decode(errors="replace"), (path, answer.status_code)
            checked += answer.status_code == 200
    assert checked > 150  # most routes answered: the walk is not vacuous
    export = viewer.get(f"/api/contacts/{world['contact']['id']}/export").json
    (sent,) = export["emails"]
    tokens = sent["record"]["tokens"]
    assert tokens["{contactfield=firstname}"] == "Ann" and not {"{webview_url}", "{unsubscribe_url}"} & set(tokens)
    assert "X-Mautic-Tracking" not in sent["record"]["headers"] and sent["record"]["openCount"] >= 1
    events = viewer.get(f"/api/contacts/{world['contact']['id']}/activity").json["events"]
    assert {e["event"] for e in events} >= {"email.sent", "email.read", "page.hit"}
    assert all("trackingHash" not in e["details"] for e in events)


def test_no_webhook_payload_holds_a_tracking_hash(world, receiver):
    bodies = [request.body.decode() for request in receiver.received]
    assert bodies and not [body for body in bodies if world["hash"] in body]
    sends = [e for body in bodies for e in json.loads(body).get("mautic.email_on_send", [])]
    opens = [e for body in bodies for e in json.loads(body).get("mautic.email_on_open", [])]
    assert sends and opens and sends[0]["idHash"] is None and sends[0]["tokens"]["{contactfield=firstname}"] == "Ann"
    assert "trackingHash" not in opens[0]["stat"] and opens[0]["stat"]["isRead"] is True


def test_the_hash_still_does_its_work_for_the_recipient(api, world):
    assert _public(api, f"/email/unsubscribe/{world['hash']}").status_code == 200
    contact = api.get(f"/api/contacts/{world['contact']['id']}").json["contact"]
    assert [d["channel"] for d in contact["doNotContact"]] == ["email"]
