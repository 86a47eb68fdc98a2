"""The admin CLI acting on a running local stack (same DATA_DIR / PORT as `make run`)."""
import json
import os
import subprocess
import sys

import pytest

from tests.e2e.test_local_stack import ROOT, Stack, _call


def cli(stack_env, *args):
    result = subprocess.run([sys.executable, "-m", "chalicelib.cli", "--json", *args], cwd=ROOT, env=stack_env,
                            capture_output=True, text=True, timeout=60)
    return result.returncode, (json.loads(result.stdout) if result.returncode == 0 else result.stderr)


@pytest.fixture
def running(tmp_path):
    stack = Stack(tmp_path / "data")
    env = dict(os.environ, DATA_DIR=str(tmp_path / "data"), PORT=str(stack.port))
    yield stack, env
    stack.stop()


def test_users_settings_and_clients_on_the_running_service(running):
    stack, env = running
    code, user = cli(env, "users", "create", "--username", "jane", "--password", "jane-secret-1",
                     "--first-name", "Jane", "--email", "jane@example.com")
    assert code == 0 and user["username"] == "jane" and "passwordHash" not in user
    status, body, _ = _call(stack.connection(), "GET", "/api/users/self", password="jane-secret-1", user="jane")
    assert status == 200 and body["username"] == "jane"
    code, listed = cli(env, "users", "list")
    assert [u["username"] for u in listed] == ["admin", "jane"]

    code, shown = cli(env, "settings", "show")
    assert shown == {"apiEnabled": True, "basicAuthEnabled": True, "oauthMode": "2",
                     "accessTokenMinutes": 60, "refreshTokenDays": 14}
    code, changed = cli(env, "settings", "set", "--basic-auth", "off", "--access-token-minutes", "5")
    assert code == 0 and changed["basicAuthEnabled"] is False and changed["accessTokenMinutes"] == 5
    status, body, _ = _call(stack.connection(), "GET", "/api/contacts")
    assert status == 403 and body["errors"][0]["message"].startswith("Basic Auth disabled")

    code, client = cli(env, "clients", "create", "--name", "CRM", "--redirect-uri", "https://crm.example/cb")
    assert code == 0 and client["mode"] == "2" and client["clientId"].startswith(f"{client['id']}_")
    assert client["clientSecret"]
    code, listed = cli(env, "clients", "list")
    assert listed[0]["clientId"] == client["clientId"] and "clientSecret" not in listed[0]
    code, revoked = cli(env, "clients", "revoke", str(client["id"]))
    assert code == 0 and revoked["revoked"] is True


def test_api_switch_off_answers_403(running):
    stack, env = running
    assert cli(env, "settings", "set", "--api", "off")[0] == 0
    status, body, _ = _call(stack.connection(), "GET", "/api/contacts")
    assert status == 403 and body["errors"][0]["type"] == "api_disabled"


def test_clear_errors(running, tmp_path):
    stack, env = running
    code, message = cli(env, "users", "create", "--username", "admin", "--password", "another-pass")
    assert code == 1 and "taken" in message
    code, message = cli(env, "clients", "revoke", "99")
    assert code == 1 and "no client" in message
    code, message = cli(dict(env, PORT="1"), "users", "list")
    assert code == 1 and "port" in message
    code, message = cli(dict(env, DATA_DIR=str(tmp_path / "elsewhere")), "users", "list")
    assert code == 1 and "make run" in message
