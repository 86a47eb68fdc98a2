"""API rate limits per user and per API client: the RateLimit fields on every answer, 429 with
`Retry-After` past a limit, nothing when the limits are off (the local default)."""

import base64
import re
import time
from urllib.parse import urlencode

import pytest

from chalicelib import config
from chalicelib.auth import clients, users
from chalicelib.domain.kernel.context import Context
from tests.api.payloads import assert_error


@pytest.fixture
def limits(configure):
    """set(per_user, per_client): turn the limits on, away from the end of a minute window."""

    def set_(per_user, per_client=0):
        configure(RATE_LIMIT_PER_MINUTE=per_user)
        configure(RATE_LIMIT_CLIENT_PER_MINUTE=per_client)
        left = 60 - time.time() % 60
        if left < 5:  # the test's requests must fall into one window
            time.sleep(left + 0.1)

    return set_


def _bearer(api, user_id=1):
    doc, secret = clients.create(Context(), "Machine", [], "2", grants=["client_credentials"], user_id=user_id)
    body = urlencode({"grant_type": "client_credentials", "client_id": doc["publicId"], "client_secret": secret})
    r = api.call(
        "POST",
        "/oauth/v2/token",
        raw=body.encode(),
        auth=False,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    return {"Authorization": f"Bearer {r.json['access_token']}"}


def test_off_by_default_locally(api):
    assert config.active().RATE_LIMIT_PER_MINUTE == 0
    r = api.get("/api/tags")
    assert "RateLimit" not in r.headers and "RateLimit-Policy" not in r.headers


def test_per_user_limit_counts_down_then_429(api, limits, configure):
    limits(3)
    remaining = []
    for _ in range(3):
        r = api.get("/api/tags")
        assert r.status_code == 200 and r.headers["RateLimit-Policy"] == '"user";q=3;w=60'
        remaining.append(r.headers["RateLimit"].split(";")[1])
    assert remaining == ["r=2", "r=1", "r=0"]
    r = api.post("/api/tags/new", {"tag": "late"})
    assert_error(r, 429)
    assert 1 <= int(r.headers["Retry-After"]) <= 60 and r.headers["RateLimit"].startswith('"user";r=0;t=')
    assert api.get("/api/tags").status_code == 429
    configure(RATE_LIMIT_PER_MINUTE=0)
    assert api.get("/api/tags").json["total"] == 0  # the refused create wrote nothing


def test_error_answers_carry_the_fields_too(api, limits):
    limits(10)
    r = api.get("/api/tags/999")
    assert r.status_code == 404 and r.headers["RateLimit"].startswith('"user";r=9;')


def test_per_client_limit_applies_to_oauth_clients(api, limits):
    limits(100, 2)
    bearer = _bearer(api)
    answers = [api.get("/api/tags", headers=bearer, auth=False) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert answers[0].headers["RateLimit-Policy"] == '"user";q=100;w=60, "client";q=2;w=60'
    assert re.fullmatch(r'"user";r=98;t=\d+, "client";r=0;t=\d+', answers[1].headers["RateLimit"])
    assert api.get("/api/tags").status_code == 200  # Basic: the same user, no client, under its own limit


def test_users_are_counted_apart(api, limits):
    limits(1)
    users.create_user("kim", "kim-password-1")
    kim = {"Authorization": "Basic " + base64.b64encode(b"kim:kim-password-1").decode()}
    assert api.get("/api/tags").status_code == 200
    assert api.get("/api/tags", headers=kim, auth=False).status_code == 200
    assert api.get("/api/tags").status_code == 429
