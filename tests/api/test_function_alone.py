"""Each function as Lambda runs it: a fresh process that imports `app` and calls one handler, against
a moto server on 127.0.0.1 seeded by another process (issue 43: a function imports only what it
needs, so what it needs must be enough). The request authorizer decides a Basic request without
the wiring (no capability imported); a worker handles its queue's message with the wiring
installed by `workers.HANDLERS` on first lookup."""

import base64
import json
import subprocess
import sys

import pytest

from tests.bench.test_cold_start import ROOT, server_env

SEED = """
import os
from chalicelib import config
config.install(config.Settings.from_environment(os.environ))
from chalicelib import aws_adapters, bootstrap
aws_adapters.install()
from chalicelib.store import schema
schema.ensure_resources()
bootstrap.first_start()
bootstrap.ensure_admin("admin", "admin-secret")
"""
AUTHORIZE = """
import json, sys
import app
event = json.loads(sys.argv[1])
decision = app.api_authorizer(event, None)
print(json.dumps({"decision": decision, "wiring": "chalicelib.domain.wiring" in sys.modules,
                  "capabilities": sorted(m for m in sys.modules if m.startswith("chalicelib.domain.")
                                         and m.split(".")[2] != "kernel")}))
"""


@pytest.fixture(scope="module")
def server():
    from moto.server import ThreadedMotoServer

    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    moto.start()
    try:
        env = dict(server_env(*moto.get_host_and_port()), BASIC_AUTH_ENABLED="1")
        subprocess.run([sys.executable, "-c", SEED], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        yield env
    finally:
        moto.stop()


def _event(authorization):
    return {
        "type": "REQUEST",
        "methodArn": "arn:aws:execute-api:us-east-1:1:abc/api/GET/api/contacts",
        "headers": {"Authorization": authorization},
        "multiValueQueryStringParameters": None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "httpMethod": "GET",
            "resourcePath": "/api/contacts",
            "path": "/api/contacts",
            "requestId": "r-1",
            "identity": {"sourceIp": "203.0.113.9"},
        },
    }


@pytest.mark.parametrize(("password", "effect"), [("admin-secret", "Allow"), ("wrong", "Allow")])
def test_the_authorizer_decides_without_the_wiring(server, password, effect):
    basic = "Basic " + base64.b64encode(f"admin:{password}".encode()).decode()
    run = subprocess.run(
        [sys.executable, "-c", AUTHORIZE, json.dumps(_event(basic))],
        cwd=ROOT,
        env=server,
        capture_output=True,
        text=True,
        check=True,
    )
    answer = json.loads(run.stdout.splitlines()[-1])
    (statement,) = answer["decision"]["policyDocument"]["Statement"]
    assert statement["Effect"] == effect
    context = answer["decision"]["context"]
    if password == "admin-secret":
        assert json.loads(context["user"])["username"] == "admin" and context["scheme"] == "Basic"
    else:
        assert json.loads(context["refusal"])["status"] == 401
    assert answer["wiring"] is False and answer["capabilities"] == []


JOBS = """
import json, sys
import app
event = {"version": "0", "id": "e-1", "detail-type": "Scheduled Event", "source": "aws.events", "account": "1",
         "time": "2026-11-28T00:00:00Z", "region": "us-east-1", "resources": [], "detail": {}}
getattr(app, sys.argv[1])(event, None)
print(json.dumps({"wiring": "chalicelib.domain.wiring" in sys.modules,
                  "routes": sorted(m for m in sys.modules if m.startswith("chalicelib.api."))}))
"""


@pytest.mark.parametrize("function", ["every_minute", "every_hour"])
def test_the_schedules_run_their_jobs_with_the_wiring_and_no_route(server, function):
    run = subprocess.run(
        [sys.executable, "-c", JOBS, function], cwd=ROOT, env=server, capture_output=True, text=True, check=True
    )
    answer = json.loads(run.stdout.splitlines()[-1])
    assert answer["wiring"] is True
    assert answer["routes"] == ["chalicelib.api.errors", "chalicelib.api.path_routing"]
