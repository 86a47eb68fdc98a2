"""One moto mock for the whole session; tables emptied and defaults re-seeded for each test."""
import base64
import copy
import json
import os
import shutil
import tempfile

os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("STAGE", "local")
os.environ.pop("AWS_ENDPOINT_URL", None)
os.environ.setdefault("OUTBOX_DIR", tempfile.mkdtemp(prefix="mautic-outbox-"))
os.environ.setdefault("EMAIL_SEND_RATE", "1000")

import pytest  # noqa: E402
from moto import mock_aws  # noqa: E402

ADMIN = ("admin", "admin-secret")


@pytest.fixture(scope="session")
def aws():
    from chalicelib.store import localaws
    localaws.install()
    with mock_aws():
        from chalicelib import config
        from chalicelib.channels import mail
        from chalicelib.store import schema
        schema.ensure_resources()
        mail.verify_sender(config.MAILER_FROM_EMAIL)
        yield


def _moto_tables():
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends
    return dynamodb_backends[DEFAULT_ACCOUNT_ID][os.environ["AWS_DEFAULT_REGION"]].tables


@pytest.fixture(scope="session")
def seeded(aws):
    """The tables right after a first start (default fields, administrator), seeded once and
    kept as copies of moto's in-memory tables: restoring them is much faster than re-writing."""
    from chalicelib import bootstrap
    bootstrap.first_start()
    bootstrap.ensure_admin(*ADMIN)
    return copy.deepcopy(dict(_moto_tables()))


def _empty_queues():
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.sqs.models import sqs_backends
    for queue in sqs_backends[DEFAULT_ACCOUNT_ID][os.environ["AWS_DEFAULT_REGION"]].queues.values():
        queue._messages.clear()  # PurgeQueue is limited to once a minute
        queue._pending_messages.clear()


def _empty_outboxes():
    """Forget the messages SES and SNS accepted and the local outbox files."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.ses.models import ses_backends
    from moto.sns.models import sns_backends

    from chalicelib import config
    region = os.environ["AWS_DEFAULT_REGION"]
    ses_backends[DEFAULT_ACCOUNT_ID][region].sent_messages.clear()
    sns_backends[DEFAULT_ACCOUNT_ID][region].sms_messages.clear()
    shutil.rmtree(config.OUTBOX_DIR, ignore_errors=True)


def _empty_bucket():
    import boto3

    from chalicelib import config
    boto3.resource("s3", region_name=config.AWS_REGION).Bucket(config.FILES_BUCKET).objects.all().delete()


@pytest.fixture
def fresh(seeded):
    """Each test starts from the first-start state with empty queues and an empty files bucket."""
    from chalicelib.auth import core
    from chalicelib.domain.kernel import cached
    _moto_tables().update(copy.deepcopy(seeded))
    core._verified.clear()  # Basic credentials verified by an earlier test name its users
    _empty_queues()
    _empty_bucket()
    _empty_outboxes()
    cached.forget()
    yield


@pytest.fixture
def drain(fresh):
    """drain(): run the workers on everything queued until the queues are empty (as SQS would)."""
    from chalicelib.workers import local
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

    from chalicelib.gateway import ApiGateway
    client = Client(chalice_app, stage_name="local")
    # Our gateway answers unknown paths with the JSON 404 that API Gateway gives on AWS.
    client.http._local_gateway = ApiGateway(chalice_app, client.http._config)
    return client.http


@pytest.fixture
def source_ip(monkeypatch):
    """source_ip(address): the caller's address the local gateway reports from now on (API
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
