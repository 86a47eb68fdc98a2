"""docs/quickstart.md, run as written (issue 44): its `sh` blocks in order against a fresh local
stack, each answer checked against the `json` or `text` block that follows it, so the page cannot
drift from the service.

How the page is read: the block that starts the service (`make run`) is this test's stack, started
the way `make run` starts it (`devstack.server`); a block of `NAME=value` lines sets variables for
every later block; a block ending in `&` is a process left running (the webhook receiver), stopped
at the end; every other block runs in bash from the repository's root. The page's address, port,
password and `.data/` are replaced by this stack's. A `json` block must be contained in the last
line of the output that is JSON (its keys with those values; a list's first items); a `text`
block's lines must each be a line of the output. A block that writes nothing (no `-d`, `-X` or
command) is run again for up to 30 s until its answer matches: the work it reads is in the background.
"""

import json
import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.test_local_stack import PASSWORD, ROOT, Stack

PAGE = Path(ROOT) / "docs" / "quickstart.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
SETTINGS = re.compile(r"^(\w+=\S+\n)+$")
RETRY_SECONDS = 30


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _blocks(text):
    """(language, body) of every fenced block, in order."""
    return [(match.group(1), match.group(2)) for match in BLOCK.finditer(text)]


def _steps(blocks):
    """(command, expected (language, body) or None) per `sh` block."""
    steps = []
    for position, (language, body) in enumerate(blocks):
        if language != "sh":
            continue
        following = blocks[position + 1] if position + 1 < len(blocks) else None
        steps.append((body, following if following and following[0] in ("json", "text") else None))
    return steps


def contains(actual, expected):
    """Whether `actual` holds `expected`: a dict's keys with matching values, a list's first items."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and contains(actual[k], v) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) >= len(expected) and all(map(contains, actual, expected))
    return actual == expected


def _last_json(output):
    for line in reversed(output.splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def _matches(output, expected):
    language, body = expected
    if language == "json":
        return contains(_last_json(output), json.loads(body))
    lines = output.splitlines()
    return all(line in lines for line in body.splitlines() if line)


def _writes(command):
    return bool(re.search(r" -d | -X |chalicelib\.cli", command))


@pytest.fixture
def page(tmp_path):
    """The page with this stack's address, password, data directory and receiver port; the stack."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("OUTBOX_DIR", raising=False)  # the stack's own DATA_DIR/outbox, as `make run`
        stack = Stack(tmp_path / "data")
    text = PAGE.read_text()
    for old, new in (
        ("http://127.0.0.1:8000", f"http://127.0.0.1:{stack.port}"),
        ("the-password-make-run-printed", PASSWORD),
        (".data/", f"{stack.data_dir}/"),
        ("9000", str(_free_port())),
    ):
        assert old in text, f"docs/quickstart.md no longer says {old!r}: update this test"
        text = text.replace(old, new)
    yield text, stack
    stack.stop()


def test_the_quickstart_runs_as_written(page):
    text, stack = page
    steps = _steps(_blocks(text))
    assert steps[0][0].strip() == "make run" and "devstack.server" in (Path(ROOT) / "Makefile").read_text()
    env = dict(os.environ, DATA_DIR=str(stack.data_dir), PORT=str(stack.port), STAGE="local")
    settings, background = "", []
    try:
        for command, expected in steps[1:]:
            if SETTINGS.match(command):
                settings += command
            elif command.rstrip().endswith("&"):
                script = settings + command.rstrip().removesuffix("&")
                background.append(subprocess.Popen(["bash", "-c", script], cwd=ROOT, env=env, start_new_session=True))
                time.sleep(1)  # listening before the next block names it
            else:
                _run(settings + command, expected, env)
    finally:
        for process in background:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)


def _run(script, expected, env):
    deadline = time.monotonic() + RETRY_SECONDS
    while True:
        done = subprocess.run(
            ["bash", "-e", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, f"{script}\n{done.stdout}{done.stderr}"
        if expected is None or _matches(done.stdout, expected):
            return
        if _writes(script) or time.monotonic() > deadline:
            pytest.fail(f"{script}\nanswered\n{done.stdout}\nnot\n{expected[1]}")
        time.sleep(0.5)
