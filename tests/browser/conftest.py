"""The browser tier (`make test-browser`, after `make test` in .ci/run): Playwright driving Debian's
`chromium` (Playwright's own browser download is not reachable here) against the local stack as a
process and a tiny website on another address (127.0.0.2) that embeds the service's scripts, so
every request the service sees is a third-party one, as on a customer's site.

A missing /usr/bin/chromium is installed with `apt-get install -y chromium` (as root); where that is
impossible the tier is skipped with the reason. The browser presents a desktop Chrome User-Agent:
headless Chromium's own (`HeadlessChrome`) is a crawler's, which the service never tracks."""

import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.e2e.test_local_stack import Stack

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36"
SITE_HOST = "127.0.0.2"


def _install() -> str | None:
    """`apt-get install -y chromium` (after `apt-get update` when the lists are stale); the reason it failed."""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return "not root, or no apt-get"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "-q", "chromium"]
    try:
        done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, timeout=300)
            done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "apt-get timed out"
    return None if done.returncode == 0 else f"apt-get failed: {done.stderr.strip()[-300:]}"


class Site:
    """A website on 127.0.0.2 serving the HTML pages put in `pages` ({path: html})."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        pages = self.pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                html = pages.get(self.path.split("?")[0])
                body = (html or "not found").encode()
                self.send_response(200 if html else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer((SITE_HOST, 0), Handler)
        self.origin = f"http://{SITE_HOST}:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def chromium() -> str:
    if not os.access(CHROMIUM, os.X_OK):
        reason = _install()
        if not os.access(CHROMIUM, os.X_OK):
            pytest.skip(
                f"browser tier skipped: {CHROMIUM} (Debian's chromium) is missing and could not be installed ({reason})"
            )
    return CHROMIUM


@pytest.fixture(scope="session")
def site() -> Iterator[Site]:
    running = Site()
    yield running
    running.close()


@pytest.fixture(scope="session")
def stack(site: Site, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The local stack, allowing the test site's origin to read its tracking answers (CORS)."""
    before = os.environ.get("CORS_VALID_DOMAINS")
    os.environ["CORS_VALID_DOMAINS"] = site.origin
    try:
        running = Stack(tmp_path_factory.mktemp("browser") / "data")
    finally:
        if before is None:
            os.environ.pop("CORS_VALID_DOMAINS", None)
        else:
            os.environ["CORS_VALID_DOMAINS"] = before
    yield running
    running.stop()


@pytest.fixture(scope="session")
def browser(chromium):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def visitor(browser):
    """A new browser profile (no cookies, no storage) with a desktop Chrome User-Agent."""
    context = browser.new_context(user_agent=USER_AGENT)
    yield context
    context.close()
