"""The admin CLI acting on a running local stack (same DATA_DIR / PORT as `make run`)."""

import json
import os
import subprocess
import sys

import pytest

from tests.e2e.test_local_stack import ROOT, Stack, _call


@pytest.fixture
def stack(tmp_path):
    running = Stack(tmp_path / "data")
    yield running
    running.stop()


def test_users_settings_and_clients_on_the_running_service(stack):
    code, user = stack.cli(
        "users",
        "create",
        "--username",
        "jane",
        "--password",
        "jane-secret-1",
        "--first-name",
        "Jane",
        "--email",
        "jane@example.com",
        "--role",
        "administrator",
    )
    assert code == 0 and user["username"] == "jane" and "passwordHash" not in user
    status, body, _ = _call(stack.connection(), "GET", "/api/users/self", password="jane-secret-1", user="jane")
    assert status == 200 and body["username"] == "jane"
    code, listed = stack.cli("users", "list")
    assert [u["username"] for u in listed] == ["admin", "jane"]

    code, shown = stack.cli("settings", "show")
    assert shown == {
        "apiEnabled": True,
        "basicAuthEnabled": True,
        "oauthMode": "2",
        "accessTokenMinutes": 60,
        "refreshTokenDays": 14,
    }
    code, changed = stack.cli("settings", "set", "--basic-auth", "off", "--access-token-minutes", "5")
    assert code == 0 and changed["basicAuthEnabled"] is False and changed["accessTokenMinutes"] == 5
    status, body, _ = _call(stack.connection(), "GET", "/api/contacts")
    assert status == 403 and body["errors"][0]["message"].startswith("Basic Auth disabled")

    code, client = stack.cli("clients", "create", "--name", "CRM", "--redirect-uri", "https://crm.example/cb")
    assert code == 0 and client["mode"] == "2" and client["clientId"].startswith(f"{client['id']}_")
    assert client["clientSecret"]
    code, listed = stack.cli("clients", "list")
    assert listed[0]["clientId"] == client["clientId"] and "clientSecret" not in listed[0]
    code, revoked = stack.cli("clients", "revoke", str(client["id"]))
    assert code == 0 and revoked["revoked"] is True


def test_api_switch_off_answers_403(stack):
    assert stack.cli("settings", "set", "--api", "off")[0] == 0
    status, body, _ = _call(stack.connection(), "GET", "/api/contacts")
    assert status == 403 and body["errors"][0]["type"] == "api_disabled"


def test_clear_errors(stack, tmp_path):
    code, message = stack.cli(
        "users", "create", "--username", "admin", "--password", "another-pass", "--role", "administrator"
    )
    assert code == 1 and "taken" in message
    code, message = stack.cli("clients", "revoke", "99")
    assert code == 1 and "no client" in message
    code, message = stack.cli("users", "list", PORT="1")
    assert code == 1 and "port" in message
    code, message = stack.cli("users", "list", DATA_DIR=str(tmp_path / "elsewhere"))
    assert code == 1 and "make run" in message


def _bearer(stack, client):
    """A client_credentials access token of the client (None when refused) and a call with it."""
    conn = stack.connection()
    body = json.dumps(
        {"grant_type": "client_credentials", "client_id": client["clientId"], "client_secret": client["clientSecret"]}
    )
    conn.request("POST", "/oauth/v2/token", body=body, headers={"Content-Type": "application/json"})
    answer = conn.getresponse()
    token = json.loads(answer.read()).get("access_token") if answer.status == 200 else None
    return token


def _contacts_with(stack, token):
    conn = stack.connection()
    conn.request("GET", "/api/contacts", headers={"Authorization": f"Bearer {token}"})
    answer = conn.getresponse()
    answer.read()
    return answer.status


def test_disabling_a_user_a_new_password_and_revoke_tokens_end_the_users_tokens(stack):
    assert (
        stack.cli("users", "create", "--username", "jane", "--password", "jane-secret-1", "--role", "administrator")[0]
        == 0
    )
    code, client = stack.cli("clients", "create", "--name", "Sync", "--grant", "client_credentials", "--user", "jane")
    assert code == 0
    token = _bearer(stack, client)
    assert _contacts_with(stack, token) == 200

    code, user = stack.cli("users", "disable", "--username", "jane")
    assert code == 0 and user["isPublished"] is False
    assert _contacts_with(stack, token) == 401 and _bearer(stack, client) is None
    assert stack.cli("users", "enable", "--username", "jane")[0] == 0
    assert _contacts_with(stack, token) == 401  # issued before the user was disabled
    token = _bearer(stack, client)
    assert _contacts_with(stack, token) == 200

    code, _ = stack.cli("users", "password", "--username", "jane", stdin="jane-secret-2\n")
    assert code == 0 and _contacts_with(stack, token) == 401
    assert _call(stack.connection(), "GET", "/api/users/self", user="jane", password="jane-secret-2")[0] == 200
    assert _call(stack.connection(), "GET", "/api/users/self", user="jane", password="jane-secret-1")[0] == 401
    token = _bearer(stack, client)
    assert _contacts_with(stack, token) == 200
    assert stack.cli("users", "revoke-tokens", "--username", "jane")[0] == 0
    assert _contacts_with(stack, token) == 401

    code, message = stack.cli("users", "password", "--username", "jane", stdin="short\n")
    assert code == 1 and "8 characters" in message
    code, message = stack.cli("users", "disable", "--username", "nobody")
    assert code == 1 and "no user named nobody" in message


def _run(stack, *args):
    """The CLI as a person types it (no `--json` added): (exit code, stdout)."""
    environment = dict(os.environ, DATA_DIR=str(stack.data_dir), PORT=str(stack.port), STAGE="local")
    done = subprocess.run(
        [sys.executable, "-m", "chalicelib.cli", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.returncode, done.stdout


def test_json_after_the_subcommand(stack):
    code, out = _run(stack, "clients", "create", "--name", "CRM", "--redirect-uri", "https://crm.example/cb", "--json")
    assert code == 0 and json.loads(out)["name"] == "CRM"
    code, out = _run(stack, "users", "list", "--json")
    assert code == 0 and [u["username"] for u in json.loads(out)] == ["admin"]
    code, out = _run(stack, "users", "list")
    assert code == 0 and "username=admin" in out and not out.startswith("[")
