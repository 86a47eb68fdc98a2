"""Issue 30, part 4 (sends and workers that finish): under injected AWS faults a segment send answers
a success or a 503 with Retry-After, its inline part leaves the contacts whose send met a fault to
the workers, a worker step that fails is retried by SQS and, past the dead-letter queue, by
`queues redrive`; once the faults stop every member got the email exactly once, and every
acknowledged contact create reached a webhook receiver (at least once, repeats under one webhook-id),
and an automation's tag and points actions were applied once to every member."""

from collections import Counter

import pytest
from botocore.exceptions import ClientError

from chalicelib import aws, cli, config
from chalicelib.store import queues
from chalicelib.store.schema import QUEUES
from devstack import faults
from tests.api.test_email_segment_send import _audience
from tests.api.test_email_send import make_email, sent_messages

MEMBERS = 20


@pytest.fixture
def redelivered_at_once():
    """Every queue makes a failed message visible again at once (VisibilityTimeout 0), so a drain
    under faults retries it until its fifth receive moves it to the dead-letter queue."""
    sqs = aws.client("sqs")
    for queue in QUEUES:
        sqs.set_queue_attributes(QueueUrl=queues.url(queue), Attributes={"VisibilityTimeout": "0"})
    yield
    faults.stop()
    for queue in QUEUES:
        sqs.set_queue_attributes(QueueUrl=queues.url(queue), Attributes={"VisibilityTimeout": "30"})


def _answered(response):
    """True for a success; a failure must be a 503 with Retry-After and the JSON envelope."""
    if response.status_code == 503:
        assert response.headers["Retry-After"] and response.json["errors"][0]["code"] == 503
        return False
    assert response.status_code < 300, response.body
    return True


def _drain_under_faults(drain):
    """Run the workers while faults are on; a fault in the poller's own SQS call ends a round."""
    for _ in range(50):
        try:
            drain(raise_errors=False)
            return
        except ClientError:
            continue


def _recipients():
    return Counter(m["To"].addresses[0].addr_spec for m in sent_messages())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_segment_send_under_faults_reaches_every_member_exactly_once(api, drain, redelivered_at_once, seed):
    segment, _ids = _audience(api, drain, MEMBERS)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    faults.install(0.05, seed=seed)
    for _ in range(10):
        if _answered(api.post(f"/api/emails/{mail_doc['id']}/send")):
            break
    else:
        pytest.fail("the segment send never succeeded under 5 % faults")
    _drain_under_faults(drain)
    faults.stop()
    assert cli.main(["queues", "redrive"], config.active()) == 0
    drain()
    assert _recipients() == Counter({f"c{n}@example.com": 1 for n in range(MEMBERS)})


def test_segment_send_inline_part_leaves_a_contact_that_met_a_fault_to_the_workers(api, drain, monkeypatch):
    segment, _ids = _audience(api, drain, 3)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    from chalicelib.domain.messaging import email_sends

    original = email_sends.send_once
    calls = []

    def failing_second(email, contact_id, source, ctx):
        calls.append(contact_id)
        if len(calls) == 2:
            raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException"}}, "GetItem")
        return original(email, contact_id, source, ctx)

    monkeypatch.setattr(email_sends, "send_once", failing_second)
    response = api.post(f"/api/emails/{mail_doc['id']}/send")
    assert response.status_code == 200 and response.json["sentCount"] == 1
    monkeypatch.setattr(email_sends, "send_once", original)
    drain()
    assert _recipients() == Counter({f"c{n}@example.com": 1 for n in range(3)})


def test_queues_redrive_moves_dead_letter_messages_back(api, capsys):
    queues.send("webhooks", [{"type": "noop", "n": 1}, {"type": "noop", "n": 2}], dead_letter=True)
    assert cli.main(["--json", "queues", "redrive", "--queue", "webhooks"], config.active()) == 0
    assert '"moved": 2' in capsys.readouterr().out
    assert sorted(body["n"] for _r, body, _c in queues.receive("webhooks")) == [1, 2]
    assert queues.receive("webhooks", dead_letter=True) == []
    assert cli.main(["queues", "redrive", "--queue", "nope"], config.active()) == 1


def test_webhook_delivery_under_faults_reaches_the_receiver_for_every_acknowledged_write(
    configure, api, drain, receiver, redelivered_at_once, monkeypatch
):
    from chalicelib import config, workers
    from chalicelib.domain.webhooks import webhook_events

    configure(WEBHOOK_RETRY_DELAYS=(0, 0))
    monkeypatch.setattr(webhook_events, "STALE_SECONDS", 0)  # the sweep's 2 minutes have passed
    hook = api.post(
        "/api/hooks/new",
        {"name": "Receiver", "webhookUrl": receiver.url, "triggers": ["mautic.lead_post_save_new"]},
    )
    assert hook.status_code == 201
    faults.install(0.05, seed=7)
    created = set()
    for n in range(12):
        response = api.post("/api/contacts/new", {"email": f"w{n}@example.com"})
        if _answered(response):
            created.add(response.json["contact"]["id"])
    _drain_under_faults(drain)
    faults.stop()
    assert cli.main(["queues", "redrive"], config.active()) == 0
    drain()
    workers.run_jobs("minute")  # the outbox sweep queues what a failed SQS send left stored
    drain()
    ids: dict[int, set[str]] = {}
    for request in receiver.received:
        for event in request.json.get("mautic.lead_post_save_new", []):
            ids.setdefault(event["contact"]["id"], set()).add(request.headers["webhook-id"])
    assert created and created <= set(ids)
    # delivered at least once; a repeat (a worker step retried after its POST) keeps its webhook-id,
    # the key a Standard Webhooks receiver drops duplicates by
    assert all(len(webhook_ids) == 1 for webhook_ids in ids.values())
    repeats = sum(1 for r in receiver.received if r.json.get("mautic.lead_post_save_new")) - len(ids)
    print(f"{len(created)} acknowledged creates, {len(ids)} contacts delivered, {repeats} repeated deliveries")


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_automation_run_under_faults_applies_each_action_once_to_every_member(api, drain, redelivered_at_once, seed):
    from tests.api.test_automations import action, new_automation, tag
    from tests.api.test_segments import new_contact, new_segment

    segment = new_segment(api)
    drain()
    people = [new_contact(api, email=f"a{i}@example.com", city="Prague")["id"] for i in range(8)]
    drain()
    new_automation(
        api,
        [tag("new1", "welcomed"), action("new2", "lead.changepoints", {"points": 5}, parent="new1")],
        lists=[segment["id"]],
    )
    injected = faults.failed()
    faults.install(0.05, seed=seed)
    _drain_under_faults(drain)
    faults.stop()
    assert faults.failed() > injected
    assert cli.main(["queues", "redrive"], config.active()) == 0
    drain()
    for person in people:
        doc = api.get(f"/api/contacts/{person}").json["contact"]
        assert [t["tag"] for t in doc["tags"]] == ["welcomed"] and doc["points"] == 5, doc
