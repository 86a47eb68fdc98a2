"""Fault injection (issue 30, docs/reliability.md): with FAULT_RATE set (a share, e.g. 0.03; off by
default), that share of AWS calls fails as AWS fails once the SDK's retries are spent: throttling,
SES's max send rate, internal errors, per service with their real error codes. Installed by the
local stack (`make run`, `make chaos`) and the tests; never on Lambda."""

import os
import random
from collections.abc import Callable
from typing import Any

from botocore.client import BaseClient
from botocore.exceptions import ClientError

# (error code, HTTP status) a failing call of each service raises.
ERRORS: dict[str, list[tuple[str, int]]] = {
    "dynamodb": [
        ("ProvisionedThroughputExceededException", 400),
        ("ThrottlingException", 400),
        ("RequestLimitExceeded", 400),
        ("InternalServerError", 500),
    ],
    "ses": [("Throttling", 400), ("ServiceUnavailable", 503)],
    "sesv2": [("TooManyRequestsException", 429)],
    "sqs": [("AWS.SimpleQueueService.ServiceUnavailable", 503), ("RequestThrottled", 400)],
    "sns": [("Throttling", 400), ("InternalError", 500)],
}
_state: dict[str, Any] = {"rate": 0.0, "random": random.Random(), "original": None, "failed": 0}


def rate_from_environment() -> float:
    """FAULT_RATE as a share (0 when unset)."""
    return float(os.environ.get("FAULT_RATE") or 0)


def install(rate: float, seed: int | None = None) -> None:
    """Make `rate` of the AWS calls of the services in ERRORS fail from now on (0: none)."""
    _state["rate"] = rate
    _state["random"] = random.Random(seed)
    if _state["original"] is None:
        original: Callable[..., Any] = BaseClient._make_api_call
        _state["original"] = original
        setattr(BaseClient, "_make_api_call", _maybe_failing(original))  # noqa: B010 - a patch, once


def stop() -> None:
    """No more faults (the hook stays, at rate 0)."""
    _state["rate"] = 0.0


def failed() -> int:
    """How many calls were made to fail so far."""
    return int(_state["failed"])


def _maybe_failing(original: Callable[..., Any]) -> Callable[..., Any]:
    def call(client: BaseClient, operation: str, params: Any) -> Any:
        service = client.meta.service_model.service_name
        choices = ERRORS.get(service)
        if choices and _state["rate"] and _state["random"].random() < _state["rate"]:
            _state["failed"] += 1
            code, status = _state["random"].choice(choices)
            response = {
                "Error": {"Code": code, "Message": f"Injected fault ({code})"},
                "ResponseMetadata": {"HTTPStatusCode": status},
            }
            raise ClientError(response, operation)
        return original(client, operation, params)

    return call
