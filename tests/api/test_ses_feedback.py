"""Issue 28, the feedback path over moto: SES notifications reach the `feedback` queue through the
SNS topic (as the template wires them), the worker makes the contact do-not-contact, and the next
segment send skips it. Issue 39: the embedded SES's mailbox simulator answers for the very message
sent (devstack/ses_simulator.py), and feedback of another account changes nothing."""

import json

import pytest

from chalicelib import aws, config
from chalicelib.domain.messaging import email_stats, feedback, reputation
from chalicelib.ports import queues
from tests.api.test_email_segment_send import PRAGUE
from tests.api.test_email_send import make_email, sent_messages

pytestmark = pytest.mark.aws  # about AWS itself: over moto


def _topic():
    return aws.client("sns").create_topic(Name=config.active().FEEDBACK_TOPIC)["TopicArn"]


def _stat_of(api, contact_id, email_id):
    events = api.get(f"/api/contacts/{contact_id}/activity?filters[includeEvents][]=email.sent").json
    stat_id = events["events"][0]["details"]["statId"]
    return email_stats.get("email", email_id, stat_id)


def _peek():
    """The one message of the feedback queue, left there for the worker."""
    [(receipt, body, _count)] = queues.receive("feedback")
    queues.change_visibility("feedback", {receipt: 0})
    return body


def _send_to(api, address):
    """A contact at `address` sent a new email through the API; (contact, email)."""
    contact = api.post("/api/contacts/new", {"email": address}).json["contact"]
    mail_doc = make_email(api)
    assert api.post(f"/api/emails/{mail_doc['id']}/contact/{contact['id']}/send").json["success"]
    return contact, mail_doc


def _shown(api, contact, mail_doc):
    """(the contact's do-not-contact entries, the email's bounce, complaint and delivery counts)."""
    entries = api.get(f"/api/contacts/{contact['id']}").json["contact"]["doNotContact"]
    email = api.get(f"/api/emails/{mail_doc['id']}").json["email"]
    return entries, (email["bounceCount"], email["complaintCount"], email["deliveryCount"])


def test_a_send_to_the_bounce_simulator_bounces_that_very_message_through_the_topic_and_worker(api, drain):
    """Issue 39: the simulator's bounce names the message SES accepted, so the worker finds the send
    and the contact becomes do-not-contact, bounced, as after a real hard bounce."""
    contact, mail_doc = _send_to(api, "bounce@simulator.amazonses.com")
    body = _peek()
    assert body["TopicArn"] == _topic(), "through the stack's own topic"
    notification = feedback.unwrap(body)
    stat = _stat_of(api, contact["id"], mail_doc["id"])
    assert notification["mail"]["messageId"] == stat["messageId"]
    assert notification["mail"]["sendingAccountId"] == config.active().STACK_ACCOUNT_ID
    drain()
    [entry], counts = _shown(api, contact, mail_doc)
    assert (entry["reason"], entry["channel"]) == (2, "email") and "550 5.1.1 user unknown" in entry["comments"]
    assert counts == (1, 0, 0)
    assert email_stats.get("email", mail_doc["id"], stat["id"])["isFailed"] is True


def test_the_other_simulator_mailboxes_answer_as_ses_does(api, drain):
    """complaint@: delivered, then a complaint (unsubscribed); success@ and ooto@: delivered;
    suppressionlist@: a hard bounce of the suppressed kind (bounced, out of the guard's bounce rate);
    a `+label` reaches the same mailbox."""
    complained = _send_to(api, "complaint+run1@simulator.amazonses.com")
    delivered = _send_to(api, "success@simulator.amazonses.com")
    ooto = _send_to(api, "ooto@simulator.amazonses.com")
    suppressed = _send_to(api, "suppressionlist@simulator.amazonses.com")
    drain()
    entries, counts = _shown(api, *complained)
    assert [(e["reason"], "abuse" in e["comments"]) for e in entries] == [(1, True)] and counts == (0, 1, 1)
    assert _shown(api, *delivered) == ([], (0, 0, 1))
    assert _shown(api, *ooto) == ([], (0, 0, 1))
    [entry], counts = _shown(api, *suppressed)
    assert entry["reason"] == 2 and entry["comments"].startswith("Permanent/Suppressed") and counts == (1, 0, 0)
    assert reputation.rates(0)["bounce"] == 0, "a suppressed address is not in the bounce rate"


def test_an_address_that_merely_contains_bounce_gets_no_notification(api, drain):
    """The embedded SES's canned notification (any address containing "bounce") is gone."""
    contact, mail_doc = _send_to(api, "bounce.back@example.com")
    assert queues.receive("feedback") == []
    drain()
    assert _shown(api, contact, mail_doc) == ([], (0, 0, 0))


def test_feedback_of_another_account_changes_nothing(api, drain):
    """Issue 39: a notification whose sendingAccountId is not the stack's account is dropped by the
    worker (the queue takes only the stack's topic, but the worker checks anyway)."""
    contact, mail_doc = _send_to(api, "ann@example.com")
    stat = _stat_of(api, contact["id"], mail_doc["id"])
    notification = {
        "notificationType": "Complaint",
        "mail": {"messageId": stat["messageId"], "sendingAccountId": "999999999999"},
        "complaint": {"feedbackId": "fb-foreign", "complaintFeedbackType": "abuse"},
    }
    aws.client("sns").publish(TopicArn=_topic(), Message=json.dumps(notification))
    assert feedback.handle(_peek()) == "foreign"
    drain()
    assert _shown(api, contact, mail_doc) == ([], (0, 0, 0))


def test_a_bounce_through_the_topic_makes_the_contact_dnc_and_the_next_segment_send_skips_it(api, drain):
    segment = api.post("/api/segments/new", {"name": "Prague", "filters": PRAGUE}).json["list"]
    ids = [
        api.post("/api/contacts/new", {"email": f"c{n}@example.com", "city": "Prague"}).json["contact"]["id"]
        for n in range(2)
    ]
    drain()
    first = make_email(api, emailType="list", lists=[segment["id"]])
    api.post(f"/api/emails/{first['id']}/send")
    drain()
    stat = _stat_of(api, ids[0], first["id"])
    notification = {
        "notificationType": "Bounce",
        "mail": {
            "messageId": stat["messageId"],
            "headers": [{"name": "X-Mautic-Tracking", "value": stat["trackingHash"]}],
        },
        "bounce": {
            "bounceType": "Permanent",
            "feedbackId": "fb-1",
            "bouncedRecipients": [{"emailAddress": "c0@example.com", "diagnosticCode": "smtp; 550 user unknown"}],
        },
    }
    for _ in range(2):  # SNS delivers at least once
        aws.client("sns").publish(TopicArn=_topic(), Message=json.dumps(notification))
    drain()
    contact = api.get(f"/api/contacts/{ids[0]}").json["contact"]
    [entry] = contact["doNotContact"]
    assert (entry["reason"], entry["channel"]) == (2, "email") and "550 user unknown" in entry["comments"]
    assert email_stats.get("email", first["id"], stat["id"])["isFailed"] is True
    assert feedback.counts(first["id"])["bounce"] == 1
    before = len(sent_messages())
    second = make_email(api, emailType="list", lists=[segment["id"]])
    api.post(f"/api/emails/{second['id']}/send")
    drain()
    assert [m["To"].addresses[0].addr_spec for m in sent_messages()[before:]] == ["c1@example.com"]
