"""Issue 30, part 4, and issue 43 (sends that recover by themselves): under a burst of injected AWS
faults a segment send answers a success or a 503 with Retry-After, its inline part leaves the
contacts whose send met a fault to the workers, and a worker step that fails backs off with its
message's visibility (seconds, doubling: `workers/redelivery.py`) instead of the queue's 200 s; once
the faults stop every member gets the email exactly once within a minute, with no operator (no
`queues redrive`); every acknowledged contact create reaches a webhook receiver (at least once,
repeats under one webhook-id) and an automation's tag and points actions are applied once to every
member. Poison (a bug, a bad body) still reaches the dead-letter queue. Time is the queues' clock
(`devstack.workers.settle`): minutes of retries run in seconds, without sleeping."""

from collections import Counter

import pytest
from botocore.exceptions import ClientError

from chalicelib import cli, config, workers
from chalicelib.store import queues
from devstack import faults
from devstack import workers as local
from tests.api.test_email_segment_send import _audience
from tests.api.test_email_send import make_email, sent_messages

pytestmark = pytest.mark.aws  # about AWS itself: over moto

MEMBERS = 40
RATE = 0.03  # the share of AWS calls failing during a burst (the measurement)
BURST = 30  # seconds of the queues' clock the faults last
RECOVERY = 60  # every member reached within this many seconds of the faults ending


@pytest.fixture
def burst():
    """A function running the workers for BURST seconds of the queues' clock with `rate` of AWS
    calls failing (after `during()`, e.g. the send request, made under the same faults); faults
    stop at its end (and after the test, whatever happened)."""

    def run(rate, seed, during=lambda: None):
        faults.install(rate, seed=seed)
        began = local.queue_time()
        during()
        local.settle(BURST - (local.queue_time() - began))
        faults.stop()

    yield run
    faults.stop()


def _answered(response):
    """True for a success; a failure must be a 503 with Retry-After and the JSON envelope."""
    if response.status_code == 503:
        assert response.headers["Retry-After"] and response.json["errors"][0]["code"] == 503
        return False
    assert response.status_code < 300, response.body
    return True


def _recipients():
    return Counter(m["To"].addresses[0].addr_spec for m in sent_messages())


def _dead_letters():
    return {queue: queues.receive(queue, dead_letter=True) for queue in workers.HANDLERS}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_segment_send_after_a_burst_of_faults_reaches_every_member_once_within_a_minute(
    api, drain, burst, seed, monkeypatch, configure
):
    # every member through the workers' batches (the request sends none inline), in four messages
    configure(EMAIL_SEND_INLINE=0, EMAIL_SEND_BATCH=10)
    segment, _ids = _audience(api, drain, MEMBERS)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    injected = faults.failed()
    backoffs = []  # the receive counts of the sends messages that failed and backed off
    give_back = workers.give_back

    def counted(queue, failed, *args):
        backoffs.extend(message.receives for message, _error in failed if queue == "sends")
        return give_back(queue, failed, *args)

    monkeypatch.setattr(workers, "give_back", counted)

    def send():
        for _ in range(10):
            if _answered(api.post(f"/api/emails/{mail_doc['id']}/send")):
                return
        pytest.fail("the segment send never succeeded under faults")

    burst(RATE, seed, during=send)
    during = len(sent_messages())
    recovered = local.settle(10 * RECOVERY, until=lambda: len(sent_messages()) >= MEMBERS)
    local.settle(10 * RECOVERY)  # whatever is still queued (repeats must send nothing)
    print(f"seed {seed}: {faults.failed() - injected} faults, {len(backoffs)} backoffs (receives {backoffs}),", end=" ")
    print(f"{during} reached during the burst, all {MEMBERS} {recovered:.1f} s after it")
    assert faults.failed() > injected and backoffs  # the burst did make the send's messages fail
    assert _recipients() == Counter({f"c{n}@example.com": 1 for n in range(MEMBERS)})
    assert recovered <= RECOVERY
    assert not any(_dead_letters().values())  # no operator: nothing waits for a redrive


def test_segment_send_inline_part_leaves_a_contact_that_met_a_fault_to_the_workers(configure, api, drain, monkeypatch):
    segment, _ids = _audience(api, drain, 3)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    from chalicelib.domain.messaging import recipients

    original = recipients.claim
    calls = []

    def failing_second(email, record, contact_id, stat_id):
        calls.append(contact_id)
        if len(calls) == 2:
            raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException"}}, "PutItem")
        return original(email, record, contact_id, stat_id)

    configure(EMAIL_SEND_CONCURRENCY=1)  # the contacts in order: the fault stops the third
    monkeypatch.setattr(recipients, "claim", failing_second)
    response = api.post(f"/api/emails/{mail_doc['id']}/send")
    assert response.status_code == 200 and response.json["sentCount"] == 1
    monkeypatch.setattr(recipients, "claim", original)
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
    configure, api, drain, receiver, burst, monkeypatch
):
    from chalicelib.domain.webhooks import webhook_events

    configure(WEBHOOK_RETRY_DELAYS=(0, 0))
    monkeypatch.setattr(webhook_events, "STALE_SECONDS", 0)  # the sweep's 2 minutes have passed
    hook = api.post(
        "/api/hooks/new",
        {"name": "Receiver", "webhookUrl": receiver.url, "triggers": ["mautic.lead_post_save_new"]},
    )
    assert hook.status_code == 201
    created = set()

    def create():
        for n in range(12):
            response = api.post("/api/contacts/new", {"email": f"w{n}@example.com"})
            if _answered(response):
                created.add(response.json["contact"]["id"])

    burst(0.05, 7, during=create)
    local.settle(10 * RECOVERY)
    workers.run_jobs("minute")  # the outbox sweep queues what a failed SQS send left stored
    local.settle(10 * RECOVERY)
    assert not any(_dead_letters().values())
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
def test_automation_run_under_faults_applies_each_action_once_to_every_member(api, drain, burst, seed):
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
    burst(0.05, seed)
    assert faults.failed() > injected
    recovered = local.settle(10 * RECOVERY)
    assert recovered <= RECOVERY and not any(_dead_letters().values())
    for person in people:
        doc = api.get(f"/api/contacts/{person}").json["contact"]
        assert [t["tag"] for t in doc["tags"]] == ["welcomed"] and doc["points"] == 5, doc
