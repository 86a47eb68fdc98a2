"""The test tiers, and one moto mock for the session; tables emptied and defaults re-seeded for each test.

Tiers (pytest markers, given by directory in `pytest_collection_modifyitems`; `make test-unit`,
`make test-api`, `make test-e2e`; `make test` runs all):
- `unit`: tests/unit without AWS: the domain's rules in process, over the in-memory store
  (`devstack/memory.py`, installed by tests/unit/conftest.py); moto and boto3 are never imported.
- `api`: tests/api and tests/contract, and the tests of tests/unit that need AWS (the moto
  session: a test using the `aws` fixture or marked `aws`, or a file of `AWS_FILES`: templates,
  the package, the local stack's AWS side).
- `e2e`: tests/e2e, the local stack and the CLI run as processes.
"""

import base64
import copy
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("STAGE", "local")
os.environ.pop("AWS_ENDPOINT_URL", None)
os.environ.setdefault("OUTBOX_DIR", tempfile.mkdtemp(prefix="mautic-outbox-"))
os.environ.setdefault("EMAIL_SEND_RATE", "1000")
# every request reads the cached kinds' versions (store/version_cache.py), so call counts stay per request
os.environ.setdefault("VERSIONS_TTL", "0")
# id blocks (store/id_blocks.py) kept 60 s, not 10: a slow, shared machine must not add a block's
# UpdateItem to a measured call; tests of the bound set it themselves
os.environ.setdefault("ID_BLOCK_SECONDS", "60")
# every public hit reads its page or asset (domain/web/public_docs.py), so call counts stay per request;
# tests of the per-container copy set it themselves
os.environ.setdefault("PUBLIC_DOC_SECONDS", "0")

import dataclasses

import pytest

from chalicelib import config
from tests import motostate

# The tests' settings: the environment above, read once; a test changes some with `configure`.
config.install(config.Settings.from_environment(os.environ))

ADMIN = ("admin", "admin-secret")
TESTS = Path(__file__).parent
# Files of tests/unit that need AWS or the package build (the api tier): the infra template and the
# package, the local stack's AWS side (the devserver's access log, moto's query shortcut, the stack).
AWS_FILES = {
    "test_access_log.py",
    "test_infra.py",
    "test_package.py",
    "test_stack.py",
    "test_localquery.py",
    "test_patches.py",
}
TIERS = ("unit", "api", "e2e", "browser")


def tier(item: pytest.Item) -> str:
    """The tier of a collected test (see the module's docstring)."""
    folder, name = Path(str(item.path)).relative_to(TESTS).parts[0], item.path.name
    if folder in ("e2e", "browser"):
        return folder
    aws = "aws" in item.fixturenames or item.get_closest_marker("aws") is not None or name in AWS_FILES
    return "unit" if folder == "unit" and not aws else "api"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """`-m unit` does not even import the AWS files (importing them loads boto3 or moto)."""
    return True if config.option.markexpr == "unit" and collection_path.name in AWS_FILES else None


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if not any(item.get_closest_marker(t) for t in TIERS):
            item.add_marker(tier(item))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A session of unit tests only fails if anything imported moto or boto3 (the tier's promise)."""
    items = getattr(session, "items", [])
    leaked = [name for name in ("moto", "boto3") if name in sys.modules]
    if items and leaked and all(item.get_closest_marker("unit") for item in items):
        sys.stderr.write(f"\nThe unit tier imported {', '.join(leaked)}: a unit test reached AWS code.\n")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def configure():
    """`configure(NAME=value, ...)`: the active settings with these changed, for the rest of the test (the
    ones before are installed again after it). Tests change settings only this way, never by patching
    `chalicelib.config` or a module (tests/unit/test_settings.py checks)."""
    before = config.active()
    yield lambda **overrides: config.install(dataclasses.replace(config.active(), **overrides))
    config.install(before)


@pytest.fixture(scope="session")
def aws():
    from moto import mock_aws

    from devstack import patches

    patches.install()
    with mock_aws():
        from chalicelib.channels import mail
        from chalicelib.store import schema

        schema.ensure_resources()
        mail.verify_sender(config.active().MAILER_FROM_EMAIL)
        yield


@pytest.fixture(scope="session")
def seeded(aws):
    """The tables right after a first start (default fields, administrator), seeded once and
    kept as copies of moto's in-memory tables: restoring them is much faster than re-writing."""
    from chalicelib import bootstrap

    bootstrap.first_start()
    bootstrap.ensure_admin(*ADMIN)
    return copy.deepcopy(dict(motostate.tables()))


def _empty_outboxes():
    """Forget the messages SES and SNS accepted and the local outbox files."""
    motostate.forget_sent()
    shutil.rmtree(config.active().OUTBOX_DIR, ignore_errors=True)


def _empty_bucket():
    import boto3

    boto3.resource("s3", region_name=config.active().AWS_REGION).Bucket(
        config.active().FILES_BUCKET
    ).objects.all().delete()


@pytest.fixture
def fresh(seeded):
    """Each test starts from the first-start state with empty queues and an empty files bucket."""
    restore(seeded)
    yield


def restore(seeded):
    """Back to the first-start state `seeded`: tables, queues, bucket, outboxes and the caches."""
    from chalicelib.auth import core
    from chalicelib.domain.kernel import cached
    from chalicelib.domain.messaging import theme_html
    from chalicelib.domain.web import public_docs

    motostate.tables().update(copy.deepcopy(seeded))
    core.forget_verified()  # Basic credentials verified by an earlier test name its users
    motostate.empty_queues()
    _empty_bucket()
    theme_html.forget()  # themes read from the bucket just emptied
    public_docs.forget()  # pages and assets public hits read, from the tables just restored
    _empty_outboxes()
    cached.forget()


@pytest.fixture
def drain(fresh):
    """A function that runs the workers on everything queued until the queues are empty (as SQS would)."""
    from devstack import workers as local

    return local.drain


class Api:
    """Thin JSON helper over chalice.test.Client, authenticated as the administrator."""

    def __init__(self, http):
        self.http = http
        token = base64.b64encode(f"{ADMIN[0]}:{ADMIN[1]}".encode()).decode()
        self.auth = {"Authorization": f"Basic {token}"}

    def call(self, method, path, body=None, headers=None, raw=None, auth=True):
        all_headers = dict(self.auth if auth else {})
        if body is not None:
            all_headers["Content-Type"] = "application/json"
        all_headers.update(headers or {})
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else b"")
        response = self.http.request(method, path, headers=all_headers, body=data)
        response.json = json.loads(response.body) if response.body else None
        return response

    def get(self, path, **kw):
        return self.call("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.call("POST", path, body, **kw)

    def patch(self, path, body=None, **kw):
        return self.call("PATCH", path, body, **kw)

    def put(self, path, body=None, **kw):
        return self.call("PUT", path, body, **kw)

    def delete(self, path, **kw):
        return self.call("DELETE", path, **kw)


@pytest.fixture(scope="session")
def chalice_app(aws):
    from app import app

    return app


def local_http(chalice_app):
    """chalice.test's HTTP client (`request(method, path, headers, body)`) behind our local gateway."""
    from chalice.test import Client

    from devstack.gateway import ApiGateway

    client = Client(chalice_app, stage_name="local")
    # Our gateway answers unknown paths with the JSON 404 that API Gateway gives on AWS.
    client.http._local_gateway = ApiGateway(chalice_app, client.http._config)
    return client.http


@pytest.fixture
def source_ip(monkeypatch):
    """A setter, called with an address: the caller's address the local gateway reports from now on (API
    Gateway's `sourceIp`; clients cannot set it, unlike X-Forwarded-For)."""
    from chalice.local import LambdaEventConverter

    return lambda address: monkeypatch.setattr(LambdaEventConverter, "LOCAL_SOURCE_IP", address)


@pytest.fixture
def api(chalice_app, fresh):
    return Api(local_http(chalice_app))


class FrozenClock:
    """The service's time, held still: `advance(hours=1)` moves it (timedelta keywords)."""

    def __init__(self, moment):
        self.moment = moment

    def __call__(self):
        return self.moment

    def advance(self, **delta):
        import datetime

        self.moment += datetime.timedelta(**delta)


@pytest.fixture
def frozen(monkeypatch):
    """An injectable clock for tests that drive time (scheduled automation events)."""
    from chalicelib.domain.kernel import clock

    held = FrozenClock(clock.now())
    monkeypatch.setattr(clock, "now", held)
    return held


@pytest.fixture
def receiver():
    """An HTTP receiver on 127.0.0.1 (webhooks, reposts, automation webhook actions)."""
    from tests.receiver import Receiver

    running = Receiver()
    yield running
    running.close()


def visitor_cookie(contact_id):
    """The Cookie header of a browser whose signed visitor token names the contact."""
    from chalicelib.domain.kernel.context import Context
    from chalicelib.domain.web import visitors

    return f"mtc_id={contact_id}; mtc_sid={visitors.token(contact_id, Context())}"


def set_cookies(response):
    """{name: value} of a response's Set-Cookie headers."""
    values = response.headers.get("Set-Cookie") or []
    return dict(v.split(";")[0].split("=", 1) for v in ([values] if isinstance(values, str) else values))
