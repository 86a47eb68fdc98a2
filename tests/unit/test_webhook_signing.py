"""Signatures, the retry schedule and long delays (no AWS)."""

import base64
import hashlib
import hmac
import time

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from chalicelib import config
from chalicelib.channels import http
from chalicelib.domain.webhooks import webhooks

DELIVERY = {
    "id": "msg_1_2",
    "body": '{"mautic.lead_post_save_new":[{"contact":{"id":1}}]}',
    "baseUrl": "https://m.test",
}


def test_mautic_signature_is_base64_hmac_sha256_of_the_raw_body():
    headers = webhooks.headers("s3cret", DELIVERY, 1700000000)
    expected = base64.b64encode(hmac.new(b"s3cret", DELIVERY["body"].encode(), hashlib.sha256).digest()).decode()
    assert headers["Webhook-Signature"] == expected
    assert headers["webhook-id"] == "msg_1_2" and headers["webhook-timestamp"] == "1700000000"
    assert headers["X-Origin-Base-URL"] == "https://m.test" and headers["Content-Type"] == "application/json"
    assert "webhook-signature" not in headers


def test_standard_webhooks_signature_verifies_with_the_reference_library():
    secret = "whsec_" + base64.b64encode(bytes(range(32))).decode()
    headers = webhooks.headers(secret, DELIVERY, int(time.time()))
    assert "Webhook-Signature" not in headers
    assert Webhook(secret).verify(DELIVERY["body"], headers) == {"mautic.lead_post_save_new": [{"contact": {"id": 1}}]}
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(DELIVERY["body"] + " ", headers)


def test_standard_secret_shape():
    assert webhooks.standard_key("whsec_" + base64.b64encode(b"x" * 24).decode()) == b"x" * 24
    assert webhooks.standard_key("whsec_" + base64.b64encode(b"x" * 8).decode()) is None
    assert webhooks.standard_key("whsec_not*base64") is None
    assert webhooks.standard_key("plain") is None


def test_the_retry_schedule_is_jittered_and_ends(configure):
    configure(WEBHOOK_RETRY_DELAYS=(10.0, 600.0))
    delays = [http.retry_delay(1) for _ in range(200)]
    assert all(8 <= d <= 12 for d in delays) and len(set(delays)) > 1
    assert 480 <= http.retry_delay(2) <= 720
    assert http.retry_delay(3) is None


def test_list_settings_are_comma_separated():
    read = config.Settings.from_environment({"WEBHOOK_RETRY_DELAYS": " 1, 2.5 ,,", "FORM_RETURN_HOSTS": "a, ,b"})
    assert read.WEBHOOK_RETRY_DELAYS == (1.0, 2.5) and read.FORM_RETURN_HOSTS == ("a", "b")


def test_a_delivery_not_due_yet_waits_again_at_most_15_minutes(monkeypatch):
    sent = []
    monkeypatch.setattr(webhooks.queues, "send", lambda queue, bodies, **kw: sent.append((queue, bodies, kw)))
    delivery = dict(DELIVERY, type="delivery", hook=1, attempt=3, due=time.time() + 3600)
    webhooks.attempt(delivery)
    ((queue, bodies, options),) = sent
    assert queue == "webhooks" and bodies == [delivery] and options == {"delay": 900}
