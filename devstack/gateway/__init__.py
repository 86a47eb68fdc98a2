"""API Gateway as run locally (devserver, tests): the service's answer to unknown paths, and the
REQUEST Lambda authorizer before every `/api` route (`gateway/authorizer.py`).

Chalice's local gateway answers an unknown path with a 403 "Missing Authentication Token";
on AWS the GatewayResponse in infra/resources.json turns that into our JSON 404, and so does
this subclass locally. Chalice also reports every caller as 127.0.0.1; the devserver builds a gateway
per connection with the socket's peer address, which it reports as API Gateway does
(`requestContext.identity.sourceIp`), so per-address limits are per address locally too.
"""

import json
import logging
from typing import Any

from chalice.app import Chalice
from chalice.config import Config
from chalice.local import LocalGateway

from chalicelib import aws, config
from chalicelib.api import errors
from devstack.gateway.authorizer import GatewayAnswer, LocalRequestAuthorizer

log = logging.getLogger(__name__)


class ApiGateway(LocalGateway):
    """Chalice's local gateway with API Gateway's answer to unknown paths and our REQUEST authorizer."""

    def __init__(self, app_object: Chalice, config: Config, source_ip: str | None = None) -> None:
        super().__init__(app_object, config)
        self._authorizer = LocalRequestAuthorizer(app_object)
        if source_ip is not None:  # this gateway's converter only: the class's stays chalice's (tests set it)
            self.event_converter.LOCAL_SOURCE_IP = source_ip

    def handle_request(self, method: str, path: str, headers: dict[str, Any], body: bytes | None) -> dict[str, Any]:
        """The gateway's answer: our JSON 404 for an unknown path, a refusal of the authorizer, or the route's."""
        try:
            self.event_converter._route_matcher.match_route(path)
        except ValueError:
            return {
                "statusCode": 404,
                "headers": errors.headers(),
                "multiValueHeaders": {},
                "body": errors.not_found_path_json(),
            }
        try:
            return super().handle_request(method, path, headers, body)
        except GatewayAnswer as answer:
            return answer.response
        except Exception as error:  # noqa: BLE001 - the authorizer failed: an answer, never a closed connection
            return failed(error)


def request_too_large() -> dict[str, Any]:
    """API Gateway's answer to a body over its 10 MB quota (REQUEST_TOO_LARGE, infra/), given before the
    body is read (`devstack/server.py`)."""
    return {
        "statusCode": 413,
        "headers": errors.headers(),
        "multiValueHeaders": {},
        "body": errors.request_too_large_json(),
    }


def failed(error: BaseException) -> dict[str, Any]:
    """API Gateway's answer when the authorizer function failed: our JSON 503 with Retry-After when
    AWS was unavailable (as the routes answer), else a JSON 500 (AUTHORIZER_FAILURE, infra/)."""
    if aws.unavailable(error):
        status, message, extra = 503, errors.UNAVAILABLE, {"Retry-After": str(config.active().RETRY_AFTER_SECONDS)}
    else:
        log.error("the authorizer failed", exc_info=error)
        status, message, extra = 500, errors.UNEXPECTED, {}
    return {
        "statusCode": status,
        "headers": dict(errors.headers(), **extra),
        "multiValueHeaders": {},
        "body": json.dumps(errors.body(status, message)),
    }
