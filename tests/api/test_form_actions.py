"""Issue 9, form submit actions that act after the submission is stored: repost, asset download,
company score, the emails, and the integration push this service does not have.

Reposts go to a receiver on 127.0.0.1; `drain` runs the workers, retries after 0 seconds."""

import json
from urllib.parse import parse_qs, urlparse

import pytest

from chalicelib.ports import queues
from tests.api.test_email_send import events, make_email, parts, sent_messages
from tests.api.test_files_assets import fetch
from tests.api.test_forms_submit import post
from tests.conftest import set_cookies
from tests.receiver import Receiver

FIELDS = [
    {
        "label": "Email",
        "alias": "email",
        "type": "email",
        "isRequired": True,
        "mappedObject": "contact",
        "mappedField": "email",
    },
    {
        "label": "First name",
        "alias": "first_name",
        "type": "text",
        "mappedObject": "contact",
        "mappedField": "firstname",
    },
    {"label": "Topic", "alias": "topic", "type": "text"},
    {"label": "Secret", "alias": "secret", "type": "password"},
]


@pytest.fixture(autouse=True)
def quick_retries(configure):
    configure(WEBHOOK_RETRY_DELAYS=(0, 0))


def make_form(api, *actions, **extra):
    body = dict(
        {"name": "Lead form", "fields": FIELDS, "actions": [dict({"name": a["type"]}, **a) for a in actions]}, **extra
    )
    response = api.post("/api/forms/new", body)
    assert response.status_code == 201, response.json
    return response.json["form"]


def repost(url, **properties):
    return {"type": "form.repost", "properties": dict({"post_url": url}, **properties)}


def contact_of(api, email):
    (contact,) = api.get(f"/api/contacts?search=email:{email}").json["contacts"].values()
    return contact


def dead_letters():
    return [body for _, body, _ in queues.receive("webhooks", dead_letter=True)]


def recipients():
    return sorted(m["To"].addresses[0].addr_spec for m in sent_messages())


def test_repost_sends_the_results_once_the_submission_is_stored(api, drain, receiver, source_ip):
    form = make_form(api, repost(receiver.url, topic="subject", authorization_header="X-Api-Key: s3cret"))
    source_ip("10.1.2.3")
    response = post(
        api,
        form["id"],
        {"email": "ann@example.com", "first_name": "Ann & Co", "topic": "Pricing", "secret": "hunter2"},
        headers={"Referer": "https://site.example/contact"},
    )
    assert response.status_code == 200
    assert receiver.received == []  # after the response, by the worker
    drain()
    (request,) = receiver.received
    contact = contact_of(api, "ann@example.com")
    assert request.headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert request.headers["X-Api-Key"] == "s3cret" and request.headers["X-Forwarded-For"] == "10.1.2.3"
    body = {key: values[0] for key, values in parse_qs(request.body.decode()).items()}
    assert {k: body[k] for k in ("email", "first_name", "subject", "secret")} == {
        "email": "ann@example.com",
        "first_name": "Ann & Co",
        "subject": "Pricing",
        "secret": "hunter2",
    }
    assert "topic" not in body
    assert (body["mautic_form[id]"], body["mautic_form[name]"], body["mautic_form[url]"]) == (
        str(form["id"]),
        "Lead form",
        "https://site.example/contact",
    )
    assert body["mautic_contact[id]"] == str(contact["id"]) and body["mautic_contact[email]"] == "ann@example.com"
    assert body["mautic_contact[firstname]"] == "Ann & Co"
    assert events(api, contact["id"], "form.action.failed") == []


def test_an_authorization_value_without_a_name_is_the_authorization_header(api, drain, receiver):
    form = make_form(api, repost(receiver.url, authorization_header="Bearer abc"))
    post(api, form["id"], {"email": "bea@example.com"})
    drain()
    assert receiver.received[0].headers["Authorization"] == "Bearer abc"


def test_a_failing_repost_is_retried_until_it_succeeds(api, drain):
    target = Receiver(statuses=[500, 503])
    try:
        form = make_form(api, repost(target.url, failure_email="ops@example.com"))
        post(api, form["id"], {"email": "cid@example.com"})
        drain()
        assert [r.status for r in target.received] == [500, 503, 200]
        assert len({r.body for r in target.received}) == 1
        assert events(api, contact_of(api, "cid@example.com")["id"], "form.action.failed") == []
        assert sent_messages() == [] and dead_letters() == []
    finally:
        target.close()


def test_a_repost_failing_for_good_is_recorded_dead_lettered_and_mailed(api, drain):
    target = Receiver(default=500)
    try:
        action = repost(target.url, failure_email="ops@example.com, lead@example.com")
        form = make_form(api, dict(action, name="To the CRM"))
        post(api, form["id"], {"email": "dan@example.com", "topic": "<b>bold</b>", "secret": "hunter2"})
        drain()
        assert len(target.received) == 3  # the first attempt and two retries
        contact = contact_of(api, "dan@example.com")
        (failed,) = events(api, contact["id"], "form.action.failed")
        assert failed["eventLabel"] == "To the CRM"
        details = failed["details"]
        assert details["reason"] == "HTTP 500" and details["attempts"] == 3
        assert details["action"]["type"] == "form.repost" and details["form"]["id"] == form["id"]
        submission = api.get(f"/api/forms/{form['id']}/submissions").json["submissions"][0]
        assert details["submissionId"] == submission["id"]
        (dead,) = dead_letters()
        assert dead["action"]["type"] == "form.repost" and dead["error"] == "HTTP 500"
        assert recipients() == ["lead@example.com", "ops@example.com"]
        notice = sent_messages()[0]
        assert "Failed to repost" in notice["Subject"]
        html = parts(notice)[1]
        assert "&lt;b&gt;bold&lt;/b&gt;" in html and "hunter2" not in html
        assert f"/api/forms/{form['id']}/submissions/{submission['id']}" in html
    finally:
        target.close()


def test_a_refused_repost_target_is_not_retried(api, drain, receiver, configure):
    configure(WEBHOOK_ALLOWED_NETWORKS=())
    form = make_form(api, repost(receiver.url))
    post(api, form["id"], {"email": "eve@example.com"})
    drain()
    assert receiver.received == [] and dead_letters() == []
    (failed,) = events(api, contact_of(api, "eve@example.com")["id"], "form.action.failed")
    assert "loopback" in failed["details"]["reason"] and failed["details"]["attempts"] == 1


def test_a_repost_whose_message_was_lost_is_sent_by_the_sweep(api, drain, receiver, monkeypatch):
    from chalicelib.domain.web import form_followups

    def unavailable(*args, **kwargs):
        raise queues.QueueError("SQS is down")

    form = make_form(api, repost(receiver.url))
    with monkeypatch.context() as patch:
        patch.setattr(queues, "send", unavailable)
        assert post(api, form["id"], {"email": "fay@example.com"}).status_code == 200
    drain()
    form_followups.sweep()
    drain()
    assert receiver.received == []  # too recent: its message may still be on the way
    monkeypatch.setattr(form_followups, "STALE_SECONDS", 0)
    form_followups.sweep()
    form_followups.sweep()  # twice: the duplicate message finds the item gone
    drain()
    assert len(receiver.received) == 1


def test_an_invalid_submission_reposts_and_sends_nothing(api, drain, receiver):
    mail_doc = make_email(api)
    form = make_form(api, repost(receiver.url), {"type": "email.send.lead", "properties": {"email": mail_doc["id"]}})
    assert post(api, form["id"], {"email": "not-an-email"}).status_code == 400
    drain()
    assert receiver.received == [] and sent_messages() == []


def make_asset(api, **extra):
    response = api.post(
        "/api/assets/new",
        dict({"title": "Guide", "storageLocation": "remote", "file": "https://cdn.example/files/guide.pdf"}, **extra),
    )
    assert response.status_code == 201, response.json
    return response.json["asset"]


def test_asset_download_redirects_to_the_download_which_counts_for_the_contact(api):
    asset = make_asset(api)
    api.post(
        "/api/points/new",
        {"name": "Downloads", "type": "asset.download", "delta": 5, "properties": {"assets": [asset["id"]]}},
    )
    form = make_form(
        api,
        {"type": "asset.download", "properties": {"asset": asset["id"]}},
        postAction="redirect",
        postActionProperty="https://site.example/thanks",
    )
    response = post(api, form["id"], {"email": "gus@example.com"})
    assert response.status_code == 302 and response.headers["Location"] == asset["downloadUrl"]
    cookie = "; ".join(f"{name}={value}" for name, value in set_cookies(response).items())
    served = fetch(api, urlparse(asset["downloadUrl"]).path, {"Cookie": cookie})
    assert served.status_code == 302 and served.headers["Location"] == "https://cdn.example/files/guide.pdf"
    assert api.get(f"/api/assets/{asset['id']}").json["asset"]["downloadCount"] == 1
    contact = contact_of(api, "gus@example.com")
    (download,) = events(api, contact["id"], "asset.download")
    assert download["details"]["asset"]["id"] == asset["id"]
    assert api.get(f"/api/contacts/{contact['id']}").json["contact"]["points"] == 5


def test_asset_download_in_ajax_mode_answers_the_url(api):
    asset = make_asset(api)
    form = make_form(api, {"type": "asset.download", "properties": {"asset": asset["id"]}})
    answer = post(api, form["id"], {"email": "hal@example.com"}, query="&ajax=true")
    assert answer.status_code == 200
    body = json.loads(answer.body)
    assert body["download"] == asset["downloadUrl"] and body["success"] == 1


def test_an_unpublished_asset_leaves_the_form_s_own_answer(api):
    asset = make_asset(api)
    form = make_form(
        api,
        {"type": "asset.download", "properties": {"asset": asset["id"]}},
        postAction="redirect",
        postActionProperty="https://site.example/thanks",
    )
    api.patch(f"/api/assets/{asset['id']}/edit", {"isPublished": False})
    response = post(api, form["id"], {"email": "ida@example.com"})
    assert response.headers["Location"] == "https://site.example/thanks"


def test_score_is_added_to_each_company_of_the_contact(api, drain):
    acme = api.post("/api/companies/new", {"companyname": "Acme"}).json["company"]
    globex = api.post("/api/companies/new", {"companyname": "Globex"}).json["company"]
    assert acme["score"] == 0
    contact = api.post("/api/contacts/new", {"email": "jon@example.com"}).json["contact"]
    for company in (acme, globex):
        api.post(f"/api/companies/{company['id']}/contact/{contact['id']}/add")
    form = make_form(api, {"type": "lead.scorecontactscompanies", "properties": {"score": "25"}})
    post(api, form["id"], {"email": "jon@example.com"})
    post(api, form["id"], {"email": "jon@example.com"})
    drain()
    scores = [api.get(f"/api/companies/{c['id']}").json["company"]["score"] for c in (acme, globex)]
    assert scores == [50, 50]
    assert api.get(f"/api/companies/{acme['id']}").json["company"]["dateModified"] is None


def test_leadpush_is_recorded_as_failed_without_an_integration(api, drain):
    form = make_form(api, {"type": "plugin.leadpush", "name": "Push to CRM", "properties": {"integration": "Hubspot"}})
    assert post(api, form["id"], {"email": "kim@example.com"}).status_code == 200
    drain()
    (failed,) = events(api, contact_of(api, "kim@example.com")["id"], "form.action.failed")
    assert failed["eventLabel"] == "Push to CRM" and failed["details"]["action"]["type"] == "plugin.leadpush"
    assert "No integration" in failed["details"]["reason"]


def test_email_to_the_contact_carries_the_form_values_escaped(api, drain):
    mail_doc = make_email(
        api, subject="Thanks {formfield=first_name}", customHtml="<p>Topic: {formfield=topic}; {contactfield=email}</p>"
    )
    form = make_form(api, {"type": "email.send.lead", "properties": {"email": mail_doc["id"]}})
    post(api, form["id"], {"email": "lea@example.com", "first_name": "Lea", "topic": "<i>x</i>"})
    assert sent_messages() == []
    drain()
    (message,) = sent_messages()
    assert message["To"].addresses[0].addr_spec == "lea@example.com" and message["Subject"] == "Thanks Lea"
    assert "Topic: &lt;i&gt;x&lt;/i&gt;; lea@example.com" in parts(message)[1]
    (sent,) = events(api, contact_of(api, "lea@example.com")["id"], "email.sent")
    assert sent["details"]["source"] == ["form", form["id"]]


def test_email_to_users_goes_to_each_user(api, drain):
    from chalicelib.auth import users

    ops = users.create_user("ops", "secret-pass", "Olga", "Ops", email="olga@example.com")
    sales = users.create_user("sales", "secret-pass", "Sam", "Sales", email="sam@example.com")
    mail_doc = make_email(api, subject="New lead {contactfield=email}", customHtml="<p>{formfield=topic}</p>")
    form = make_form(
        api,
        {
            "type": "email.send.user",
            "properties": {"useremail": {"email": mail_doc["id"]}, "user_id": [ops["id"], sales["id"]]},
        },
    )
    post(api, form["id"], {"email": "max@example.com", "topic": "Demo"})
    drain()
    assert recipients() == ["olga@example.com", "sam@example.com"]
    assert {m["Subject"] for m in sent_messages()} == {"New lead max@example.com"}
    assert "<p>Demo</p>" in parts(sent_messages()[0])[1]
    assert events(api, contact_of(api, "max@example.com")["id"], "email.sent") == []


def test_form_email_sends_the_results_to_the_addresses_and_a_copy_to_the_contact(api, drain):
    form = make_form(
        api,
        {
            "type": "form.email",
            "properties": {
                "to": "sales@example.com",
                "cc": "boss@example.com",
                "subject": "Lead {contactfield=email}",
                "message": "<p>{formfield=first_name} asks about {formfield=topic}</p>",
                "copy_lead": True,
            },
        },
    )
    post(api, form["id"], {"email": "ned@example.com", "first_name": "Ned", "topic": "<script>"})
    drain()
    assert recipients() == ["boss@example.com", "ned@example.com", "sales@example.com"]
    by_address = {m["To"].addresses[0].addr_spec: m for m in sent_messages()}
    assert by_address["sales@example.com"]["Subject"] == "Lead ned@example.com"
    assert by_address["sales@example.com"]["Reply-To"] == "ned@example.com"
    assert "<p>Ned asks about &lt;script&gt;</p>" in parts(by_address["sales@example.com"])[1]
    assert by_address["ned@example.com"]["Reply-To"] is None


def test_form_email_without_a_message_sends_the_results_table(api, drain):
    form = make_form(api, {"type": "form.email", "properties": {"to": "sales@example.com", "subject": "New"}})
    post(api, form["id"], {"email": "ola@example.com", "topic": "Support", "secret": "hunter2"})
    drain()
    html = parts(sent_messages()[0])[1]
    assert "<strong>topic</strong></td><td>Support</td>" in html and "hunter2" not in html


@pytest.mark.parametrize(
    "action, field",
    [
        ({"type": "form.repost", "properties": {}}, "post_url"),
        ({"type": "form.repost", "properties": {"post_url": "ftp://x.example/"}}, "post_url"),
        (
            {"type": "form.repost", "properties": {"post_url": "https://x.example/", "failure_email": "nope"}},
            "failure_email",
        ),
        (
            {"type": "form.repost", "properties": {"post_url": "https://x.example/", "authorization_header": "a b: c"}},
            "authorization_header",
        ),
        ({"type": "asset.download", "properties": {"asset": 999}}, "asset"),
        ({"type": "asset.download", "properties": {}}, "asset"),
        ({"type": "lead.scorecontactscompanies", "properties": {"score": "ten"}}, "score"),
        ({"type": "lead.scorecontactscompanies", "properties": {"score": 0}}, "score"),
        ({"type": "email.send.lead", "properties": {"email": 999}}, "email"),
        ({"type": "email.send.user", "properties": {"useremail": {"email": 999}, "user_id": [1]}}, "useremail"),
        ({"type": "email.send.user", "properties": {"email": "{email}"}}, "user_id"),
        ({"type": "form.email", "properties": {"to": "a@example.com, broken"}}, "to"),
        ({"type": "form.email", "properties": {"subject": "Nobody"}}, "to"),
    ],
)
def test_bad_action_properties_are_a_400_naming_the_field(api, action, field):
    if action["type"] == "email.send.user" and field == "user_id":
        action["properties"]["email"] = make_email(api)["id"]
    response = api.post("/api/forms/new", {"name": "Bad", "fields": FIELDS, "actions": [dict(action, name="x")]})
    assert response.status_code == 400
    assert list(response.json["errors"][0]["details"]) == [f"actions[0][properties][{field}]"]
    assert int(api.get("/api/forms").json["total"]) == 0


def test_ses_unavailable_is_retried_without_mailing_anyone_twice(api, drain, monkeypatch):
    from chalicelib.ports import mail

    real, failures = mail.send, ["b@example.com"]

    def flaky(message):
        if message.to in failures:
            failures.remove(message.to)
            raise mail.Unavailable("SES is throttling")
        return real(message)

    monkeypatch.setattr(mail, "send", flaky)
    form = make_form(
        api, {"type": "form.email", "properties": {"to": "a@example.com, b@example.com", "subject": "New"}}
    )
    post(api, form["id"], {"email": "pat@example.com"})
    drain()
    assert recipients() == ["a@example.com", "b@example.com"]
    assert events(api, contact_of(api, "pat@example.com")["id"], "form.action.failed") == []


def test_an_email_unpublished_since_the_form_was_saved_is_recorded_as_not_sent(api, drain):
    mail_doc = make_email(api)
    form = make_form(api, {"type": "email.send.lead", "properties": {"email": mail_doc["id"]}})
    api.patch(f"/api/emails/{mail_doc['id']}/edit", {"isPublished": False})
    post(api, form["id"], {"email": "quinn@example.com"})
    drain()
    assert sent_messages() == []
    (failed,) = events(api, contact_of(api, "quinn@example.com")["id"], "form.action.failed")
    assert failed["details"]["reason"] == "The email is not published."
