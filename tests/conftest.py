"""The test tiers; the API's tests over the in-memory adapters, and one moto mock for the session
for the tests about AWS; each test starts from the first-start state.

Tiers (pytest markers, given by directory in `pytest_collection_modifyitems`; `make test-unit`,
`make test-api`, `make test-e2e`; `make test` runs all):
- `unit`: tests/unit without AWS: the domain's rules in process, over the in-memory store and
  adapters (`devstack/memory/`, installed by tests/unit/conftest.py); moto and boto3 are never imported.
- `api`: tests/api and tests/contract, and the tests of tests/unit that need AWS. The app runs over
  the in-memory store and adapters (`fresh`), unless the test is about AWS: marked `aws` (itself
  or its module), using the `aws` fixture, or a file of `AWS_FILES` (templates, the package, the
  local stack's AWS side); those run over moto, from a copy of the seeded tables.
- `e2e`: tests/e2e, the local stack and the CLI run as processes.

The run ends with the share of tests that ran without moto (`pytest_terminal_summary`).
"""

import base64
import collections
import contextlib
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
if os.environ.get("PYTEST_XDIST_WORKER"):  # `make test`'s workers inherit the controller's environment:
    os.environ["OUTBOX_DIR"] = os.path.join(os.environ["OUTBOX_DIR"], os.environ["PYTEST_XDIST_WORKER"])  # own outbox
os.environ.setdefault("EMAIL_SEND_RATE", "1000")
# every request reads the cached kinds' versions (store/version_cache.py), so call counts stay per request
os.environ.setdefault("VERSIONS_TTL", "0")
# id blocks (store/id_blocks.py) kept 60 s, not 10: a slow, shared machine must not add a block's
# UpdateItem to a measured call; tests of the bound set it themselves
os.environ.setdefault("ID_BLOCK_SECONDS", "60")
# every public hit reads its page or asset (domain/web/public_docs.py), so call counts stay per request;
# tests of the per-container copy set it themselves
os.environ.setdefault("PUBLIC_DOC_SECONDS", "0")
# a segment send's inline part stops after this (0.3 s in production): tests count who was sent to in
# the request, which a loaded machine (two workers of `make test` on two cores) must not cut short; the
# tests of the bound set it themselves
os.environ.setdefault("EMAIL_SEND_INLINE_SECONDS", "2")

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
    "test_docs_package.py",
    "test_deploy_recipe.py",
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
    _unique_ids(items)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: tier(item) != "e2e")  # stable: the e2e files first, in their order


def _unique_ids(items: list[pytest.Item]) -> None:
    """Each item its own id: schemathesis names each operation's case `test_operation[GET /api/...]`,
    but pytest 9 builds the id from the function's name alone, so tests/contract/test_fuzz.py's cases
    shared one id, and xdist, which schedules by id, ran one of them."""
    counts = collections.Counter(item.nodeid for item in items)
    for item in items:
        if counts[item.nodeid] > 1 and item.name.endswith("]") and not item.nodeid.endswith("]"):
            item._id = item._id.with_params(item.name.partition("[")[2][:-1])


def over_aws(item: pytest.Item) -> bool:
    """Whether a test runs over moto: about AWS (marked `aws`, the `aws` fixture, `AWS_FILES`) or e2e."""
    return (
        tier(item) == "e2e"
        or "aws" in item.fixturenames
        or item.get_closest_marker("aws") is not None
        or (item.path.name in AWS_FILES)
    )


MOTO_FREE = pytest.StashKey[bool]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """Note whether the test ran without moto (its fixtures are set up by now)."""
    fixtures = getattr(item, "_request", None)
    used = set(getattr(fixtures, "fixturenames", item.fixturenames))
    item.stash[MOTO_FREE] = not over_aws(item) and "aws" not in used and "seeded" not in used
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """The call's report carries it as `moto_free` (xdist sends a report's attributes to the controller)."""
    outcome = yield
    if call.when == "call" and MOTO_FREE in item.stash:
        outcome.get_result().moto_free = item.stash[MOTO_FREE]


SHARE = {"free": 0, "ran": 0}  # what the reports of this run said, in the process that prints the summary


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if hasattr(report, "moto_free"):
        SHARE["free"] += bool(report.moto_free)
        SHARE["ran"] += 1


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    """The share of the tests run that ran without moto (issue 44: at least 75 %)."""
    if SHARE["ran"]:
        free, ran = SHARE["free"], SHARE["ran"]
        terminalreporter.write_line(f"moto-free: {free} of {ran} tests ({100 * free / ran:.1f} %)")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A session of unit tests only fails if anything imported moto or boto3 (the tier's promise)."""
    items = getattr(session, "items", [])
    leaked = [name for name in ("moto", "boto3") if name in sys.modules]
    if items and leaked and all(item.get_closest_marker("unit") for item in items):
        sys.stderr.write(f"\nThe unit tier imported {', '.join(leaked)}: a unit test reached AWS code.\n")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session", autouse=True)
def assembled() -> None:
    """The registry and the subscriber table, installed as every composition root does."""
    from chalicelib import bootstrap

    bootstrap.assemble()


@pytest.fixture(scope="session", autouse=True)
def _quick_password_hashes():
    """argon2id at its lowest cost: the same algorithm and checks as in production (each hash carries
    its parameters), without ~0.1-1 s per user created or signed in, which tests do thousands of times."""
    from argon2 import PasswordHasher

    from chalicelib.auth import passwords

    with pytest.MonkeyPatch.context() as patch:
        quick = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
        patch.setattr(passwords, "_hasher", lambda: quick)
        yield


@pytest.fixture(scope="session")
def lambda_package():
    """deployment.zip as `make package` builds and slims it (offline, tests/lambdapackage.py), beside its
    sam.json: built once for every test that reads it, and again only when its inputs change (read it,
    never change it)."""
    from infra import lean
    from tests import lambdapackage

    def make(folder):
        lean.slim(lambdapackage.build(folder / "project"))

    return lambdapackage.cached("offline", make) / "project" / "out" / "deployment.zip"


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
        from chalicelib import aws_adapters
        from chalicelib.channels import mail
        from chalicelib.store import schema

        aws_adapters.install()
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


@pytest.fixture(scope="session")
def memory_seeded():
    """The in-memory store right after a first start (default fields, administrator), built once."""
    from chalicelib import bootstrap
    from devstack.memory import MemoryStore

    store = MemoryStore()
    with over_memory(store):
        bootstrap.first_start()
        bootstrap.ensure_admin(*ADMIN)
    return store


@pytest.fixture(scope="session")
def verified_admin():
    """A function: trust the administrator's Basic credentials as verified (argon2id once a session),
    as the first request of a test would have verified them over the first-start state."""
    from chalicelib.auth import core, users

    admin = users.check_password(*ADMIN, None)
    encoded = base64.b64encode(f"{ADMIN[0]}:{ADMIN[1]}".encode()).decode()
    return lambda: core.remember_verified(encoded, admin)


@contextlib.contextmanager
def over_memory(store):
    """The store `store` and fresh in-memory adapters installed (HTTP and the SNS fetch the real ones:
    the tests' servers are on 127.0.0.1); AWS refused, so a stray call fails instead of reaching moto."""
    from botocore.client import BaseClient
    from pynamodb.connection.base import Connection

    from chalicelib import aws
    from chalicelib.channels import http, sns_https
    from chalicelib.ports import adapters
    from chalicelib.store import port
    from devstack.memory.adapters import memory_adapters

    def refuse(*args, **kwargs):
        raise AssertionError("a test over the in-memory adapters called AWS: mark it `aws` if it is about AWS")

    installed = memory_adapters(http=http, certificates=sns_https)
    previous_store, previous = port.use(store), adapters.install(installed)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(aws, "client", refuse)
        patch.setattr(Connection, "_make_api_call", refuse)
        patch.setattr(BaseClient, "_make_api_call", refuse)  # boto3 outside moto would reach AWS itself
        try:
            yield installed
        finally:
            port.use(previous_store)
            adapters.install(previous)


@pytest.fixture
def fresh(request):
    """Each test starts from the first-start state, over a copy of the in-memory store and fresh
    in-memory adapters; a test about AWS (`over_aws`) over moto's tables restored, with empty queues
    and an empty files bucket."""
    if over_aws(request.node):
        restore(request.getfixturevalue("seeded"))
        yield
        return
    seeded = request.getfixturevalue("memory_seeded")
    with over_memory(seeded.copy()):
        forget_process_state()
        request.getfixturevalue("verified_admin")()
        yield
        forget_process_state()


def forget_process_state():
    """Forget what the process keeps of an earlier test's store, and the local outbox's files."""
    from chalicelib import config
    from chalicelib.auth import core
    from chalicelib.domain.kernel import cached
    from chalicelib.domain.messaging import theme_html
    from chalicelib.domain.web import public_docs

    core.forget_verified()
    theme_html.forget()
    public_docs.forget()
    cached.forget()
    shutil.rmtree(config.active().OUTBOX_DIR, ignore_errors=True)


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
def chalice_app():
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
