"""Issue 32, erasure at the domain level over the in-memory store: the job a contact's delete writes,
each of its steps, a resume after a failure that repeats no step, the hashed suppression of an
address, and a merge's loser, which is not erased."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.domain.contacts import contact_actions, erasure
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import registry, service, subscribers, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.messaging import email_stats
from chalicelib.domain.web import submissions
from chalicelib.store import port as store
from devstack.memory import MemoryStore

EMAIL = "Erin@Example.com"


@pytest.fixture
def ctx(seeded_store: MemoryStore) -> Context:
    admin = next(store.iterate("user"))
    return Context(user=admin, base_url="https://m.example")


def fresh(ctx: Context) -> Context:
    return Context(user=ctx.user, base_url=ctx.base_url)


def person(ctx: Context, **values: Any) -> dict[str, Any]:
    doc, _ = service.create(CONTACT, dict({"email": EMAIL, "firstname": "Erin"}, **values), fresh(ctx))
    return doc


def with_history(ctx: Context) -> dict[str, Any]:
    """A contact with a note, a send record, a submission, do-not-contact and their events."""
    contact = person(ctx, doNotContact=[{"channel": "email", "reason": 1}])
    cid = contact["id"]
    service.create(registry.resource("note"), {"text": "Erin called", "lead": cid}, fresh(ctx))
    stat = {"id": 5, "email": {"id": 9}, "lead": {"id": cid}, "emailAddress": EMAIL, "ipAddress": "192.0.2.1"}
    email_stats.create("email", 9, dict(stat, trackingHash="00000009000000000511", openCount=2, messageId="m-1"))
    email_stats.remember("m-1", "00000009000000000511")
    sms = {"id": 4, "sms": {"id": 2}, "lead": {"id": cid}, "phone": "+420777000111", "messageId": "s-1"}
    email_stats.create("sms", 2, dict(sms, dateSent="2026-01-01T00:00:00+00:00"))
    email_stats.create("sms", 2, dict(sms, id=6, lead={"id": 999}, phone="+420777999999"))
    store.put(
        submissions.kind(3), {"id": 7, "formId": 3, "contactId": cid, "ipAddress": "192.0.2.1", "results": {"e": EMAIL}}
    )
    for event_id, (kind, details) in enumerate(
        [
            ("email.sent", {"emailId": 9, "statId": 5}),
            ("form.submitted", {"form": {"id": 3}, "submission": {"id": 7}}),
            ("sms.sent", {"smsId": 2, "content": "Hi"}),
        ],
        start=1000,
    ):
        store.put(
            timeline.kind(cid), timeline.in_feed({"id": event_id, "event": kind, "details": details, "contactId": cid})
        )
    return service.load(CONTACT, cid)


def test_a_delete_writes_the_job_and_the_suppression_and_queues_the_job(ctx, queued):
    contact = with_history(ctx)
    service.delete(CONTACT, contact["id"], fresh(ctx))
    job = store.get(erasure.KIND, contact["id"])
    assert job["contact"]["values"]["email"] == EMAIL and job["done"] == [] and job["baseUrl"] == "https://m.example"
    assert "_feed" not in job and "_feed" not in job["contact"]  # in no owner's feed: not listed as a contact
    assert queued["erasure"] == [{"type": "erase", "id": contact["id"]}]
    (suppression,) = store.iterate(erasure.SUPPRESSION)
    assert suppression["hash"] == erasure.address_hash("erin@example.com") and suppression["channels"] == {"email": 1}
    assert EMAIL.lower() not in str(suppression).lower()


def test_each_step_removes_or_anonymises_what_identifies_the_person(ctx):
    contact = with_history(ctx)
    cid = contact["id"]
    service.delete(CONTACT, cid, fresh(ctx))
    erasure.run(cid)
    assert list(store.iterate(timeline.kind(cid))) == [] and list(store.feed("timeline#1")) == []
    assert list(store.iterate(f"notes#{cid}")) == [] and list(store.iterate("note")) == []
    stat = email_stats.get("email", 9, 5)
    assert stat["openCount"] == 2 and not {"lead", "emailAddress", "ipAddress", "trackingHash", "messageId"} & set(stat)
    assert email_stats.by_message_id("m-1") is None
    texts = {s["id"]: s for s in store.iterate(email_stats.kind("sms", 2))}
    assert set(texts[4]) - {"_rev"} == {"id", "sms", "dateSent"} and texts[4]["dateSent"]
    assert texts[6]["phone"] == "+420777999999"  # another contact's record is left alone
    assert store.get(submissions.kind(3), 7)["results"] == {} and store.get(submissions.kind(3), 7)["contactId"] is None
    assert store.get(erasure.KIND, cid) is None
    erasure.run(cid)  # a second delivery of the message: nothing left to do


def test_a_resumed_job_finishes_and_repeats_no_step(ctx, monkeypatch):
    contact = with_history(ctx)
    cid = contact["id"]
    service.delete(CONTACT, cid, fresh(ctx))
    calls: dict[str, int] = {}
    failing = {"notes"}

    def counted(name, step):
        def run(job):
            calls[name] = calls.get(name, 0) + 1
            if name in failing:
                raise RuntimeError("AWS went away")
            return step(job)

        return run

    steps = [(name, counted(name, step)) for name, step in subscribers.erase_steps()]
    monkeypatch.setattr(subscribers, "erase_steps", lambda: steps)
    with pytest.raises(RuntimeError):
        erasure.run(cid)
    assert store.get(erasure.KIND, cid)["done"] == [
        "sends",
        "texts",
        "deferred-sends",
        "segment-sends",
        "outbox",
        "segment-joins",
        "uploads",
        "submissions",
    ]
    assert list(store.iterate(timeline.kind(cid)))  # not erased yet: the steps before read it
    failing.clear()
    erasure.run(cid)
    erasure.run(cid)
    assert calls == {
        "sends": 1,
        "texts": 1,
        "deferred-sends": 1,
        "segment-sends": 1,
        "outbox": 1,
        "segment-joins": 1,
        "uploads": 1,
        "submissions": 1,
        "notes": 2,
        "timeline": 1,
        "announce": 1,
    }
    assert store.get(erasure.KIND, cid) is None and list(store.iterate(timeline.kind(cid))) == []
    assert email_stats.get("email", 9, 5)["openCount"] == 2


def test_a_later_contact_with_a_suppressed_address_is_not_contactable(ctx):
    contact = with_history(ctx)
    service.delete(CONTACT, contact["id"], fresh(ctx))
    again = person(ctx, email="ERIN@example.com")
    assert [(d["channel"], d["reason"]) for d in again["doNotContact"]] == [("email", 1)]
    assert again["doNotContact"][0]["id"] and again["doNotContact"][0]["comments"] == erasure.SUPPRESSED
    other = person(ctx, email="someone@example.com")
    assert other["doNotContact"] == []
    service.delete(CONTACT, again["id"], fresh(ctx))
    edited = service.edit(CONTACT, other["id"], {"email": "erin@example.COM"}, fresh(ctx), replace=False)[0]
    assert [d["channel"] for d in edited["doNotContact"]] == ["email"]


def test_a_contact_without_do_not_contact_leaves_no_suppression(ctx):
    plain = person(ctx, email="plain@example.com")
    service.delete(CONTACT, plain["id"], fresh(ctx))
    assert list(store.iterate(erasure.SUPPRESSION)) == []
    assert store.get(erasure.KIND, plain["id"]) is not None


def test_suppressions_of_one_address_add_up_channels(ctx):
    first = person(ctx)
    contact_actions.add_dnc(CONTACT, first["id"], "sms", {"reason": 3}, fresh(ctx))
    service.delete(CONTACT, first["id"], fresh(ctx))
    second = person(ctx)
    contact_actions.add_dnc(CONTACT, second["id"], "email", {"reason": 2}, fresh(ctx))
    service.delete(CONTACT, second["id"], fresh(ctx))
    (suppression,) = store.iterate(erasure.SUPPRESSION)
    assert suppression["channels"] == {"sms": 3, "email": 2}


def test_a_merge_loser_is_not_erased(ctx):
    person(ctx)  # the older one, which survives
    newer = person(ctx, email="new@example.com")
    service.edit(CONTACT, newer["id"], {"email": EMAIL}, fresh(ctx), replace=False)
    assert store.get(CONTACT.kind, newer["id"]) is None  # merged into the older one
    assert list(store.iterate(erasure.KIND)) == []


def test_a_job_whose_message_was_lost_is_queued_again_by_the_minute_job(ctx, queued, monkeypatch):
    from datetime import timedelta

    from chalicelib.domain.kernel import clock
    from chalicelib.ports import queues

    contact = person(ctx)
    sender = queues.send

    def unavailable(*args, **kwargs):
        raise ConnectionError("SQS is unavailable")

    monkeypatch.setattr(queues, "send", unavailable)
    service.delete(CONTACT, contact["id"], fresh(ctx))  # answered: the job item is stored
    monkeypatch.setattr(queues, "send", sender)
    assert store.get(erasure.KIND, contact["id"]) is not None and not queued.get("erasure")
    erasure.resend_lost()
    assert not queued.get("erasure")  # not yet: it may still be on its way
    later = clock.now() + timedelta(minutes=6)
    monkeypatch.setattr(clock, "now", lambda: later)
    erasure.resend_lost()
    assert queued["erasure"] == [{"type": "erase", "id": contact["id"]}]
