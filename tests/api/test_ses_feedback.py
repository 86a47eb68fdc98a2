"""Issue 28, the feedback path over moto: SES notifications reach the `feedback` queue through the
SNS topic (as the template wires them), the worker makes the contact do-not-contact, and the next
segment send skips it."""

import json

from chalicelib import aws, config
from chalicelib.domain.messaging import email_stats, feedback
from chalicelib.store import queues
from chalicelib.store.schema import FEEDBACK_TOPIC
from tests.api.test_email_segment_send import PRAGUE
from tests.api.test_email_send import make_email, sent_messages


def _topic():
    return aws.client("sns").create_topic(Name=config.RESOURCE_PREFIX + FEEDBACK_TOPIC)["TopicArn"]


def _stat_of(api, contact_id, email_id):
    events = api.get(f"/api/contacts/{contact_id}/activity?filters[includeEvents][]=email.sent").json
    stat_id = events["events"][0]["details"]["statId"]
    return email_stats.get("email", email_id, stat_id)


def test_a_send_to_the_bounce_simulator_reaches_the_feedback_worker_through_sns(api, drain):
    """The embedded SES publishes its canned bounce to the topic the local stack set for the sender's
    domain; the topic's subscription puts it on the feedback queue (its canned message ids match
    no send: nothing changes)."""
    contact = api.post("/api/contacts/new", {"email": "bounce@simulator.amazonses.com"}).json["contact"]
    mail_doc = make_email(api, fromName="", fromAddress=config.MAILER_FROM_EMAIL)
    assert api.post(f"/api/emails/{mail_doc['id']}/contact/{contact['id']}/send").json["success"]
    received = queues.receive("feedback")
    assert received, "the bounce did not reach the feedback queue"
    assert feedback.unwrap(received[0][1])["bounce"]["bounceType"] == "Permanent"
    assert feedback.handle(received[0][1]) == "unmatched"


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
