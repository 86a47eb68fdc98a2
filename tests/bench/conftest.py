"""Benchmark helpers: a JSON client authenticated as the administrator, a DynamoDB call counter."""

import base64
import json
import statistics
import threading
from collections import Counter
from contextlib import contextmanager
from unittest import mock

import botocore.client
import pytest

from tests.conftest import ADMIN

_original = botocore.client.BaseClient._make_api_call


@contextmanager
def dynamodb_calls(with_authorizer=False):
    """Count the API function's DynamoDB calls by operation name; the request authorizer's too with
    `with_authorizer` (on AWS it is another Lambda function)."""
    from chalicelib.api import authorizer

    calls, deciding = Counter(), threading.local()
    decide = authorizer.decide

    def counting(self, operation, params):
        if self.meta.service_model.service_name == "dynamodb" and (
            with_authorizer or not getattr(deciding, "now", False)
        ):
            calls[operation] += 1
        return _original(self, operation, params)

    def uncounted(event):
        deciding.now = True
        try:
            return decide(event)
        finally:
            deciding.now = False

    with (
        mock.patch.object(botocore.client.BaseClient, "_make_api_call", counting),
        mock.patch.object(authorizer, "decide", uncounted),
    ):
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
