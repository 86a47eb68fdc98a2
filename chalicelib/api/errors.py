"""Errors as JSON: `{"errors": [{"code", "message", "details", "type"}]}` with the HTTP status."""

import json
from typing import Any

from chalicelib import config
from chalicelib.auth.errors import BEARER_CHALLENGE, NO_CREDENTIALS


class ApiError(Exception):
    """A failure decided by the HTTP layer (routing, parsing, authentication)."""

    def __init__(
        self,
        status: int,
        message: str,
        details: Any = None,
        error_type: str | None = None,
        headers: dict[str, str] | None = None,
        with_details: bool = True,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.details = details if details is not None else []
        self.type = error_type
        self.headers = headers or {}
        self.with_details = with_details


def body(
    status: int, message: str, details: Any = None, error_type: str | None = None, with_details: bool = True
) -> dict[str, Any]:
    """The error document for one failure."""
    item: dict[str, Any] = {"code": status, "message": message}
    if with_details:
        item["details"] = details if details is not None else []
    item["type"] = error_type
    return {"errors": [item]}


UNEXPECTED = (
    "Looks like I encountered an error (error #500). If I do it again, please report me to the system administrator!"
)
UNAVAILABLE = "The service is busy or briefly unavailable; please retry after the number of seconds in Retry-After."
NOT_FOUND_PATH = body(404, "The requested URL was not found on this server.")


def unavailable_json() -> str:
    """The body of a 503 (AWS unavailable past retries), as routing answers it and as API Gateway
    answers an authorizer or a Lambda invocation that failed (infra/: AUTHORIZER_FAILURE,
    INTEGRATION_FAILURE)."""
    return json.dumps(body(503, UNAVAILABLE))


def not_found_path_json() -> str:
    """The body answered for an unknown path, locally and by API Gateway (see infra/)."""
    return json.dumps(NOT_FOUND_PATH)


GATEWAY_BODY_MAX_BYTES = 10 * 1024 * 1024  # API Gateway's payload quota: a larger request never reaches a function
TOO_LARGE_FOR_GATEWAY = "The request body is larger than the 10 MB the API takes."


def request_too_large_json() -> str:
    """The 413 of a body over API Gateway's quota, locally and by API Gateway (REQUEST_TOO_LARGE, see infra/)."""
    return json.dumps(body(413, TOO_LARGE_FOR_GATEWAY, {"body": [TOO_LARGE_FOR_GATEWAY]}))


def no_credentials_json() -> str:
    """The 401 of a request without credentials, locally and by API Gateway (UNAUTHORIZED, see infra/)."""
    return json.dumps(body(401, NO_CREDENTIALS, error_type="access_denied", with_details=False))


def challenge() -> dict[str, str]:
    """The WWW-Authenticate header of that 401."""
    return dict(BEARER_CHALLENGE)


def headers() -> dict[str, str]:
    """The headers of every JSON answer: its type and the Mautic version clients check."""
    return {"Content-Type": "application/json", "Mautic-Version": config.MAUTIC_VERSION}
