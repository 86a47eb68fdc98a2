"""The hook resource's webhook-specific rules: Standard Webhooks secrets, the log endpoint."""

import base64

import pytest

HOOK = {"name": "H", "webhookUrl": "https://example.com/h", "triggers": ["mautic.lead_post_save_new"]}


@pytest.mark.parametrize("secret", ["whsec_" + base64.b64encode(b"s" * 8).decode(), "whsec_not base64!"])
def test_a_malformed_standard_webhooks_secret_is_400(api, secret):
    r = api.post("/api/hooks/new", dict(HOOK, secret=secret))
    assert r.status_code == 400 and "secret" in r.json["errors"][0]["details"]


def test_a_standard_webhooks_secret_is_kept_and_a_new_hook_has_an_empty_log(api):
    secret = "whsec_" + base64.b64encode(b"s" * 32).decode()
    hook = api.post("/api/hooks/new", dict(HOOK, secret=secret)).json["hook"]
    assert hook["secret"] == secret
    assert api.get(f"/api/hooks/{hook['id']}/logs").json == {"total": 0, "logs": []}
    assert api.post(f"/api/hooks/{hook['id']}/logs").status_code == 405
    assert api.get("/api/hooks/abc/logs").status_code == 404
