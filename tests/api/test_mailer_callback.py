"""Issue 28, part 3: Mautic's `/mailer/callback` for SNS over HTTPS. The test signs messages with an
RSA key and a self-signed certificate made here, and serves that certificate through the injected
fetcher: no network. A signed SES bounce makes the contact do-not-contact through the feedback
queue; a forged, unsigned or foreign-host message is refused and changes nothing. Issue 39: the
attacks of its review (another account's topic, repeated complaints, poison, certificate hosts)."""

import base64
import datetime
import http.server
import json
import threading
import time

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID

from chalicelib import config
from chalicelib.channels import sns_https
from chalicelib.domain.messaging import sns_callback
from chalicelib.ports import queues
from tests.api.test_email_send import make_email
from tests.api.test_ses_feedback import _stat_of

TOPIC = config.active().MAILER_CALLBACK_TOPICS[0]  # the local stack's own feedback topic, its default
ACCOUNT = config.active().STACK_ACCOUNT_ID
HOST = f"sns.{config.active().AWS_REGION}.amazonaws.com"
CERT_URL = f"https://{HOST}/SimpleNotificationService-0123456789abcdef.pem"
SUBSCRIBE_URL = f"https://{HOST}/?Action=ConfirmSubscription&TopicArn={TOPIC}&Token=t0k"


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

    sns_callback.forget()
    sns_https.use(fetch)
    yield urls
    sns_https.use(None)
    sns_callback.forget()


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
        "mail": {"messageId": stat["messageId"], "sendingAccountId": ACCOUNT},
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

    def at(url):
        return signed(notification(inner, SigningCertURL=url))

    return {
        "other key": signed(notification(inner), key=OTHER_KEY),
        "tampered": tampered,
        "foreign host": at("https://evil.example.com/cert.pem"),
        "lookalike host": at(f"https://{HOST}.evil.io/SimpleNotificationService-1.pem"),
        "http": at(CERT_URL.replace("https", "http")),
        "not pem": at(CERT_URL[:-4] + ".txt"),
        "sns on s3": at("https://sns.s3.amazonaws.com/SimpleNotificationService-1.pem"),
        "another region": at("https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-1.pem"),
        "another file": at(f"https://{HOST}/attacker/SimpleNotificationService-1.pem"),
        "a query": at(CERT_URL + "?x=1"),
        "a port": at(CERT_URL.replace(HOST, HOST + ":443")),
        "user info": at(CERT_URL.replace(HOST, "a@" + HOST)),
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
        assert answer.json["errors"][0]["message"] == sns_callback.REFUSED, name
    assert post(api, "{not json").status_code == 400
    assert post(api, "[1, 2]").status_code == 400
    assert queues.receive("feedback") == []
    assert api.get(f"/api/contacts/{contact['id']}").json["contact"]["doNotContact"] == []
    assert all(url == CERT_URL for url in fetched), "nothing fetched but the topic's regional certificate"


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
    for url in ("https://attacker.example.com/confirm", SUBSCRIBE_URL.replace(TOPIC, TOPIC + "2")):
        assert post(api, signed(dict(confirmation, SubscribeURL=url))).status_code == 403
    assert fetched == [CERT_URL, SUBSCRIBE_URL], "nothing fetched for the refused ones"


def test_only_the_configured_topics_are_accepted(api, fetched, configure):
    configure(MAILER_CALLBACK_TOPICS=(TOPIC.replace("ses-feedback", "mine"),))
    inner = {"notificationType": "Delivery", "mail": {"messageId": "x", "sendingAccountId": ACCOUNT}}
    answer = post(api, signed(notification(inner)))
    assert answer.status_code == 403 and answer.json["errors"][0]["message"] == sns_callback.REFUSED
    assert fetched == []


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


ATTACKER_TOPIC = "arn:aws:sns:us-east-1:999999999999:ses-feedback"


def confirmation_of(topic):
    url = f"https://sns.{topic.split(':')[3]}.amazonaws.com/?Action=ConfirmSubscription&TopicArn={topic}&Token=t"
    doc = {
        "Type": "SubscriptionConfirmation",
        "MessageId": "165545c9-2a5c-472c-8df2-7ff2be2b3b1c",
        "Token": "t",
        "TopicArn": topic,
        "Message": "You have chosen to subscribe to the topic.",
        "SubscribeURL": url,
        "Timestamp": "2026-11-26T04:00:00.000Z",
    }
    return signed(doc, version="2")


def test_an_attackers_own_topic_is_refused_before_anything_is_fetched(api, drain, fetched, configure):
    """Issue 39, High: SNS signs every account's topics, so another account's topic (signed by SNS
    for real) is refused by its ARN alone; with no topic configured, none is accepted."""
    contact, inner = _bounce_for(api, drain)
    inner["mail"]["sendingAccountId"] = "999999999999"
    assert post(api, confirmation_of(ATTACKER_TOPIC)).status_code == 403
    assert post(api, signed(notification(inner, TopicArn=ATTACKER_TOPIC))).status_code == 403
    configure(MAILER_CALLBACK_TOPICS=())  # fail closed: nothing configured
    assert post(api, confirmation_of(TOPIC)).status_code == 403
    assert fetched == [], "neither certificate nor SubscribeURL fetched"
    assert queues.receive("feedback") == []
    assert api.get(f"/api/contacts/{contact['id']}").json["contact"]["doNotContact"] == []


def test_a_topic_or_sending_account_other_than_the_stacks_is_refused(api, drain, fetched, configure):
    """Issue 39: the topic's account and the notification's `mail.sendingAccountId` must be the
    stack's account, even for a topic an operator listed."""
    contact, inner = _bounce_for(api, drain)
    configure(MAILER_CALLBACK_TOPICS=(TOPIC, ATTACKER_TOPIC))
    assert post(api, signed(notification(inner, TopicArn=ATTACKER_TOPIC))).status_code == 403
    for account in ("999999999999", None):
        mail = dict(inner["mail"], sendingAccountId=account) if account else {"messageId": inner["mail"]["messageId"]}
        assert post(api, signed(notification(dict(inner, mail=mail)))).status_code == 403
    assert fetched == []
    assert post(api, signed(notification(inner))).json["result"] == "queued"  # the stack's own


@pytest.fixture
def guard(configure):
    """Judged from 4 sends; paused at 30 % complaints or 50 % bounces."""
    from chalicelib.domain.messaging import reputation

    configure(EMAIL_GUARD_MIN_SENDS=4)
    configure(EMAIL_GUARD_COMPLAINT_RATE=30.0)
    configure(EMAIL_GUARD_BOUNCE_RATE=50.0)
    reputation.forget()
    yield reputation
    reputation.forget()


def _signed_feedback(stat, kind, n):
    """A signed notification of `kind` for the send, under a fresh feedback id and SNS message id."""
    part = {"feedbackId": f"fb-forged-{kind}-{n}"}
    if kind == "Bounce":
        part.update(bounceType="Permanent", bounceSubType="General")
    inner = {
        "notificationType": kind,
        "mail": {
            "messageId": "unknown-to-ses",
            "sendingAccountId": ACCOUNT,
            "headers": [{"name": "X-Mautic-Tracking", "value": stat["trackingHash"]}],
        },
        kind.lower(): part,
    }
    return signed(notification(inner, MessageId=f"5b6e5c5e-0000-4000-8000-{kind[:1]}{n:011d}"))


def test_repeated_complaints_for_one_send_count_once_and_do_not_pause_segment_sends(api, drain, fetched, guard):
    """Issue 39, High: three signed complaints naming one send's tracking hash, each with a fresh
    feedbackId, count one complaint (25 % of 4 sends, under the 30 % threshold), so segment sends
    go on; three bounces for one send count one bounce."""
    from tests.api.test_email_segment_send import PRAGUE

    segment = api.post("/api/segments/new", {"name": "Prague", "filters": PRAGUE}).json["list"]
    ids = [
        api.post("/api/contacts/new", {"email": f"p{n}@example.com", "city": "Prague"}).json["contact"]["id"]
        for n in range(4)
    ]
    drain()
    email = make_email(api, emailType="list", lists=[segment["id"]])
    api.post(f"/api/emails/{email['id']}/send")
    drain()
    complained, bounced = (_stat_of(api, ids[n], email["id"]) for n in (0, 1))
    for n in range(3):
        assert post(api, _signed_feedback(complained, "Complaint", n)).json["result"] == "queued"
        assert post(api, _signed_feedback(bounced, "Bounce", n)).json["result"] == "queued"
    drain()
    shown = api.get(f"/api/emails/{email['id']}").json["email"]
    assert (shown["complaintCount"], shown["bounceCount"]) == (1, 1)
    assert guard.paused() is None
    again = make_email(api, emailType="list", lists=[segment["id"]])
    assert api.post(f"/api/emails/{again['id']}/send").status_code == 200


def _nested(levels):
    return "[" * levels + "]" * levels


def test_poison_bodies_and_notifications_are_refused_once_with_a_400(api, fetched):
    """Issue 39, Low: deeply nested JSON is a 400 from the API's body parser (not a RecursionError
    500); a signed notification whose message is no JSON object is refused before any fetch."""
    for body in (_nested(100_000), _nested(40), "{not json"):
        answer = post(api, body)
        assert answer.status_code == 400, body[:10]
        assert answer.json["errors"][0]["code"] == 400
    for message in ("Successfully validated SNS topic", _nested(100_000), json.dumps({"a": json.loads(_nested(40))})):
        answer = post(api, signed(dict(notification({}), Message=message)))
        assert answer.status_code == 400, message[:10]
    assert fetched == [] and queues.receive("feedback") == []


def test_the_worker_drops_a_poison_message_once_instead_of_failing_it_into_the_dlq(api, drain, caplog):
    """Issue 39: a notification that can never be handled is logged and deleted at its first receive."""
    poison = [
        {"Type": "Notification", "TopicArn": TOPIC, "Message": "{oops"},
        {"Type": "Notification", "TopicArn": TOPIC, "Message": _nested(100_000)},
        {"Type": "Notification", "TopicArn": TOPIC, "Message": json.dumps({"mail": json.loads(_nested(40))})},
        {"Type": "Notification", "TopicArn": TOPIC, "Message": 7},
    ]
    queues.send("feedback", poison)
    assert drain() == 4  # strict: a raising handler would fail the test here
    assert queues.receive("feedback") == [] and queues.receive("feedback", dead_letter=True) == []
    assert sum("dropped as poison" in record.getMessage() for record in caplog.records) == 4


def test_a_certificate_that_cannot_be_fetched_is_a_generic_403_and_is_not_asked_for_again(
    api, drain, fetched, monkeypatch
):
    """Issue 39, Low: the fetch error is never echoed, and a failed URL is remembered for a while."""
    tries = []

    def failing(url):
        tries.append(url)
        raise OSError("connect to 10.1.2.3:443 refused (internal detail)")

    _contact, inner = _bounce_for(api, drain)
    sns_https.use(failing)
    monkeypatch.setattr(sns_callback, "FAILURE_SECONDS", 0.3)
    for _ in range(2):
        answer = post(api, signed(notification(inner)))
        assert answer.status_code == 403 and answer.json["errors"][0]["message"] == sns_callback.REFUSED
        assert "10.1.2.3" not in answer.body.decode()
    assert tries == [CERT_URL], "the second message did not fetch again"
    time.sleep(0.35)
    assert post(api, signed(notification(inner))).status_code == 403
    assert tries == [CERT_URL, CERT_URL], "asked again once the failure is old"


class _Redirecting(http.server.BaseHTTPRequestHandler):
    seen: list = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        self.seen.append(self.path)
        self.send_response(302)
        self.send_header("Location", "/elsewhere")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_the_fetcher_follows_no_redirect():
    """Issue 39, Low: a 302 from the host is a failure, never a fetch of another URL."""
    server = http.server.HTTPServer(("127.0.0.1", 0), _Redirecting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(OSError):
            sns_https._urlopen(f"http://127.0.0.1:{server.server_port}/SimpleNotificationService-1.pem")
    finally:
        server.shutdown()
    assert _Redirecting.seen == ["/SimpleNotificationService-1.pem"]
