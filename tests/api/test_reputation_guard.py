"""Issue 28, part 4 over moto: SES's hard bounces (through the topic and the feedback worker) move
the service's own bounce rate; at the threshold, and not before, segment sends are paused (409 with
the reason; queued batches skip their contacts) while single-contact sends go on; an administrator
resumes with the CLI's `email-guard resume`. A send SES refuses for its account-level suppression
list makes the contact do-not-contact, bounced."""

import argparse
import json

import pytest

from chalicelib import aws, cli
from chalicelib.channels import mail
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.messaging import email_stats, reputation
from chalicelib.store import port as store
from tests.api.test_email_segment_send import PRAGUE
from tests.api.test_email_send import make_email, sent_messages
from tests.api.test_ses_feedback import _topic


@pytest.fixture
def guard(configure):
    """Judged from 4 sends, paused at 50 % bounces."""
    configure(EMAIL_GUARD_MIN_SENDS=4)
    configure(EMAIL_GUARD_BOUNCE_RATE=50.0)
    reputation.forget()
    yield
    reputation.forget()


def _stat(api, contact_id, email_id):
    events = api.get(f"/api/contacts/{contact_id}/activity?filters[includeEvents][]=email.sent").json["events"]
    [stat_id] = [e["details"]["statId"] for e in events if e["details"]["emailId"] == email_id]
    return email_stats.get("email", email_id, stat_id)


def _bounce(api, contact_id, email_id, n):
    stat = _stat(api, contact_id, email_id)
    notification = {
        "notificationType": "Bounce",
        "mail": {"messageId": stat["messageId"]},
        "bounce": {"bounceType": "Permanent", "bounceSubType": "General", "feedbackId": f"fb-guard-{n}"},
    }
    aws.client("sns").publish(TopicArn=_topic(), Message=json.dumps(notification))


def _segment_of(api, n):
    segment = api.post("/api/segments/new", {"name": "Prague", "filters": PRAGUE}).json["list"]
    ids = [
        api.post("/api/contacts/new", {"email": f"g{i}@example.com", "city": "Prague"}).json["contact"]["id"]
        for i in range(n)
    ]
    return segment, ids


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_the_guard_pauses_segment_sends_at_the_threshold_and_an_administrator_resumes(api, drain, guard):
    segment, ids = _segment_of(api, 4)
    drain()
    first = make_email(api, emailType="list", lists=[segment["id"]])
    api.post(f"/api/emails/{first['id']}/send")
    drain()
    _bounce(api, ids[0], first["id"], 0)
    drain()
    assert reputation.paused() is None  # 1 of 4: 25 %
    second = make_email(api, emailType="list", lists=[segment["id"]])
    assert api.post(f"/api/emails/{second['id']}/send").status_code == 200  # not before the threshold
    drain()
    _bounce(api, ids[1], first["id"], 1)  # 7 sends (the first bounce's contact was skipped)
    _bounce(api, ids[2], first["id"], 2)  # 3 of 7: 42.9 %
    drain()
    assert reputation.paused() is None
    _bounce(api, ids[3], first["id"], 3)  # 4 of 7: 57.1 %, past 50 %
    drain()
    state = reputation.paused()
    assert state is not None and "bounce rate 57.14 % (4 of 7 sends" in state["reason"]
    third = make_email(api, emailType="list", lists=[segment["id"]])
    refused = api.post(f"/api/emails/{third['id']}/send")
    assert refused.status_code == 409 and "reputation guard" in refused.json["errors"][0]["message"]
    single = make_email(api)  # transactional: one contact through the API
    other = api.post("/api/contacts/new", {"email": "still@example.com"}).json["contact"]
    assert api.post(f"/api/emails/{single['id']}/contact/{other['id']}/send").json["success"] is True
    resumed = cli._email_guard(argparse.Namespace(action="resume"), Context())
    assert resumed["paused"] is False and resumed["lastReason"] == state["reason"]
    shown = cli._email_guard(argparse.Namespace(action="show"), Context())
    assert shown["current"]["bounce"] == 0
    assert api.post(f"/api/emails/{third['id']}/send").status_code == 200


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_a_send_refused_for_the_suppression_list_makes_the_contact_dnc_bounced(api, drain, monkeypatch):
    def refuse(message, raw):
        raise mail.Rejected("Address is on the account-level suppression list: gone@example.com")

    monkeypatch.setattr(mail, "_send_raw", refuse)
    contact = api.post("/api/contacts/new", {"email": "gone@example.com"}).json["contact"]
    email = make_email(api)
    answer = api.post(f"/api/emails/{email['id']}/contact/{contact['id']}/send").json
    assert answer["success"] is False, answer
    [entry] = api.get(f"/api/contacts/{contact['id']}").json["contact"]["doNotContact"]
    assert (entry["channel"], entry["reason"]) == ("email", 2) and "Suppressed by SES" in entry["comments"]


def test_batches_queued_before_a_pause_skip_their_contacts_and_a_run_after_the_resume_reaches_them(
    api, drain, guard, configure
):
    configure(EMAIL_SEND_INLINE=0)  # every contact goes through the queued batches
    segment, ids = _segment_of(api, 3)
    drain()
    email = make_email(api, emailType="list", lists=[segment["id"]])
    before = len(sent_messages())
    assert api.post(f"/api/emails/{email['id']}/send").status_code == 200
    # the guard pauses between the request and its batches:
    store.put(reputation.KIND, {"id": 1, "paused": True, "epoch": 0, "reason": "test pause"})
    drain()
    assert len(sent_messages()) == before
    progress = api.get(f"/api/emails/{email['id']}").json["email"]["sendProgress"]
    assert (progress["skipped"], progress["sent"]) == (3, 0), progress
    reputation.resume("cli:test")
    assert api.post(f"/api/emails/{email['id']}/send").status_code == 200
    drain()
    assert len(sent_messages()) == before + 3
