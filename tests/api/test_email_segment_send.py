"""Issue 8: segment emails, the first batch sent in the request (Mautic's `sentCount`, issue 17), the
rest fanned out over the `sends` queue: who receives them (segments, do-not-contact, limit), each
contact at most once per email (also when a worker is retried or crashes), failures recorded and
retried, progress on the email, and the send rate held."""

import time
from collections import Counter

import pytest
from botocore.exceptions import ClientError

from chalicelib import aws
from chalicelib.domain.messaging import email_stats, recipients, sending
from chalicelib.ports import queues
from chalicelib.store import port as store
from tests.api.test_email_send import make_email, sent_messages

PRAGUE = [
    {
        "glue": "and",
        "field": "city",
        "object": "lead",
        "type": "text",
        "operator": "=",
        "properties": {"filter": "Prague"},
    }
]


def _audience(api, drain, count, city="Prague"):
    """A segment of `count` contacts in Prague (and one contact elsewhere); the segment and contact ids."""
    segment = api.post("/api/segments/new", {"name": "Prague", "filters": PRAGUE}).json["list"]
    ids = [
        api.post("/api/contacts/new", {"email": f"c{n}@example.com", "firstname": f"C{n}", "city": city}).json[
            "contact"
        ]["id"]
        for n in range(count)
    ]
    api.post("/api/contacts/new", {"email": "far@example.com", "city": "Brno"})
    drain()
    return segment, ids


def _recipients():
    return sorted(m["To"].addresses[0].addr_spec for m in sent_messages())


def _shown(api, mail_doc):
    return api.get(f"/api/emails/{mail_doc['id']}").json["email"]


@pytest.fixture
def fan_out_only(configure):
    """No contact is sent to in the request: every send goes through the worker."""
    configure(EMAIL_SEND_INLINE=0)


def test_segment_send_reaches_members_once_and_skips_do_not_contact(api, drain):
    segment, ids = _audience(api, drain, 4)
    api.post(f"/api/contacts/{ids[1]}/dnc/email/add", {"reason": 1})
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    response = api.post(f"/api/emails/{mail_doc['id']}/send")
    assert response.status_code == 200
    assert response.json == {"success": 1, "sentCount": 3, "failedRecipients": 0}  # Mautic's keys, no more
    assert _shown(api, mail_doc)["sendProgress"]["status"] == "queued"
    assert _recipients() == ["c0@example.com", "c2@example.com", "c3@example.com"]
    drain()
    assert _recipients() == ["c0@example.com", "c2@example.com", "c3@example.com"]
    shown = _shown(api, mail_doc)
    assert shown["sentCount"] == 3 and shown["pendingCount"] == 0
    progress = shown["sendProgress"]
    assert (progress["status"], progress["queued"], progress["sent"], progress["skipped"], progress["failed"]) == (
        "done",
        4,
        3,
        1,
        0,
    )
    assert "List-Unsubscribe" in sent_messages()[0]
    again = api.post(f"/api/emails/{mail_doc['id']}/send")
    assert (again.json["sentCount"], again.json["failedRecipients"]) == (0, 0)
    drain()
    assert len(sent_messages()) == 3 and _shown(api, mail_doc)["sentCount"] == 3


def test_limit_and_lists_choose_the_recipients_progress_shows_pending(api, drain, configure):
    configure(EMAIL_SEND_BATCH=1)
    configure(EMAIL_SEND_INLINE=1)
    segment, ids = _audience(api, drain, 5)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    response = api.post(f"/api/emails/{mail_doc['id']}/send", {"lists": [segment["id"]], "limit": 3})
    assert response.json["sentCount"] == 1 and _recipients() == ["c0@example.com"]
    handled = []
    while True:
        messages = queues.receive("sends")
        if not messages:
            break
        for receipt, body, _ in messages:
            handled.append(body["type"])
            _run(body)
            queues.delete("sends", receipt)
            if handled == ["plan", "batch"]:
                assert _shown(api, mail_doc)["pendingCount"] == 1
    assert handled == ["plan", "batch", "batch"]
    assert len(sent_messages()) == 3 and _shown(api, mail_doc)["pendingCount"] == 0
    api.post(f"/api/emails/{mail_doc['id']}/send")
    drain()
    assert _recipients() == [f"c{n}@example.com" for n in range(5)]


def test_bad_requests(api, drain):
    segment, _ = _audience(api, drain, 1)
    no_lists = make_email(api, emailType="list")
    bad = api.post(f"/api/emails/{no_lists['id']}/send")
    assert bad.status_code == 400 and "lists" in bad.json["errors"][0]["details"]
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    bad = api.post(f"/api/emails/{mail_doc['id']}/send", {"lists": [segment["id"] + 50]})
    assert bad.status_code == 400 and "lists" in bad.json["errors"][0]["details"]
    bad = api.post(f"/api/emails/{mail_doc['id']}/send", {"limit": "many"})
    assert bad.status_code == 400 and "limit" in bad.json["errors"][0]["details"]
    bad = api.post(f"/api/emails/{mail_doc['id']}/send", {"batch": -1})
    assert bad.status_code == 400 and "batch" in bad.json["errors"][0]["details"]
    assert api.post("/api/emails/999/send").status_code == 404
    hidden = make_email(api, emailType="list", lists=[segment["id"]], isPublished=False)
    assert api.post(f"/api/emails/{hidden['id']}/send").status_code == 404


def _batch_message(api, mail_doc):
    """Queue a send and run its plan; the batch message bodies (as SQS would deliver them)."""
    api.post(f"/api/emails/{mail_doc['id']}/send")
    ((receipt, plan, _),) = queues.receive("sends")
    from chalicelib.workers import sends

    sends.handle(plan)
    queues.delete("sends", receipt)
    return [body for _, body, _ in queues.receive("sends")]


def _run(body):
    from chalicelib.workers import sends

    sends.handle(dict(body))


def test_a_redelivered_batch_sends_nothing_twice(api, drain, fan_out_only):
    segment, _ = _audience(api, drain, 3)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    (batch,) = _batch_message(api, mail_doc)
    _run(batch)
    _run(batch)
    assert len(sent_messages()) == 3
    assert _shown(api, mail_doc)["sendProgress"]["sent"] == 3 and _shown(api, mail_doc)["sentCount"] == 3


def test_a_worker_crash_after_the_send_never_resends(configure, api, drain, monkeypatch, fan_out_only):
    segment, ids = _audience(api, drain, 2)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    (batch,) = _batch_message(api, mail_doc)
    real = sending.hand_over
    crashes = iter([True])

    def crash_once(*args, **kwargs):
        message_id = real(*args, **kwargs)
        if next(crashes, False):
            raise RuntimeError("worker died")  # after SES took the message, before anything was stored
        return message_id

    configure(EMAIL_SEND_CONCURRENCY=1)  # one message in flight: the crash stops the next
    monkeypatch.setattr(sending, "hand_over", crash_once)
    with pytest.raises(RuntimeError):
        _run(batch)
    assert len(sent_messages()) == 1
    with pytest.raises(recipients.SendLater):
        _run(batch)  # the record is fresh: maybe another worker is still sending
    monkeypatch.setattr(recipients, "STUCK_SECONDS", 0)
    _run(batch)
    assert _recipients() == ["c0@example.com", "c1@example.com"]
    record = store.get(recipients.record_kind(mail_doc["id"]), ids[0])
    assert record["status"] == "unknown"
    progress = _shown(api, mail_doc)["sendProgress"]
    assert (progress["status"], progress["sent"], progress["failed"]) == ("done", 1, 1)


def test_a_crash_after_the_send_record_counts_the_contact_as_sent(api, drain, monkeypatch, fan_out_only):
    segment, _ = _audience(api, drain, 1)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    (batch,) = _batch_message(api, mail_doc)
    real = store.put_many

    def crash_before_settling(items):
        real([(kind, doc) for kind, doc in items if not kind.startswith("emailsend#")])  # the send records
        raise RuntimeError("worker died")

    monkeypatch.setattr(store, "put_many", crash_before_settling)
    with pytest.raises(RuntimeError):
        _run(batch)
    monkeypatch.setattr(store, "put_many", real)
    _run(batch)
    assert len(sent_messages()) == 1 and _shown(api, mail_doc)["sendProgress"]["sent"] == 1


def _ses_answering(monkeypatch, *codes):
    """SES answers the next sends with these error codes in turn (None: sent), then sends."""
    ses = aws.client("ses")
    real, answers = ses.send_raw_email, iter(codes)

    def flaky(**kwargs):
        code = next(answers, None)
        if code:
            raise ClientError({"Error": {"Code": code, "Message": f"{code} by SES"}}, "SendRawEmail")
        return real(**kwargs)

    monkeypatch.setattr(ses, "send_raw_email", flaky)


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_ses_outages_are_recorded_and_retried_rejections_are_failures(configure, api, drain, monkeypatch, fan_out_only):
    segment, ids = _audience(api, drain, 2)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    (batch,) = _batch_message(api, mail_doc)
    configure(EMAIL_SEND_CONCURRENCY=1)  # SES's answers in the contacts' order
    _ses_answering(monkeypatch, "Throttling", None, "MessageRejected")
    with pytest.raises(recipients.SendLater):
        _run(batch)
    record = store.get(recipients.record_kind(mail_doc["id"]), ids[0])
    assert record["status"] == "retry" and record["reason"] == "Throttling by SES"
    _run(batch)
    assert _recipients() == ["c0@example.com"]
    progress = _shown(api, mail_doc)["sendProgress"]
    assert (progress["status"], progress["sent"], progress["failed"]) == ("done", 1, 1)
    failed = [e for e in api.get(f"/api/contacts/{ids[1]}/activity").json["events"] if e["event"] == "email.failed"]
    assert failed[0]["details"]["reason"] == "MessageRejected by SES"


def test_the_send_rate_holds_its_setting(api, drain, configure):
    configure(EMAIL_SEND_RATE=4)
    segment, _ = _audience(api, drain, 9)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    started = time.monotonic()
    api.post(f"/api/emails/{mail_doc['id']}/send")
    drain()
    elapsed = time.monotonic() - started
    assert len(sent_messages()) == 9 and elapsed > 1.0
    stats = store.iterate(email_stats.kind("email", mail_doc["id"]))
    per_second = Counter(stat["dateSent"] for stat in stats)
    assert max(per_second.values()) <= 4


def test_a_point_trigger_sends_its_email_once(api, drain):
    from tests.api.test_email_send import make_contact

    mail_doc = make_email(api)
    contact = make_contact(api)
    api.post(
        "/api/points/triggers/new",
        {
            "name": "Hot",
            "points": 10,
            "events": [{"type": "email.send", "name": "Send welcome", "properties": {"email": mail_doc["id"]}}],
        },
    )
    api.post(f"/api/contacts/{contact['id']}/points/plus/15")
    drain()
    api.post(f"/api/contacts/{contact['id']}/points/plus/15")
    drain()
    assert _recipients() == ["ann@example.com"]


def test_the_request_sends_the_first_batch_and_the_fan_out_the_rest_each_once(api, drain, configure):
    """Mautic's `batch` sets how many go out in the request; `sentCount` counts them; the workers
    send to the others, never again to those."""
    configure(EMAIL_SEND_BATCH=2)
    configure(EMAIL_SEND_INLINE=2)
    segment, _ = _audience(api, drain, 5)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    response = api.post(f"/api/emails/{mail_doc['id']}/send", {"batch": 3})
    assert (response.json["sentCount"], response.json["failedRecipients"]) == (2, 0)  # at most EMAIL_SEND_INLINE
    configure(EMAIL_SEND_INLINE=100)
    drain()
    assert _recipients() == [f"c{n}@example.com" for n in range(5)]
    progress = _shown(api, mail_doc)["sendProgress"]
    assert (progress["status"], progress["queued"], progress["sent"], progress["batches"]) == ("done", 5, 5, 2)
    other = make_email(api, emailType="list", lists=[segment["id"]])
    response = api.post(f"/api/emails/{other['id']}/send", {"batch": 3, "limit": 4})
    assert response.json["sentCount"] == 3 and len(sent_messages()) == 8
    drain()
    assert len(sent_messages()) == 9 and _shown(api, other)["sendProgress"]["queued"] == 4


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_rejections_in_the_request_are_failed_recipients_outages_go_to_the_fan_out(configure, api, drain, monkeypatch):
    segment, ids = _audience(api, drain, 3)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    configure(EMAIL_SEND_CONCURRENCY=1)  # SES's answers in the contacts' order
    _ses_answering(monkeypatch, "MessageRejected", None, "Throttling")
    response = api.post(f"/api/emails/{mail_doc['id']}/send")
    assert (response.json["success"], response.json["sentCount"], response.json["failedRecipients"]) == (1, 1, 1)
    assert _recipients() == ["c1@example.com"]
    drain()
    assert _recipients() == ["c1@example.com", "c2@example.com"]
    progress = _shown(api, mail_doc)["sendProgress"]
    assert (progress["status"], progress["queued"], progress["sent"], progress["failed"]) == ("done", 3, 2, 1)
