"""End to end: webhooks from the local stack (its worker threads) to receivers on 127.0.0.1, with
retries after about a second."""

import base64
import json
import time

import boto3
import pytest
from standardwebhooks import Webhook

from chalicelib.store.schema import queue_name
from tests.api.test_webhook_delivery import SAVE_TRIGGERS, mautic_signature
from tests.e2e.test_local_stack import Stack, _call
from tests.receiver import Receiver


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WEBHOOK_RETRY_DELAYS", "1,1")
        running = Stack(tmp_path_factory.mktemp("webhooks") / "data")
    yield running
    running.stop()


@pytest.fixture
def hooks(stack):
    """hook(url, **fields) creates a hook on the stack; every hook is deleted after the test."""
    conn, created = stack.connection(), []

    def hook(url, **fields):
        status, body, _ = _call(
            conn,
            "POST",
            "/api/hooks/new",
            dict({"name": "E2E", "webhookUrl": url, "triggers": SAVE_TRIGGERS}, **fields),
        )
        assert status == 201, body
        created.append(body["hook"]["id"])
        return body["hook"]

    yield hook
    for hook_id in created:
        _call(conn, "DELETE", f"/api/hooks/{hook_id}/delete")


def _until(check, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("timed out")


def _dead_letters(stack):
    with open(stack.data_dir / "local-aws.json") as handle:
        endpoint = json.load(handle)["endpoint"]
    sqs = boto3.client(
        "sqs", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="local", aws_secret_access_key="local"
    )
    url = sqs.get_queue_url(QueueName=queue_name("webhooks") + "-dlq")["QueueUrl"]
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
    return [json.loads(m["Body"]) for m in messages]


def test_a_contact_write_reaches_the_receivers_with_valid_signatures(stack, hooks):
    mautic, standard = Receiver(), Receiver()
    try:
        plain = hooks(mautic.url)
        secret = "whsec_" + base64.b64encode(b"e2e-standard-webhooks-key-32byte").decode()
        hooks(standard.url, secret=secret)
        status, body, _ = _call(stack.connection(), "POST", "/api/contacts/new", {"email": "e2e@example.com"})
        assert status == 201
        (first,) = mautic.wait(1)
        assert first.headers["Webhook-Signature"] == mautic_signature(plain["secret"], first.body)
        (second,) = standard.wait(1)
        payload = Webhook(secret).verify(second.body, second.headers)
        (event,) = payload["mautic.lead_post_save_new"]
        assert event["contact"]["id"] == body["contact"]["id"] and first.json == payload
    finally:
        mautic.close()
        standard.close()


def test_a_receiver_failing_twice_gets_the_event_exactly_once(stack, hooks):
    receiver = Receiver(statuses=[500, 502])
    try:
        hook = hooks(receiver.url)
        _call(stack.connection(), "POST", "/api/contacts/new", {"email": "twice@example.com"})
        received = receiver.wait(3)
        time.sleep(1.5)  # nothing more comes
        assert [r.status for r in receiver.received] == [500, 502, 200]
        assert len({r.headers["webhook-id"] for r in received}) == 1
        _, logs, _ = _call(stack.connection(), "GET", f"/api/hooks/{hook['id']}/logs")
        assert [(e["attempt"], e["statusCode"]) for e in logs["logs"]] == [(3, 200), (2, 502), (1, 500)]
    finally:
        receiver.close()


def test_a_receiver_always_failing_ends_in_the_dead_letter_queue(stack, hooks):
    receiver = Receiver(default=503)
    try:
        hook = hooks(receiver.url)
        _call(stack.connection(), "POST", "/api/contacts/new", {"email": "never@example.com"})
        (dead,) = _until(lambda: [d for d in _dead_letters(stack) if d["hook"] == hook["id"]])
        assert dead["attempt"] == 3 and dead["statusCode"] == 503 and dead["error"] == "HTTP 503"
        assert json.loads(dead["body"]) == receiver.received[0].json and len(receiver.received) == 3
        _, logs, _ = _call(stack.connection(), "GET", f"/api/hooks/{hook['id']}/logs")
        assert [e["statusCode"] for e in logs["logs"]] == [503, 503, 503]
    finally:
        receiver.close()


def test_410_disables_the_hook(stack, hooks):
    receiver = Receiver(default=410)
    try:
        hook = hooks(receiver.url)
        _call(stack.connection(), "POST", "/api/contacts/new", {"email": "gone@example.com"})
        receiver.wait(1)
        _until(lambda: _call(stack.connection(), "GET", f"/api/hooks/{hook['id']}")[1]["hook"]["isPublished"] is False)
        assert len(receiver.received) == 1
    finally:
        receiver.close()
