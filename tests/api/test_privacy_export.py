"""Issue 32, export: `GET /api/contacts/<id>/export` answers everything held about a contact (fields,
companies, segments, automations, points and groups, stage, notes, devices, DNC, UTM, IP addresses,
timeline, email sends with opens and clicks, page hits, form submissions, text messages), with
`lead:leads:view` on that contact decided on the document."""

import re
from html import unescape

import pytest

from tests.api.test_automation_events import later_automation
from tests.api.test_email_send import make_email, parts, sent_messages
from tests.api.test_form_uploads import BOUNDARY, download, multipart
from tests.api.test_permissions import FORBIDDEN, _as
from tests.api.test_sms_send import make_sms
from tests.conftest import visitor_cookie

BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"


def _public(api, path, method="GET", headers=None, body=b""):
    headers = dict({"Accept": "*/*", "User-Agent": BROWSER}, **(headers or {}))
    return api.http.request(method, path, headers=headers, body=body)


def _ok(response, status=200):
    assert response.status_code == status, response.json
    return response.json


def _everything(api, source_ip):
    """A contact with every kind of data, and what was made for it."""
    assert _ok(api.post("/api/fields/contact/new", {"label": "Shoe size", "alias": "shoe_size"}), 201)
    contact = _ok(
        api.post(
            "/api/contacts/new",
            {"email": "ann@example.com", "firstname": "Ann", "mobile": "+420777123456", "shoe_size": "38"},
        ),
        201,
    )["contact"]
    cid = contact["id"]
    made = {"contact": cid}
    made["company"] = _ok(api.post("/api/companies/new", {"companyname": "Acme"}), 201)["company"]["id"]
    _ok(api.post(f"/api/companies/{made['company']}/contact/{cid}/add"))
    made["segment"] = _ok(api.post("/api/segments/new", {"name": "Fans", "alias": "fans"}), 201)["list"]["id"]
    _ok(api.post(f"/api/segments/{made['segment']}/contact/{cid}/add"))
    made["category"] = _ok(api.post("/api/categories/new", {"title": "News", "bundle": "global"}), 201)["category"][
        "id"
    ]
    _ok(api.post(f"/api/contacts/{cid}/categories/{made['category']}/remove"))
    made["automation"] = later_automation(api)["id"]
    _ok(api.post(f"/api/automations/{made['automation']}/contact/{cid}/add"))
    _ok(api.post(f"/api/contacts/{cid}/points/plus/5"))
    made["group"] = _ok(api.post("/api/points/groups/new", {"name": "Engagement"}), 201)["pointGroup"]["id"]
    _ok(api.post(f"/api/contacts/{cid}/points/groups/{made['group']}/plus/3"))
    made["stage"] = _ok(api.post("/api/stages/new", {"name": "Lead", "weight": 1}), 201)["stage"]["id"]
    _ok(api.post(f"/api/stages/{made['stage']}/contact/{cid}/add"))
    made["note"] = _ok(api.post("/api/notes/new", {"text": "Called her", "lead": cid}), 201)["note"]["id"]
    made["device"] = _ok(api.post("/api/devices/new", {"lead": cid, "device": "tablet"}), 201)["device"]["id"]
    _ok(api.post(f"/api/contacts/{cid}/dnc/sms/add"))
    _ok(api.post(f"/api/contacts/{cid}/utm/add", {"utm_source": "newsletter", "utm_campaign": "spring"}))
    _ok(api.patch(f"/api/contacts/{cid}/edit", {"ipAddress": "198.51.100.4"}))
    _mail(api, cid, made)
    _web(api, cid, made, source_ip)
    return made


def _mail(api, cid, made):
    """An email sent, opened and clicked; a text message sent (before the sms DNC would refuse it)."""
    mail = make_email(api)
    made["email"] = mail["id"]
    assert api.post(f"/api/emails/{mail['id']}/contact/{cid}/send").json == {"success": True}
    message = sent_messages()[-1]
    tracking = message["X-Mautic-Tracking"]
    assert _public(api, f"/email/{tracking}.gif").status_code == 200
    link = unescape(re.search(r'href="https?://[^/]+(/r/[^"]+)"', parts(message)[1]).group(1))
    assert _public(api, link).status_code == 302
    _ok(api.post(f"/api/contacts/{cid}/dnc/sms/remove"))
    made["sms"] = make_sms(api)["id"]
    _ok(api.get(f"/api/smses/{made['sms']}/contact/{cid}/send"))
    _ok(api.post(f"/api/contacts/{cid}/dnc/sms/add"))


def _web(api, cid, made, source_ip):
    """A landing page hit and a form submission from the contact's browser."""
    source_ip("203.0.113.7")
    page = _ok(api.post("/api/pages/new", {"title": "Spring", "alias": "spring", "customHtml": "<p>Hi</p>"}), 201)
    made["page"] = page["page"]["id"]
    cookie = {"Cookie": visitor_cookie(cid)}
    assert _public(api, "/spring?utm_source=ad", headers=cookie).status_code == 200
    form = _ok(
        api.post(
            "/api/forms/new",
            {
                "name": "Ask",
                "fields": [
                    {"label": "Question", "alias": "question", "type": "text"},
                    {"label": "Plan", "alias": "plan", "type": "file"},
                ],
            },
        ),
        201,
    )["form"]
    made["form"] = form["id"]
    body = multipart(form["id"], {"question": "When?"}, {"plan": ("Plan.pdf", b"%PDF her plan")})
    headers = dict(cookie, **{"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
    answer = _public(api, f"/form/submit?formId={form['id']}", "POST", headers, body)
    assert answer.status_code == 200, answer.body


def test_the_export_holds_every_kind_of_data_of_the_contact(api, source_ip):
    made = _everything(api, source_ip)
    export = _ok(api.get(f"/api/contacts/{made['contact']}/export"))
    assert export["format"] == "mautic-contact-export/1" and export["contact"]["id"] == made["contact"]
    assert export["fields"]["shoe_size"] == "38" and export["fields"]["email"] == "ann@example.com"
    assert [c["id"] for c in export["companies"]] == [made["company"]] and export["companies"][0][
        "companyname"
    ] == "Acme"
    assert [s["id"] for s in export["segments"]] == [made["segment"]]
    assert [(c["id"], c["manuallyRemoved"]) for c in export["categories"]] == [(made["category"], True)]
    automations = export["automations"]
    assert [m["id"] for m in automations["memberships"]] == [made["automation"]]
    assert str(made["automation"]) in automations["journeys"]
    assert {e["event"] for e in automations["events"]} & {"campaign.event", "campaign.event.scheduled"}
    assert export["points"]["points"] == 5
    assert [g["group"]["id"] for g in export["points"]["groupScores"]] == [made["group"]]
    assert export["points"]["groupScores"][0]["score"] == 3
    assert export["stage"]["id"] == made["stage"]
    assert [n["id"] for n in export["notes"]] == [made["note"]] and export["notes"][0]["text"] == "Called her"
    assert made["device"] in [d["id"] for d in export["devices"]]
    assert [d["channel"] for d in export["doNotContact"]] == ["sms"]
    assert [u["utmSource"] for u in export["utmTags"]] == ["newsletter", "ad"]
    assert "198.51.100.4" in [ip["ipAddress"] for ip in export["ipAddresses"]]
    (sent,) = export["emails"]
    assert sent["emailId"] == made["email"] and sent["record"]["emailAddress"] == "ann@example.com"
    assert sent["record"]["openCount"] == 1 and len(sent["opens"]) == 1 and len(sent["clicks"]) == 1
    assert sent["clicks"][0]["details"]["url"] == "https://shop.example/offer"
    assert "trackingHash" not in sent["record"] and "trackingHash" not in str(export)
    assert [h["details"].get("page", {}).get("id") for h in export["pageHits"]] == [None, made["page"]]  # click, visit
    (submission,) = export["formSubmissions"]
    assert submission["form"]["id"] == made["form"] and submission["results"] == {
        "question": "When?",
        "plan": "plan.pdf",
    }
    (uploaded,) = submission["files"]  # each file as a link to its download
    path = f"/api/forms/{made['form']}/submissions/{submission['id']}/files/plan"
    assert uploaded["field"] == "plan" and uploaded["name"] == "plan.pdf" and uploaded["link"].endswith(path)
    assert download(api, path).body == b"%PDF her plan"
    assert submission["ipAddress"] == "203.0.113.7"
    assert [t["details"]["smsId"] for t in export["textMessages"]] == [made["sms"]]
    types = {e["event"] for e in export["timeline"]}
    assert {"email.sent", "email.read", "page.hit", "form.submitted", "point.gained", "note", "sms.sent"} <= types
    assert {"lead.donotcontact", "lead.utmtagsadded", "stage.changed", "segment_membership"} <= types


def test_a_limited_user_exports_only_their_own_contacts(api):
    dora = _as(api, "dora", {"lead:leads": ["viewown", "create"]})
    theirs = _ok(api.post("/api/contacts/new", {"email": "theirs@example.com"}), 201)["contact"]
    _ok(api.post("/api/notes/new", {"text": "secret", "lead": theirs["id"]}), 201)
    mine = _ok(dora.post("/api/contacts/new", {"email": "mine@example.com"}), 201)["contact"]
    refused = dora.get(f"/api/contacts/{theirs['id']}/export")
    assert refused.status_code == 403 and refused.json["errors"][0]["message"] == FORBIDDEN
    assert "theirs@example.com" not in refused.body.decode() and "secret" not in refused.body.decode()
    own = _ok(dora.get(f"/api/contacts/{mine['id']}/export"))
    assert own["fields"]["email"] == "mine@example.com"
    assert dora.get("/api/contacts/999/export").status_code == 404
    nobody = _as(api, "nora", {"email:emails": ["viewown"]})
    assert nobody.get(f"/api/contacts/{mine['id']}/export").status_code == 403


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_the_export_reads_the_contacts_partitions_not_the_tables(api, source_ip):
    from tests.bench.conftest import dynamodb_calls

    made = _everything(api, source_ip)
    for n in range(30):  # other contacts' data is never read
        _ok(api.post("/api/contacts/new", {"email": f"other{n}@example.com"}), 201)
    api.get(f"/api/contacts/{made['contact']}/export")  # the cached kinds warm
    with dynamodb_calls() as calls:
        assert api.get(f"/api/contacts/{made['contact']}/export").status_code == 200
    assert "Scan" not in calls and calls["GetItem"] == 2  # the contact, the versions item
    assert calls["Query"] == 2  # the timeline and the notes index
    # + BatchGetItem: companies, send records, submissions, notes, references, categories
    assert sum(calls.values()) == 10
