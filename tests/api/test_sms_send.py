"""Issue 8: text messages over moto's SNS: GET/POST /smses/<id>/contact/<cid>/send, E.164 numbers,
do-not-contact on `sms`, sentCount, the timeline, the outbox and the `mautic.sms_on_send` webhook."""

import json
import os

from chalicelib import config
from chalicelib.ports import sms
from tests.api.test_email_send import hook_receiver, make_contact, received  # noqa: F401 - a fixture


def sms_messages():
    """(number, text) of the texts the SMS adapter accepted (the in-memory one's, else moto's SNS's)."""
    from chalicelib.ports import adapters
    from devstack.memory.channels import MemorySms

    installed = adapters.active()
    if installed is not None and isinstance(installed.sms, MemorySms):
        return [(sent["to"], sent["message"]) for sent in installed.sms.sent]
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.sns.models import sns_backends

    return list(sns_backends[DEFAULT_ACCOUNT_ID][os.environ["AWS_DEFAULT_REGION"]].sms_messages.values())


def make_sms(api, message="Hi {contactfield=firstname|there}, see you at {contactfield=city|the shop}."):
    response = api.post("/api/smses/new", {"name": "Reminder", "message": message})
    assert response.status_code == 201, response.json
    return response.json["sms"]


def test_get_sends_the_rendered_text_to_the_mobile_number(api):
    contact, text = make_contact(api, mobile="+420 777 123 456", city="Brno"), make_sms(api)
    response = api.get(f"/api/smses/{text['id']}/contact/{contact['id']}/send")
    assert response.status_code == 200
    assert response.json == {
        "success": True,
        "status": "Delivered",
        "result": {"sent": True, "status": "Delivered", "content": "Hi Ann, see you at Brno."},
        "errors": [],
    }
    assert sms_messages() == [("+420777123456", "Hi Ann, see you at Brno.")]
    assert api.get(f"/api/smses/{text['id']}").json["sms"]["sentCount"] == 1
    activity = api.get(f"/api/contacts/{contact['id']}/activity").json["events"]
    (sent,) = [e for e in activity if e["event"] == "sms.sent"]
    assert sent["details"] == {
        "smsId": text["id"],
        "statId": sent["details"]["statId"],
        "content": "Hi Ann, see you at Brno.",
    }
    (name,) = os.listdir(config.active().OUTBOX_DIR)
    with open(os.path.join(config.active().OUTBOX_DIR, name)) as handle:
        assert json.load(handle)["to"] == "+420777123456"


def test_post_works_too_and_phone_is_the_fallback(api):
    contact, text = make_contact(api, phone="0044 20 7946 0958"), make_sms(api, "Hello")
    assert api.post(f"/api/smses/{text['id']}/contact/{contact['id']}/send").json["success"] is True
    assert sms_messages() == [("+442079460958", "Hello")]


def test_no_valid_number_do_not_contact_and_unknowns(api):
    text = make_sms(api)
    local = make_contact(api, mobile="777 123 456")
    response = api.get(f"/api/smses/{text['id']}/contact/{local['id']}/send")
    assert response.status_code == 200 and response.json["success"] is False
    assert response.json["errors"] == [{"message": response.json["status"]}] and "E.164" in response.json["status"]
    blocked = make_contact(api, email="bob@example.com", mobile="+14155550100")
    api.post(f"/api/contacts/{blocked['id']}/dnc/sms/add", {"channel": "sms"})
    response = api.get(f"/api/smses/{text['id']}/contact/{blocked['id']}/send")
    assert response.json["success"] is False and "do not contact" in response.json["status"]
    assert api.get(f"/api/smses/999/contact/{blocked['id']}/send").status_code == 404
    assert api.get(f"/api/smses/{text['id']}/contact/999/send").status_code == 404
    assert sms_messages() == []
    assert api.get(f"/api/smses/{text['id']}").json["sms"]["sentCount"] == 0


def test_e164_normalisation():
    assert sms.e164("+1 (415) 555-0100") == "+14155550100"
    assert sms.e164("00420777123456") == "+420777123456"
    assert sms.e164("777123456") is None and sms.e164("+0123456789") is None and sms.e164(None) is None
    assert sms.e164("+1234567890123456") is None


def test_the_send_reaches_the_sms_webhook(api, drain, hook_receiver):  # noqa: F811 - the fixture
    receiver = hook_receiver(["mautic.sms_on_send"])
    contact, text = make_contact(api, mobile="+14155550100"), make_sms(api, "Ping")
    api.get(f"/api/smses/{text['id']}/contact/{contact['id']}/send")
    drain()
    (event,) = received(receiver, "mautic.sms_on_send")
    assert event["smsId"] == text["id"] and event["content"] == "Ping" and event["contact"]["id"] == contact["id"]
