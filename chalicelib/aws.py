"""AWS clients by service name, one per process, created on first use (boto3 loads then, not when
the function starts), configured for AWS's throttling; and which failures mean "AWS is unavailable
for now" (answered 503 with Retry-After by the API, retried by SQS in workers: docs/reliability.md)."""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from chalicelib import config

_clients: dict[str, Any] = {}  # boto3 clients: boto3 ships no types
# Calls that only read (by operation name): every other call is a write that may have been applied.
READ_OPERATIONS = ("Get", "BatchGet", "TransactGet", "Query", "Scan", "Describe", "List", "Head", "Receive")
# How many write calls of this request (or worker step: a context) may have been applied: counted
# before the call is sent, taken back when AWS refused it (a 4xx answer applies nothing).
_writes: ContextVar[int] = ContextVar("aws_writes", default=0)
_harmless: ContextVar[bool] = ContextVar("aws_harmless", default=False)

# Error codes of a dependency that is throttling or failing for now, once the SDK's retries are
# spent: DynamoDB, SES (`Throttling`: the account's max send rate), SQS, SNS, S3.
TRANSIENT_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "Throttling",
        "ThrottledException",
        "RequestThrottled",
        "RequestThrottledException",
        "TooManyRequestsException",
        "RequestLimitExceeded",
        "LimitExceededException",
        "TransactionInProgressException",
        "InternalServerError",
        "InternalFailure",
        "InternalError",
        "ServiceUnavailable",
        "ServiceUnavailableException",
        "SlowDown",
        "AWS.SimpleQueueService.ServiceUnavailable",
        "KMS.ThrottlingException",
    }
)
# botocore's exceptions of a connection that failed or timed out (past its retries).
TRANSIENT_CLASSES = frozenset(
    {
        "EndpointConnectionError",
        "ConnectTimeoutError",
        "ReadTimeoutError",
        "ConnectionClosedError",
        "HTTPClientError",
        "ProxyConnectionError",
    }
)


def retry_config(service: str) -> Any:
    """The botocore Config of `service`: its retry mode and attempts (config.active().AWS_RETRIES) and timeouts."""
    from botocore.config import Config

    mode, attempts = config.active().AWS_RETRIES.get(service, config.active().AWS_RETRIES["default"])
    return Config(
        retries={"mode": mode, "total_max_attempts": attempts},  # the first call included
        connect_timeout=config.active().AWS_CONNECT_TIMEOUT,
        read_timeout=config.active().AWS_READ_TIMEOUT,
    )


def client(service: str) -> Any:
    """The boto3 client of `service` ("sqs", "s3", "ses", "sns") in the service's region."""
    if service not in _clients:
        import boto3  # with s3transfer and multiprocessing: paid by the first call, not by every cold start

        _clients[service] = watch(
            boto3.client(service, region_name=config.active().AWS_REGION, config=retry_config(service))
        )
    return _clients[service]


def watch(botocore_client: Any) -> Any:
    """The client, its write calls counted in `writes()` (once per client)."""
    events = botocore_client.meta.events
    if not getattr(botocore_client, "_writes_watched", False):
        events.register("before-call.*.*", _before_call)
        events.register("after-call.*.*", _after_call)
        botocore_client._writes_watched = True
    return botocore_client


def watch_session(session: Any) -> Any:
    """The botocore session, the write calls of every client it creates counted in `writes()`
    (PynamoDB opens its clients from sessions: store/models.py)."""
    session.register("before-call.*.*", _before_call)
    session.register("after-call.*.*", _after_call)
    return session


def writes() -> int:
    """How many write calls of this context may have been applied so far (compare two readings)."""
    return _writes.get()


@contextmanager
def harmless() -> Iterator[None]:
    """The write calls made inside are not counted in `writes()`: repeating them does no harm
    (reserving ids: a gap)."""
    token = _harmless.set(True)
    try:
        yield
    finally:
        _harmless.reset(token)


def _is_write(model: Any) -> bool:
    return not _harmless.get() and not str(model.name).startswith(READ_OPERATIONS)


def _before_call(model: Any, **_kwargs: Any) -> None:
    if _is_write(model):
        _writes.set(_writes.get() + 1)


def _after_call(model: Any, http_response: Any = None, **_kwargs: Any) -> None:
    status = int(getattr(http_response, "status_code", 0) or 0)
    if _is_write(model) and 400 <= status < 500:
        _writes.set(_writes.get() - 1)  # refused (throttled, a failed condition): nothing applied


def error_code(error: BaseException) -> str | None:
    """The AWS error code of a botocore ClientError or of a PynamoDB error wrapping one."""
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        code = (response.get("Error") or {}).get("Code")
        return str(code) if code else None
    code = getattr(error, "cause_response_code", None)
    return str(code) if code else None


def unavailable(error: BaseException | None) -> bool:
    """Whether the failure (or one it was raised from) is AWS throttling or failing for now, not a
    bug: a transient code, an HTTP status of 500 or more, a connection that failed, or a DynamoDB
    transaction cancelled only because another one held an item of it at that instant."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if error_code(error) in TRANSIENT_CODES or _server_status(error) >= 500 or _transaction_conflict(error):
            return True
        if type(error).__name__ in TRANSIENT_CLASSES and type(error).__module__.startswith("botocore"):
            return True
        error = getattr(error, "cause", None) or error.__cause__ or error.__context__
    return False


def _transaction_conflict(error: BaseException) -> bool:
    """A TransactionCanceledException whose only reason is `TransactionConflict`: two transactions met
    on one shared item (a `count#<kind>`, the `versions` item), no condition failed; trying again later
    succeeds (docs/reliability.md)."""
    response = getattr(error, "response", None)
    if not isinstance(response, dict) or error_code(error) != "TransactionCanceledException":
        return False
    codes = {str(reason.get("Code")) for reason in response.get("CancellationReasons") or ()} - {"None"}
    return codes == {"TransactionConflict"}


def _server_status(error: BaseException) -> int:
    """The HTTP status of a ClientError's response (0 when it has none)."""
    response = getattr(error, "response", None)
    if not isinstance(response, dict):
        return 0
    return int((response.get("ResponseMetadata") or {}).get("HTTPStatusCode") or 0)
