"""Issue 28, part 3: Mautic's `/mailer/callback` for SNS over HTTPS. The test signs messages with an
RSA key and a self-signed certificate made here, and serves that certificate through the injected
fetcher: no network. A signed SES bounce makes the contact do-not-contact through the feedback
queue; a forged, unsigned or foreign-host message is refused and changes nothing."""

import base64
import datetime
import json

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID

from chalicelib.channels import sns_https
from chalicelib.domain.messaging import sns_callback
from chalicelib.store import queues
from tests.api.test_email_send import make_email
from tests.api.test_ses_feedback import _stat_of

CERT_URL = "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0123456789.pem"
SUBSCRIBE_URL = "https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=t0k"
TOPIC = "arn:aws:sns:eu-west-1:123456789012:ses-feedback"


def _certificate(key):
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "sns.amazonaws.com")])
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
    builder = builder.serial_number(x509.random_serial_number()).not_valid_before(now)
    cert = builder.not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256())
    return cert.public_bytes(serialization.Encoding.PEM)


KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
OTHER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture
def fetched(monkeypatch):
    """The URLs the callback fetched; the certificate of KEY at CERT_URL, an empty 200 elsewhere."""
    urls = []

    def fetch(url):
        urls.append(url)
        return _certificate(KEY) if url == CERT_URL else b"<ConfirmSubscriptionResponse/>"

    sns_callback._public_key.cache_clear()
    sns_https.use(fetch)
    yield urls
    sns_https.use(None)
    sns_callback._public_key.cache_clear()


def signed(message, key=KEY, version="1"):
    """`message` with SNS's signature fields, signed with `key` (SHA1 for version 1, SHA256 for 2)."""
    doc = dict(message, SignatureVersion=version, SigningCertURL=message.get("SigningCertURL", CERT_URL))
    algorithm = hashes.SHA1() if version == "1" else hashes.SHA256()
    doc["Signature"] = base64.b64encode(key.sign(sns_callback.canonical(doc), padding.PKCS1v15(), algorithm)).decode()
    return doc


def notification(inner, **extra):
    return {
        "Type": "Notification",
        "MessageId": "5b6e5c5e-0000-4000-8000-000000000001",
        "TopicArn": TOPIC,
        "Message": json.dumps(inner),
        "Timestamp": "2026-11-26T04:00:00.000Z",
        **extra,
    }


def post(api, doc):
    body = doc if isinstance(doc, str) else json.dumps(doc)
    return api.call(
        "POST", "/mailer/callback", raw=body, headers={"Content-Type": "text/plain; charset=UTF-8"}, auth=False
    )


def _bounce_for(api, drain):
    contact = api.post("/api/contacts/new", {"email": "gone@example.com"}).json["contact"]
    email = make_email(api)
    assert api.post(f"/api/emails/{email['id']}/contact/{contact['id']}/send").json["success"]
    drain()
    stat = _stat_of(api, contact["id"], email["id"])
    inner = {
        "notificationType": "Bounce",
        "mail": {"messageId": stat["messageId"]},
        "bounce": {
            "bounceType": "Permanent",
            "feedbackId": "fb-callback-1",
            "bouncedRecipients": [
                {"emailAddress": "gone@example.com", "diagnosticCode": "smtp; 550 5.1.1 no such user"}
            ],
        },
    }
    return contact, inner


@pytest.mark.parametrize("version", ["1", "2"])
def test_a_signed_bounce_through_the_callback_makes_the_contact_dnc(api, drain, fetched, version):
    contact, inner = _bounce_for(api, drain)
    answer = post(api, signed(notification(inner, Subject="Amazon SES Email Event Notification"), version=version))
    assert answer.status_code == 200 and answer.json["result"] == "queued"
    drain()
    [entry] = api.get(f"/api/contacts/{contact['id']}").json["contact"]["doNotContact"]
    assert (entry["reason"], entry["channel"]) == (2, "email") and "no such user" in entry["comments"]
    assert fetched == [CERT_URL]
    post(api, signed(notification(inner)))
    assert fetched == [CERT_URL], "the certificate is cached per URL"


def _forgeries(inner):
    good = signed(notification(inner))
    tampered = dict(good, Message=json.dumps(dict(inner, bounce=dict(inner["bounce"], feedbackId="other"))))
    foreign = signed(notification(inner, SigningCertURL="https://evil.example.com/cert.pem"))
    lookalike = signed(notification(inner, SigningCertURL="https://sns.eu-west-1.amazonaws.com.evil.io/c.pem"))
    plain_http = signed(notification(inner, SigningCertURL=CERT_URL.replace("https", "http")))
    not_pem = signed(notification(inner, SigningCertURL=CERT_URL[:-4] + ".txt"))
    return {
        "other key": signed(notification(inner), key=OTHER_KEY),
        "tampered": tampered,
        "foreign host": foreign,
        "lookalike host": lookalike,
        "http": plain_http,
        "not pem": not_pem,
        "no signature": {k: v for k, v in good.items() if k != "Signature"},
        "bad base64": dict(good, Signature="***"),
        "unknown version": dict(good, SignatureVersion="3"),
        "unknown type": dict(good, Type="Other"),
    }


def test_a_forged_callback_message_is_refused_and_nothing_is_written(api, drain, fetched):
    contact, inner = _bounce_for(api, drain)
    for name, forged in _forgeries(inner).items():
        answer = post(api, forged)
        assert answer.status_code == 403, name
        assert answer.json["errors"][0]["code"] == 403
    assert post(api, "{not json").status_code == 400
    assert post(api, "[1, 2]").status_code == 400
    assert queues.receive("feedback") == []
    assert api.get(f"/api/contacts/{contact['id']}").json["contact"]["doNotContact"] == []
    assert all(url == CERT_URL for url in fetched), "nothing fetched from a host that is not SNS"


def test_a_subscription_confirmation_is_confirmed_through_its_subscribe_url(api, fetched):
    confirmation = {
        "Type": "SubscriptionConfirmation",
        "MessageId": "165545c9-2a5c-472c-8df2-7ff2be2b3b1b",
        "Token": "t0k",
        "TopicArn": TOPIC,
        "Message": "You have chosen to subscribe to the topic.",
        "SubscribeURL": SUBSCRIBE_URL,
        "Timestamp": "2026-11-26T04:00:00.000Z",
    }
    answer = post(api, signed(confirmation, version="2"))
    assert answer.status_code == 200 and answer.json["result"] == "confirmed"
    assert fetched == [CERT_URL, SUBSCRIBE_URL]
    elsewhere = signed(dict(confirmation, SubscribeURL="https://attacker.example.com/confirm"))
    assert post(api, elsewhere).status_code == 403
    assert fetched[-1] != "https://attacker.example.com/confirm"


def test_only_the_configured_topics_are_accepted(api, fetched, monkeypatch):
    from chalicelib import config

    monkeypatch.setattr(config, "MAILER_CALLBACK_TOPICS", ("arn:aws:sns:eu-west-1:123456789012:mine",))
    answer = post(api, signed(notification({"notificationType": "Delivery", "mail": {"messageId": "x"}})))
    assert answer.status_code == 403 and "MAILER_CALLBACK_TOPICS" in answer.json["errors"][0]["message"]


def test_the_email_shows_the_bounce_complaint_and_delivery_counts(api, drain, fetched):
    """Issue 28, part 5: SES's counts on the email, read with its other counters (no extra call)."""
    contact, inner = _bounce_for(api, drain)
    post(api, signed(notification(inner)))
    delivery = {"notificationType": "Delivery", "mail": inner["mail"], "delivery": {"recipients": ["gone@example.com"]}}
    post(api, signed(notification(delivery, MessageId="5b6e5c5e-0000-4000-8000-000000000002")))
    drain()
    events = api.get(f"/api/contacts/{contact['id']}/activity?filters[includeEvents][]=email.sent").json["events"]
    email_id = events[0]["details"]["emailId"]
    shown = api.get(f"/api/emails/{email_id}").json["email"]
    assert (shown["bounceCount"], shown["complaintCount"], shown["deliveryCount"]) == (1, 0, 1)
    listed = api.get("/api/emails").json["emails"]
    assert listed[str(email_id)]["bounceCount"] == 1
