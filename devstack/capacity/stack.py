"""The service in this process over moto, as the other benches run it: tables created and seeded
with the administrator, requests through the local gateway (our REQUEST authorizer included),
workers drained synchronously; the Lambda invocations each makes counted for the cost model."""

from __future__ import annotations

import base64
import json
import os
import tempfile
from collections import Counter
from typing import Any

ADMIN = ("admin", "capacity-secret")
BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"

for _name, _value in (
    ("STAGE", "local"),
    ("AWS_DEFAULT_REGION", "us-east-1"),
    ("AWS_ACCESS_KEY_ID", "capacity"),
    ("AWS_SECRET_ACCESS_KEY", "capacity"),
    ("EMAIL_SEND_RATE", "0"),  # the send limiter would only make the run wait
    ("SMS_SEND_RATE", "0"),
):
    os.environ.setdefault(_name, _value)
os.environ.pop("AWS_ENDPOINT_URL", None)
os.environ.setdefault("OUTBOX_DIR", tempfile.mkdtemp(prefix="capacity-outbox-"))


class Answer(Exception):
    """A request the workload expected to succeed was refused."""


class Stack:
    """The app over moto: `call` sends a request through the gateway, `drain` runs the workers;
    `invocations` counts the Lambda invocations (api, authorizer, worker batches)."""

    def __init__(self) -> None:
        from moto import mock_aws

        from chalicelib import config
        from devstack import patches
        from devstack.capacity import meter

        patches.install()
        meter.install(config.active().RESOURCE_PREFIX)  # before any botocore session exists
        self._mock = mock_aws()
        self._mock.start()
        self.invocations: Counter[str] = Counter()
        self._gateway = self._start()
        self._auth = "Basic " + base64.b64encode(f"{ADMIN[0]}:{ADMIN[1]}".encode()).decode()

    def _start(self) -> Any:
        from chalice.config import Config

        from chalicelib import aws_adapters, bootstrap, config, workers
        from chalicelib.auth import core
        from chalicelib.channels import mail
        from chalicelib.domain.kernel import cached
        from chalicelib.store import schema
        from devstack.capacity import meter
        from devstack.gateway import ApiGateway

        cached.forget()  # a workload before this one, over other tables, left cached kinds, versions and id blocks
        core.forget_verified()  # and verified credentials naming its users
        aws_adapters.install()
        schema.ensure_resources()
        mail.verify_sender(config.active().MAILER_FROM_EMAIL)
        bootstrap.first_start()
        bootstrap.ensure_admin(*ADMIN)
        consume = workers.consume

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.invocations["worker"] += 1  # one batch of a queue: one invocation of its function
            return consume(*args, **kwargs)

        workers.consume = counted
        from app import app

        gateway = ApiGateway(app, Config.create(chalice_stage="local", chalice_app=app))
        authorizer: Any = gateway._authorizer
        decide = authorizer._decide

        def deciding(*args: Any) -> Any:
            with meter.acting("authorizer"):  # on AWS another function: its own calls and duration
                return decide(*args)

        authorizer._decide = deciding
        return gateway

    def stop(self) -> None:
        """Leave moto."""
        self._mock.stop()

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        source_ip: str = "127.0.0.1",
    ) -> Any:
        """The JSON answer (or the raw body) of a request; raises Answer unless it succeeded."""
        from chalice.local import LambdaEventConverter

        from devstack.gateway.authorizer import guarded

        sent = dict(headers or {})
        if path.startswith("/api/"):
            sent.setdefault("Authorization", self._auth)
        if body is not None:
            sent["Content-Type"] = "application/json"
        LambdaEventConverter.LOCAL_SOURCE_IP = source_ip
        self.invocations["api"] += 1
        self.invocations["authorizer"] += guarded(path.split("?")[0])
        data = json.dumps(body).encode() if body is not None else b""
        response = self._gateway.handle_request(method=method, path=path, headers=sent, body=data)
        if response["statusCode"] >= 300:
            raise Answer(f"{method} {path}: {response['statusCode']} {str(response.get('body'))[:300]}")
        text = response.get("body") or ""
        is_json = str(response.get("headers", {}).get("Content-Type", "")).startswith("application/json")
        return json.loads(text) if is_json and text else text

    def drain(self) -> int:
        """Run the workers on everything queued, as SQS would; the messages handled."""
        from devstack import workers as local
        from devstack.capacity import meter

        with meter.acting("worker"):
            return local.drain()
