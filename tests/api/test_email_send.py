"""Issue 8: sending one email to one contact (transactional API send and the `sending` interface),
over moto's SES: the message, its tokens and attachments, the send record, the timeline, the
counters, do-not-contact and failures."""

import email
import os
from email import policy

import pytest

from chalicelib import config
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.messaging import sending

HTML = (
    "<html><body><p>Hi {contactfield=firstname|there}, your code is {code}.</p>"
    '<a href="https://shop.example/offer">Offer</a> {unsubscribe_text}</body></html>'
)


def sent_messages():
    """The messages the mail adapter accepted (the in-memory one's, else moto's SES's), parsed."""
    from chalicelib.ports import adapters
    from devstack.memory.channels import MemoryMail

    installed = adapters.active()
    if installed is not None and isinstance(installed.mail, MemoryMail):
        return [email.message_from_bytes(sent.raw, policy=policy.default) for sent in installed.mail.sent]
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.ses.models import ses_backends

    backend = ses_backends[DEFAULT_ACCOUNT_ID][os.environ["AWS_DEFAULT_REGION"]]
    return [email.message_from_string(m.raw_data, policy=policy.default) for m in backend.sent_messages]


def parts(message):
    """(plain text, HTML, [attachment file names]) of a parsed message."""
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",))
    names = [part.get_filename() for part in message.iter_attachments()]
    return text, html.get_content() if html else "", names


@pytest.fixture
def hook_receiver(api):
    """A factory, called with triggers: a receiver on 127.0.0.1 subscribed to the triggers by a published hook."""
    from tests.receiver import Receiver

    running = []

    def subscribe(triggers):
        running.append(Receiver())
        response = api.post("/api/hooks/new", {"name": "Receiver", "webhookUrl": running[-1].url, "triggers": triggers})
        assert response.status_code == 201, response.json
        return running[-1]

    yield subscribe
    for receiver in running:
        receiver.close()


def received(receiver, trigger):
    """The events of one trigger the receiver got."""
    return [event for request in receiver.received for event in request.json.get(trigger, [])]


def make_contact(api, **values):
    body = dict({"email": "ann@example.com", "firstname": "Ann"}, **values)
    response = api.post("/api/contacts/new", body)
    assert response.status_code == 201, response.json
    return response.json["contact"]


def make_email(api, **extra):
    body = dict({"name": "Welcome", "subject": "Hello {contactfield=firstname}", "customHtml": HTML}, **extra)
    response = api.post("/api/emails/new", body)
    assert response.status_code == 201, response.json
    return response.json["email"]


def events(api, contact_id, event_type):
    activity = api.get(f"/api/contacts/{contact_id}/activity").json["events"]
    return [e for e in activity if e["event"] == event_type]


def test_send_to_one_contact_delivers_the_rendered_email(api):
    contact, mail = make_contact(api), make_email(api, fromName="Shop", replyToAddress="help@example.com")
    response = api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send", {"tokens": {"code": "A-7"}})
    assert response.status_code == 200 and response.json == {"success": True}
    (message,) = sent_messages()
    assert message["To"] == "Ann <ann@example.com>"
    assert message["From"] == f"Shop <{config.active().MAILER_FROM_EMAIL}>"
    assert message["Reply-To"] == "help@example.com" and message["Subject"] == "Hello Ann"
    text, html, _ = parts(message)
    assert "Hi Ann, your code is A-7." in html and "Hi Ann, your code is A-7." in text
    tracking = message["X-Mautic-Tracking"]
    assert f"/email/unsubscribe/{tracking}" in html and f"/email/{tracking}.gif" in html
    assert f"/r/{tracking}?url=https%3A%2F%2Fshop.example%2Foffer&amp;sig=" in html
    assert "List-Unsubscribe" not in message  # transactional
    (sent,) = events(api, contact["id"], "email.sent")
    assert sent["details"] == {
        "emailId": mail["id"],
        "statId": sent["details"]["statId"],
        "subject": "Hello Ann",
        "source": ["api", None],
    }
    assert api.get(f"/api/emails/{mail['id']}").json["email"]["sentCount"] == 1


def test_the_local_outbox_holds_each_message_as_eml(api):
    contact, mail = make_contact(api), make_email(api)
    api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send")
    (name,) = os.listdir(config.active().OUTBOX_DIR)
    assert name.endswith(".eml")
    with open(os.path.join(config.active().OUTBOX_DIR, name), "rb") as handle:
        assert email.message_from_bytes(handle.read(), policy=policy.default)["Subject"] == "Hello Ann"


def test_asset_attachments_travel_in_the_message(api):
    boundary = "b8"
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="terms.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n%PDF-1.4 terms\r\n"
        f"--{boundary}--\r\n"
    ).encode()
    name = api.call(
        "POST", "/api/files/assets/new", raw=body, headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
    ).json["file"]["name"]
    asset = api.post("/api/assets/new", {"title": "Terms", "file": name}).json["asset"]
    contact, mail = make_contact(api), make_email(api)
    response = api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send", {"assetAttachments": [asset["id"]]})
    assert response.json == {"success": True}
    (message,) = sent_messages()
    attachment = next(message.iter_attachments())
    assert attachment.get_filename() == "terms.pdf" and attachment.get_content() == b"%PDF-1.4 terms"


def test_unknown_email_or_contact_is_404_and_bad_input_400(api):
    contact, mail = make_contact(api), make_email(api)
    assert api.post(f"/api/emails/999/contact/{contact['id']}/send").status_code == 404
    assert api.post(f"/api/emails/{mail['id']}/contact/999/send").status_code == 404
    bad = api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send", {"tokens": "code"})
    assert bad.status_code == 400 and "tokens" in bad.json["errors"][0]["details"]
    bad = api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send", {"assetAttachments": [42]})
    assert bad.status_code == 400 and "assetAttachments" in bad.json["errors"][0]["details"]
    assert sent_messages() == []


def test_transactional_sends_ignore_do_not_contact_other_sends_respect_it(api):
    contact, mail = make_contact(api), make_email(api)
    api.post(f"/api/contacts/{contact['id']}/dnc/email/add", {"reason": 1})
    assert api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send").json == {"success": True}
    result = sending.send_email(mail["id"], contact["id"], Context(), source=("campaign", 7))
    assert result["success"] is False and "do not contact" in result["reason"]
    assert len(sent_messages()) == 1


def test_interface_records_the_source_and_refuses_contacts_without_an_address(api):
    contact, mail = make_contact(api), make_email(api)
    result = sending.send_email(mail["id"], contact["id"], Context(), source=("campaign", 7))
    assert result["success"] is True
    stat = sending.email_stats.find(result["trackingHash"])
    assert stat["source"] == "campaign" and stat["sourceId"] == 7 and stat["emailAddress"] == "ann@example.com"
    nobody = make_contact(api, email=None, firstname="Nobody")
    failed = sending.send_email(mail["id"], nobody["id"], Context())
    assert failed == {"success": False, "reason": "The contact has no valid email address.", "retryable": False}


def test_an_unpublished_email_is_not_sent_outside_transactional_sends(api):
    contact, mail = make_contact(api), make_email(api, isPublished=False)
    result = sending.send_email(mail["id"], contact["id"], Context())
    assert result["success"] is False and result["reason"] == "The email is not published."


def test_any_sender_address_works_locally(api):
    """Locally the embedded SES verifies a sender on first use: any fromAddress sends."""
    contact, mail = make_contact(api), make_email(api, fromAddress="someone@unverified.example")
    response = api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send")
    assert response.status_code == 200 and response.json["success"] is True
    assert api.get(f"/api/emails/{mail['id']}").json["email"]["sentCount"] == 1


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_an_unverified_sender_on_aws_is_a_recorded_failure_naming_the_fix(api, configure):
    """On AWS, SES answers MessageRejected "Email address is not verified": the contact's failure names
    the address and SES identity verification, and nothing is counted as sent."""
    configure(STAGE="prod")
    contact, mail = make_contact(api), make_email(api, fromAddress="nobody-verified@elsewhere.example")
    response = api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send")
    assert response.status_code == 200 and response.json["success"] is False
    assert "nobody-verified@elsewhere.example" in response.json["failed"]
    (failed,) = events(api, contact["id"], "email.failed")
    reason = failed["details"]["reason"]
    assert failed["details"]["emailId"] == mail["id"]
    assert "nobody-verified@elsewhere.example" in reason and "not verified in Amazon SES" in reason
    assert "verify-email-identity" in reason
    assert api.get(f"/api/emails/{mail['id']}").json["email"]["sentCount"] == 0


def test_sent_count_written_by_a_client_is_what_it_reads_back(api):
    contact, mail = make_contact(api), make_email(api)
    api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send")
    assert api.patch(f"/api/emails/{mail['id']}/edit", {"sentCount": 10}).json["email"]["sentCount"] == 10
    api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send")
    assert api.get(f"/api/emails/{mail['id']}").json["email"]["sentCount"] == 11
    listed = api.get("/api/emails").json["emails"]
    assert listed[str(mail["id"])]["sentCount"] == 11


def test_email_send_point_actions_score_the_contact(api):
    contact, mail = make_contact(api), make_email(api)
    api.post(
        "/api/points/new",
        {"name": "Sent", "type": "email.send", "delta": 5, "properties": {"emails": [mail["id"]]}, "repeatable": True},
    )
    api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send")
    assert api.get(f"/api/contacts/{contact['id']}").json["contact"]["points"] == 5
