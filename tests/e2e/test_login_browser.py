"""The login page in a real browser: headless Chromium (Debian's package) driven through chromedriver.

chromedriver speaks the W3C WebDriver protocol, plain JSON over HTTP, so `requests` drives it and
no extra dependency is needed. The browser opens the authorize URL of a running stack, types the
credentials, submits, and must land on the client's redirect_uri (a tiny local http.server) with
a code and the unchanged state; the code is then exchanged for tokens.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests

from tests.e2e.test_local_stack import PASSWORD, ROOT, Stack, _free_port

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C web element key


def _installed():
    return os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)


def _install():
    """apt-get install Debian's chromium and chromium-driver, when we are root; a reason when not."""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return "not root or no apt-get"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium", "chromium-driver"]
    try:
        done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:  # a machine that never fetched the package lists
            subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, timeout=120)
            done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "apt-get timed out"
    return None if done.returncode == 0 else f"apt-get failed: {done.stderr.strip()[-300:]}"


@pytest.fixture(scope="module")
def chromium():
    if not _installed():
        reason = _install()
        if not _installed():
            pytest.skip(
                f"headless browser test skipped: {CHROMIUM} and {CHROMEDRIVER} (Debian packages chromium, "
                f"chromium-driver) are missing and could not be installed ({reason})"
            )
    return CHROMIUM, CHROMEDRIVER


class WebDriver:
    """The few WebDriver commands the test needs, against a chromedriver process."""

    def __init__(self, chromium, chromedriver):
        self.profile = tempfile.mkdtemp(prefix="chromium-profile-")
        port = _free_port()
        self.process = subprocess.Popen(
            [chromedriver, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self.url = f"http://127.0.0.1:{port}"
        self.session = None
        try:
            self._wait_ready()
            options = {"binary": chromium, "args": FLAGS + [f"--user-data-dir={self.profile}"]}
            answer = self._call(
                "POST",
                "/session",
                {
                    "capabilities": {
                        "alwaysMatch": {
                            "browserName": "chrome",
                            "pageLoadStrategy": "normal",
                            "goog:chromeOptions": options,
                        }
                    }
                },
            )
            self.session = answer["sessionId"]
        except BaseException:
            self.quit()
            raise

    def _wait_ready(self):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if requests.get(self.url + "/status", timeout=2).json()["value"]["ready"]:
                    return
            except (requests.RequestException, ValueError, KeyError):
                pass
            time.sleep(0.1)
        raise RuntimeError("chromedriver did not start")

    def _call(self, method, path, payload=None):
        response = requests.request(
            method,
            self.url + path,
            data=json.dumps(payload or {}),
            timeout=60,
            headers={"Content-Type": "application/json"},
        )
        value = response.json().get("value")
        if response.status_code != 200:
            raise RuntimeError(f"WebDriver {method} {path}: {value}")
        return value

    def command(self, method, path, payload=None):
        return self._call(method, f"/session/{self.session}{path}", payload)

    def open(self, url):
        self.command("POST", "/url", {"url": url})

    def find(self, css):
        return self.command("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def type(self, css, text):
        self.command("POST", f"/element/{self.find(css)}/value", {"text": text})

    def click(self, css):
        self.command("POST", f"/element/{self.find(css)}/click")

    def current_url(self):
        return self.command("GET", "/url")

    def wait_for_url(self, prefix, seconds=15):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            url = self.current_url()
            if url.startswith(prefix):
                return url
            time.sleep(0.1)
        raise AssertionError(f"the browser is at {self.current_url()}, not {prefix}")

    def quit(self):
        try:
            if self.session:
                self._call("DELETE", f"/session/{self.session}")
        finally:
            self.process.terminate()
            self.process.wait(timeout=10)
            shutil.rmtree(self.profile, ignore_errors=True)


class Callback(BaseHTTPRequestHandler):
    """The client application's redirect_uri: answers every GET with a small page."""

    def do_GET(self):
        body = b"<!DOCTYPE html><title>Client</title><p>Authorized.</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


@pytest.fixture
def callback_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Callback)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/callback"
    server.shutdown()
    server.server_close()


def test_login_page_in_headless_chromium(chromium, callback_server, tmp_path):
    stack = Stack(tmp_path / "data")
    browser = None
    try:
        env = dict(os.environ, DATA_DIR=str(tmp_path / "data"), PORT=str(stack.port), STAGE="local")
        created = subprocess.run(
            [
                sys.executable,
                "-m",
                "chalicelib.cli",
                "--json",
                "clients",
                "create",
                "--name",
                "Browser app",
                "--redirect-uri",
                callback_server,
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert created.returncode == 0, created.stderr
        client = json.loads(created.stdout)
        base = f"http://127.0.0.1:{stack.port}"
        query = urlencode(
            {
                "client_id": client["clientId"],
                "redirect_uri": callback_server,
                "response_type": "code",
                "state": "browser state/1",
            }
        )
        browser = WebDriver(*chromium)
        browser.open(f"{base}/oauth/v2/authorize?{query}")
        browser.type("#username", "admin")
        browser.type("#password", PASSWORD)
        browser.click("button[type=submit]")
        landed = browser.wait_for_url(callback_server + "?")
        params = parse_qs(urlsplit(landed).query)
        assert params["state"] == ["browser state/1"] and params["code"][0]

        exchanged = requests.post(
            f"{base}/oauth/v2/token",
            timeout=10,
            data={
                "grant_type": "authorization_code",
                "code": params["code"][0],
                "redirect_uri": callback_server,
                "client_id": client["clientId"],
                "client_secret": client["clientSecret"],
            },
        )
        assert exchanged.status_code == 200 and exchanged.json()["refresh_token"], exchanged.text
    finally:
        if browser is not None:
            browser.quit()
        stack.stop()
