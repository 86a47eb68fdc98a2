"""Benchmark helpers: a JSON client authenticated as the administrator, a DynamoDB call counter."""

import base64
import json
import statistics
from collections import Counter
from contextlib import contextmanager

import pytest

from tests.conftest import ADMIN
from tests.round_trips import api_calls


@contextmanager
def dynamodb_calls(with_authorizer=False):
    """Count the API function's DynamoDB calls by operation name; the request authorizer's too with
    `with_authorizer` (on AWS it is another Lambda function). Over the in-memory store there are no
    DynamoDB calls to count: a benchmark that counts them must run over moto (mark it `aws`;
    `api_calls` refuses otherwise)."""
    calls = Counter()

    def counting(call, client, operation, params):
        if client.meta.service_model.service_name == "dynamodb":
            calls[operation] += 1
        return call(client, operation, params)

    with api_calls(counting, with_authorizer):
        yield calls


def percentile(values, percent):
    """The `percent`th percentile (1 to 99) of at least two values."""
    return statistics.quantiles(values, n=100, method="inclusive")[percent - 1]


@pytest.fixture
def http(chalice_app, fresh):
    """call(method, path, body) -> parsed JSON; asserts a 2xx answer."""
    from chalice.test import Client

    client = Client(chalice_app)
    token = base64.b64encode(f"{ADMIN[0]}:{ADMIN[1]}".encode()).decode()
    headers = {"Authorization": f"Basic {token}", "Content-Type": "application/json"}

    def call(method, path, body=None):
        response = client.http.request(method, path, headers=headers, body=json.dumps(body).encode() if body else b"")
        assert response.status_code < 300, (path, response.body[:300])
        return json.loads(response.body)

    call("GET", "/api/contacts")  # warm the credential cache
    return call
