"""End to end: the local stack as `make run` starts it, over real HTTP on 127.0.0.1."""

import base64
import functools
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "e2e-secret"


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@functools.cache
def _argon2_hash(password):
    """The password's argon2id hash with the service's parameters, made once per test process: a stack
    given ADMIN_PASSWORD_HASH stores it as it is (each start would spend ~0.2 s CPU hashing)."""
    from chalicelib.auth import passwords

    return passwords.hash_password(password)


class Stack:
    """A devserver process with its own port and data directory; the administrator's password is
    given as its hash (ADMIN_PASSWORD_HASH) unless `hashed` is False (ADMIN_PASSWORD)."""

    STARTS = 3  # a port found free may be taken before the server binds it (other tests' connections)

    def __init__(self, data_dir, admin_password=PASSWORD, hashed=True):
        self.data_dir = data_dir
        env = dict(os.environ, DATA_DIR=str(data_dir), ACCESS_LOG="0", ADMIN_USER="admin")
        env.pop("ADMIN_PASSWORD", None)
        env.pop("ADMIN_PASSWORD_HASH", None)
        if admin_password and hashed:
            env["ADMIN_PASSWORD_HASH"] = _argon2_hash(admin_password)
        elif admin_password:
            env["ADMIN_PASSWORD"] = admin_password
        for attempt in range(self.STARTS):
            self.port = _free_port()
            self.process = subprocess.Popen(
                [sys.executable, "-m", "devstack.server"],
                cwd=ROOT,
                env=dict(env, PORT=str(self.port)),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            self.output = []
            try:
                self._wait_ready()
                return
            except RuntimeError:
                if attempt + 1 == self.STARTS or "Address already in use" not in "".join(self.output):
                    raise

    def _wait_ready(self):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line and self.process.poll() is not None:
                raise RuntimeError("devserver exited:\n" + "".join(self.output))
            self.output.append(line)
            if line.startswith("Serving on"):
                return
        raise RuntimeError("devserver did not start:\n" + "".join(self.output))

    def cli(self, *args, stdin="", **env):
        """`python -m chalicelib.cli --json ...` against this stack: (exit code, JSON output or stderr)."""
        environment = dict(os.environ, DATA_DIR=str(self.data_dir), PORT=str(self.port), STAGE="local")
        environment.update(env)
        done = subprocess.run(
            [sys.executable, "-m", "chalicelib.cli", "--json", *args],
            cwd=ROOT,
            env=environment,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
        )
        return done.returncode, (json.loads(done.stdout) if done.returncode == 0 else done.stderr)

    def connection(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        out, _ = self.process.communicate(timeout=30)
        self.output.append(out)
        return self.process.returncode


def own_outbox_stack(folder):
    """A Stack over `folder`/data whose messages land in its own DATA_DIR/outbox, as under `make run`
    (the test session's shared OUTBOX_DIR set aside)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("OUTBOX_DIR", raising=False)
        return Stack(folder / "data")


def _call(conn, method, path, body=None, password=PASSWORD, user="admin"):
    headers = {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}
    data = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body)
    conn.request(method, path, body=data, headers=headers)
    response = conn.getresponse()
    return response.status, json.loads(response.read() or b"null"), response


@pytest.fixture
def stack(tmp_path):
    running = Stack(tmp_path / "data")
    yield running
    if running.process.poll() is None:
        running.stop()


@pytest.fixture(scope="module")
def shared_stack(tmp_path_factory):
    """One stack for the tests of a module that neither change nor count what the others read (a stack
    takes seconds to start and one to stop); `stack` is a fresh one for each test."""
    running = Stack(tmp_path_factory.mktemp("shared") / "data")
    yield running
    if running.process.poll() is None:
        running.stop()


def test_basic_auth_works_right_away_and_errors_are_json(shared_stack):
    conn = shared_stack.connection()
    status, body, response = _call(conn, "GET", "/api/contacts")
    assert status == 200 and body == {"total": "0", "contacts": {}}  # Mautic counts contacts in SQL: a string
    assert response.getheader("Mautic-Version")
    status, body, _ = _call(conn, "GET", "/api/contacts", password="wrong")
    assert status == 401 and body["errors"][0]["message"] == "Authorization denied, invalid credentials."
    status, body, _ = _call(conn, "GET", "/nowhere")
    assert status == 404 and body["errors"][0]["code"] == 404


def test_data_survives_a_restart(tmp_path):
    first = Stack(tmp_path / "data", hashed=False)  # ADMIN_PASSWORD as `make run` documents it
    conn = first.connection()
    status, body, _ = _call(conn, "POST", "/api/contacts/new", {"email": "keep@example.com", "firstname": "Kim"})
    assert status == 201
    contact_id = body["contact"]["id"]
    assert first.stop() == 0
    second = Stack(tmp_path / "data", admin_password=None)
    try:
        status, body, _ = _call(second.connection(), "GET", f"/api/contacts/{contact_id}")
        assert status == 200 and body["contact"]["fields"]["all"]["email"] == "keep@example.com"
        assert not any("Administrator created" in line for line in second.output)
    finally:
        second.stop()


def test_generated_admin_password_is_printed_once(tmp_path):
    stack = Stack(tmp_path / "data", admin_password=None)
    try:
        line = next(line for line in stack.output if "Administrator created" in line)
        password = line.split("password ")[1].split("'")[1]
        status, _, _ = _call(stack.connection(), "GET", "/api/contacts", password=password)
        assert status == 200
    finally:
        stack.stop()


def test_keep_alive_requests_are_not_delayed_by_nagle(shared_stack):
    conn = shared_stack.connection()
    _call(conn, "POST", "/api/tags/new", {"tag": "fast"})
    timings = []
    for _ in range(20):
        started = time.perf_counter()
        status, _, _ = _call(conn, "GET", "/api/tags/1")
        timings.append(time.perf_counter() - started)
        assert status == 200
    timings.sort()
    assert timings[len(timings) // 2] < 0.035, timings


def test_an_answered_write_survives_kill_9_and_a_torn_record_is_skipped(tmp_path):
    first = Stack(tmp_path / "data")
    conn = first.connection()
    batch = [{"email": f"import{n}@example.com", "firstname": f"I{n}"} for n in range(200)]
    status, body, _ = _call(conn, "POST", "/api/contacts/batch/new", batch)
    assert status == 201 and len(body["contacts"]) == 200
    status, body, _ = _call(conn, "POST", "/api/contacts/new", {"email": "last@example.com", "firstname": "Lou"})
    assert status == 201
    last_id = body["contact"]["id"]
    first.process.kill()  # SIGKILL straight after the answer: no shutdown code runs
    first.process.wait(timeout=10)
    segment = max((tmp_path / "data" / "journal").glob("journal-*.log"))
    with open(segment, "ab") as handle:
        handle.write(b'0badc0de {"d":"torn')  # a record cut short by the crash
    second = Stack(tmp_path / "data", admin_password=None)
    try:
        conn = second.connection()
        status, body, _ = _call(conn, "GET", f"/api/contacts/{last_id}")
        assert status == 200 and body["contact"]["fields"]["all"]["email"] == "last@example.com"
        status, body, _ = _call(conn, "GET", "/api/contacts?search=email:import199@example.com")
        assert status == 200 and int(body["total"]) == 1
        status, body, _ = _call(conn, "GET", "/api/contacts?limit=1")
        assert int(body["total"]) == 201
        assert any("torn or corrupt" in line for line in second.output)
        status, body, _ = _call(conn, "POST", "/api/contacts/new", {"email": "after@example.com"})
        # the id counter survived: never an id handed out again (the new process takes a new block of
        # ids, issue 29, so the rest of the old process's block is a gap: 100 ids)
        assert status == 201 and body["contact"]["id"] == last_id + 100
    finally:
        second.stop()


def _from(stack, address):
    """A connection to the stack whose socket is bound to `address` (any of 127.0.0.0/8)."""
    return http.client.HTTPConnection("127.0.0.1", stack.port, timeout=30, source_address=(address, 0))


def test_per_address_lockouts_are_per_address_locally(stack):
    """The local gateway reports each socket's peer as API Gateway's `sourceIp` (chalice's reports 127.0.0.1
    for everyone): ten wrong passwords from 127.0.0.2 lock the admin out there only, not from 127.0.0.3.
    A fresh stack: credentials another test verified would be served from the process's cache
    (`auth/core.py` `_verified`) without the lockout's check."""
    attacker = _from(stack, "127.0.0.2")
    for _ in range(10):
        status, _, _ = _call(attacker, "GET", "/api/contacts", password="wrong")
        assert status == 401
    status, body, _ = _call(attacker, "GET", "/api/contacts")  # the right password, from the locked address
    assert status == 429, body
    status, body, _ = _call(_from(stack, "127.0.0.3"), "GET", "/api/contacts")
    assert status == 200, body


@pytest.mark.parametrize("signals", [2, 25])
def test_signals_in_quick_succession_stop_the_stack_in_time_with_its_journal_intact(tmp_path, signals):
    """`make run` forwards a SIGTERM to the whole group as the terminal sends its SIGINT: a second signal
    used to re-enter the first handler's `stop.set()` and hang the stack for ever."""
    first = Stack(tmp_path / "data")
    status, body, _ = _call(first.connection(), "POST", "/api/contacts/new", {"email": "sig@example.com"})
    assert status == 201
    for n in range(signals):
        os.kill(first.process.pid, signal.SIGINT if n % 2 else signal.SIGTERM)
    started = time.monotonic()
    out, _ = first.process.communicate(timeout=30)
    assert first.process.returncode == 0 and "Stopped; data saved." in out, out
    assert time.monotonic() - started < 15
    second = Stack(tmp_path / "data", admin_password=None)
    try:
        assert not any("torn or corrupt" in line for line in second.output), second.output
        status, found, _ = _call(second.connection(), "GET", f"/api/contacts/{body['contact']['id']}")
        assert status == 200 and found["contact"]["fields"]["all"]["email"] == "sig@example.com"
    finally:
        second.stop()


def test_a_body_over_api_gateways_quota_is_its_json_413_before_it_is_read(shared_stack):
    """API Gateway refuses a body over 10 MB (REQUEST_TOO_LARGE, infra/resources.json); so does the local
    gateway, from the announced length, without reading (or waiting for) the body."""
    with socket.create_connection(("127.0.0.1", shared_stack.port), timeout=10) as sock:
        sock.sendall(
            b"POST /form/submit?formId=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 10485761\r\n\r\nmauticform"
        )
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 413") or head.startswith(b"HTTP/1.1 413"), head
    message = "The request body is larger than the 10 MB the API takes."
    expected = {"code": 413, "message": message, "details": {"body": [message]}, "type": None}
    assert json.loads(body)["errors"][0] == expected
