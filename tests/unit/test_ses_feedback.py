"""Issue 28, the worker rules: what SES reports about a sent email (domain/messaging/feedback.py),
over the in-memory store: bounces and complaints become do-not-contact, transient bounces are
counted to a threshold, deliveries are counted, and a repeated notification changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.messaging import email_stats, feedback
from chalicelib.domain.messaging.declarations import EMAIL
from chalicelib.store import port as store
from devstack.memory import MemoryStore


@pytest.fixture
def ctx(seeded_store: MemoryStore) -> Context:
    """An administrator's context over the seeded store."""
    return Context(user=next(store.iterate("user")))


def sent(
    ctx: Context, address: str = "ann@example.com", contact: dict[str, Any] | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A contact (new unless given) and the send record of a new email to it (as `sending.record_sent`
    stores it)."""
    if contact is None:
        contact, _ = service.create(CONTACT, {"email": address}, Context(user=ctx.user))
    email, _ = service.create(EMAIL, {"name": "News", "subject": "Hi", "emailType": "list"}, Context(user=ctx.user))
    stat_id, tracking_hash = email_stats.allocate("email", email["id"])
    stat = {
        "id": stat_id,
        "email": {"id": email["id"]},
        "lead": {"id": contact["id"]},
        "emailAddress": address,
        "isFailed": False,
        "trackingHash": tracking_hash,
        "messageId": f"ses-{stat_id}",
        "subject": "Hi",
    }
    email_stats.create("email", email["id"], stat)  # type: ignore[type-var]
    email_stats.remember(stat["messageId"], tracking_hash)
    return contact, stat


def notification(kind: str, stat: dict[str, Any], headers: bool = True, **part: Any) -> dict[str, Any]:
    """An SNS envelope around an SES notification for the send record."""
    mail = {
        "messageId": stat["messageId"],
        "destination": [stat["emailAddress"]],
        "headers": [{"name": "X-Mautic-Tracking", "value": stat["trackingHash"]}] if headers else [],
    }
    body = {"notificationType": kind, "mail": mail, kind.lower(): part}
    return {"Type": "Notification", "Message": json.dumps(body)}


def permanent(stat: dict[str, Any], feedback_id: str = "fb-1") -> dict[str, Any]:
    return notification(
        "Bounce",
        stat,
        bounceType="Permanent",
        bounceSubType="General",
        feedbackId=feedback_id,
        bouncedRecipients=[{"emailAddress": stat["emailAddress"], "diagnosticCode": "smtp; 550 5.1.1 user unknown"}],
    )


def dnc(contact_id: int) -> list[dict[str, Any]]:
    return (store.get(CONTACT.kind, contact_id) or {})["doNotContact"]


def test_permanent_bounce_makes_the_contact_dnc_bounced_with_the_diagnostic(ctx: Context) -> None:
    contact, stat = sent(ctx)
    assert feedback.handle(permanent(stat)) == "bounced"
    [entry] = dnc(contact["id"])
    assert (entry["channel"], entry["reason"], entry["channelId"]) == ("email", 2, stat["email"]["id"])
    assert "550 5.1.1 user unknown" in entry["comments"]
    record = email_stats.find(stat["trackingHash"])
    assert record and record["isFailed"] and record.get("bounced") == "Permanent"
    assert feedback.counts(stat["email"]["id"])["bounce"] == 1
    events = [e["event"] for e in store.iterate(f"timeline#{contact['id']}")]
    assert "lead.donotcontact" in events


def test_a_notification_without_the_header_is_found_by_the_ses_message_id(ctx: Context) -> None:
    contact, stat = sent(ctx)
    body = permanent(stat)
    message = json.loads(body["Message"])
    message["mail"]["headers"] = []
    assert feedback.handle({"Type": "Notification", "Message": json.dumps(message)}) == "bounced"
    assert dnc(contact["id"])[0]["reason"] == 2
    message["mail"]["messageId"] = "unknown"
    assert feedback.handle(message) == "unmatched"


def test_a_repeated_notification_changes_nothing(ctx: Context) -> None:
    contact, stat = sent(ctx)
    feedback.handle(permanent(stat))
    before = (store.get(CONTACT.kind, contact["id"]) or {}).get("_rev")
    assert feedback.handle(permanent(stat)) == "repeated"
    assert (store.get(CONTACT.kind, contact["id"]) or {}).get("_rev") == before
    assert feedback.counts(stat["email"]["id"])["bounce"] == 1


def test_a_complaint_unsubscribes(ctx: Context) -> None:
    contact, stat = sent(ctx)
    body = notification("Complaint", stat, feedbackId="c-1", complaintFeedbackType="abuse")
    assert feedback.handle(body) == "complained"
    [entry] = dnc(contact["id"])
    assert entry["reason"] == 1 and "abuse" in entry["comments"]
    assert feedback.counts(stat["email"]["id"])["complaint"] == 1


def test_transient_bounces_reach_the_threshold(ctx: Context, configure: pytest.MonkeyPatch) -> None:
    """Transient bounces of three sends to one contact make it do-not-contact; a send counts one."""
    configure(EMAIL_SOFT_BOUNCE_LIMIT=3)
    contact, first = sent(ctx)
    stats = [first] + [sent(ctx, contact=contact)[1] for _ in range(2)]

    def soft(stat: dict[str, Any], n: int) -> str:
        return feedback.handle(notification("Bounce", stat, bounceType="Transient", feedbackId=f"t-{n}"))

    assert [soft(stats[0], 1), soft(stats[1], 2)] == ["softbounced", "softbounced"]
    assert dnc(contact["id"]) == []
    assert soft(stats[1], 2) == "repeated"  # SNS again: not counted twice
    assert soft(stats[1], 9) == "repeated"  # another feedback id for the same send: one bounce per send
    assert soft(stats[2], 3) == "bounced"
    [entry] = dnc(contact["id"])
    assert entry["reason"] == 2 and entry["comments"].startswith("3 transient bounces")


def test_one_complaint_and_one_bounce_per_send_whatever_the_feedback_ids(ctx: Context) -> None:
    """Issue 39: the reputation guard cannot be driven by repeats of one send."""
    contact, stat = sent(ctx)
    complaints = [notification("Complaint", stat, feedbackId=f"c-{n}") for n in range(3)]
    assert [feedback.handle(body) for body in complaints] == ["complained", "repeated", "repeated"]
    assert [feedback.handle(permanent(stat, f"b-{n}")) for n in range(3)] == ["bounced", "repeated", "repeated"]
    assert feedback.counts(stat["email"]["id"]) == {"bounce": 1, "complaint": 1, "delivery": 0}


def test_a_permanent_bounce_after_a_transient_one_bounces_without_a_second_count(ctx: Context) -> None:
    contact, stat = sent(ctx)
    assert feedback.handle(notification("Bounce", stat, bounceType="Transient", feedbackId="t")) == "softbounced"
    assert feedback.handle(permanent(stat, "p")) == "bounced"
    assert feedback.handle(permanent(stat, "p2")) == "repeated"
    assert dnc(contact["id"])[0]["reason"] == 2
    assert feedback.counts(stat["email"]["id"])["bounce"] == 1


@pytest.mark.parametrize(
    "body",
    [
        {"Type": "Notification", "Message": "not json"},
        {"Type": "Notification", "Message": "[" * 100_000 + "]" * 100_000},
        {"Type": "Notification", "Message": json.dumps({"mail": json.loads("[" * 40 + "]" * 40)})},
        {"Type": "Notification", "Message": "[1]"},
        {"Type": "Notification", "Message": None},
    ],
)
def test_a_message_that_is_no_notification_is_poison(body: dict[str, Any]) -> None:
    with pytest.raises(feedback.Poison):
        feedback.handle(body)


def test_feedback_naming_another_account_is_dropped(ctx: Context, configure: pytest.MonkeyPatch) -> None:
    configure(STACK_ACCOUNT_ID="111111111111")
    contact, stat = sent(ctx)
    body = permanent(stat)
    assert feedback.handle(dict(body, TopicArn="arn:aws:sns:us-east-1:999999999999:t")) == "foreign"
    message = json.loads(body["Message"])
    message["mail"]["sendingAccountId"] = "999999999999"
    assert feedback.handle({"Type": "Notification", "Message": json.dumps(message)}) == "foreign"
    assert dnc(contact["id"]) == []
    message["mail"]["sendingAccountId"] = "111111111111"
    own = {"Type": "Notification", "TopicArn": "arn:aws:sns:us-east-1:111111111111:t", "Message": json.dumps(message)}
    assert feedback.handle(own) == "bounced"


def test_deliveries_are_counted_once(ctx: Context) -> None:
    contact, stat = sent(ctx)
    body = notification("Delivery", stat, smtpResponse="250 ok")
    assert [feedback.handle(body), feedback.handle(body)] == ["delivered", "repeated"]
    assert feedback.counts(stat["email"]["id"])["delivery"] == 1
    assert dnc(contact["id"]) == []


def test_a_bounce_after_an_unsubscribe_keeps_the_first_reason(ctx: Context) -> None:
    contact, stat = sent(ctx)
    feedback.handle(notification("Complaint", stat, feedbackId="c-1"))
    feedback.handle(permanent(stat))
    assert [e["reason"] for e in dnc(contact["id"])] == [1]
