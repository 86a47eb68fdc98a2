"""Issue 30, honest answers: an AWS dependency still throttled or failing after the SDK's retries
answers 503 with Retry-After and the JSON error envelope, never a 500 (routes and the local
gateway's authorizer alike); the SDK's clients carry the documented retry settings."""

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError
from pynamodb.exceptions import GetError

from chalicelib import aws, config
from chalicelib.api import authorizer
from chalicelib.store import entities, models
from devstack.gateway import authorizer as gateway

pytestmark = pytest.mark.aws  # about AWS itself: over moto


def _client_error(code, status=400, operation="GetItem"):
    return ClientError(
        {"Error": {"Code": code, "Message": code}, "ResponseMetadata": {"HTTPStatusCode": status}}, operation
    )


TRANSIENT = [
    _client_error("ProvisionedThroughputExceededException"),
    _client_error("ThrottlingException"),
    _client_error("RequestLimitExceeded"),
    _client_error("InternalServerError", 500),
    _client_error("ServiceUnavailable", 503),
    _client_error("Throttling", 400, "SendEmail"),  # SES: Maximum sending rate exceeded
    _client_error("AWS.SimpleQueueService.ServiceUnavailable", 503, "SendMessageBatch"),
    EndpointConnectionError(endpoint_url="https://dynamodb.us-east-1.amazonaws.com"),
    ReadTimeoutError(endpoint_url="https://sqs.us-east-1.amazonaws.com"),
]


@pytest.mark.parametrize("error", TRANSIENT, ids=lambda e: type(e).__name__ + ":" + str(aws.error_code(e)))
def test_honest_answers_transient_errors_are_recognised(error):
    assert aws.unavailable(error)
    wrapped = GetError("Failed to get item", cause=error)  # as PynamoDB raises it
    assert aws.unavailable(wrapped)


def test_honest_answers_a_bug_is_not_unavailability():
    assert not aws.unavailable(_client_error("ValidationException"))
    assert not aws.unavailable(KeyError("x"))


@pytest.mark.parametrize("error", TRANSIENT[:1] + TRANSIENT[5:8], ids=str)
def test_honest_answers_a_route_answers_503_with_retry_after(api, monkeypatch, error):
    def failing(*args, **kwargs):
        raise GetError("Failed to get item", cause=error)

    monkeypatch.setattr(entities.Entity, "get", failing)
    monkeypatch.setattr(entities.Entity, "batch_get", failing)
    response = api.get("/api/contacts/1")
    assert response.status_code == 503
    assert response.headers["Retry-After"] == str(config.active().RETRY_AFTER_SECONDS)
    assert response.json_body["errors"][0]["code"] == 503
    assert set(response.json_body["errors"][0]) == {"code", "message", "details", "type"}


def test_honest_answers_the_local_gateway_answers_an_authorizer_failure(api, monkeypatch):
    gateway.forget()
    monkeypatch.setattr(authorizer, "handler", lambda event, context=None: (_ for _ in ()).throw(TRANSIENT[0]))
    response = api.get("/api/contacts")
    assert response.status_code == 503 and response.headers["Retry-After"]
    assert response.json_body["errors"][0]["code"] == 503
    monkeypatch.setattr(authorizer, "handler", lambda event, context=None: (_ for _ in ()).throw(RuntimeError("bug")))
    response = api.get("/api/contacts")
    assert response.status_code == 500 and response.json_body["errors"][0]["code"] == 500
    gateway.forget()


def test_honest_answers_the_sdk_clients_carry_the_retry_settings():
    for service in ("sqs", "ses", "s3"):
        retries = aws.client(service).meta.config.retries
        mode, attempts = config.active().AWS_RETRIES[service]
        assert retries["mode"] == mode and retries["total_max_attempts"] == attempts
    assert models.Entity.Meta.max_retry_attempts + 1 == config.active().AWS_RETRIES["dynamodb"][1]
    assert models.Entity.Meta.read_timeout_seconds == config.active().AWS_READ_TIMEOUT
