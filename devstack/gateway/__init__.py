"""API Gateway as run locally (devserver, tests): the service's answer to unknown paths, and the
REQUEST Lambda authorizer before every `/api` route (`gateway/authorizer.py`).

Chalice's local gateway answers an unknown path with a 403 "Missing Authentication Token";
on AWS the GatewayResponse in infra/resources.json turns that into our JSON 404, and so does
this subclass locally.
"""

from typing import Any

from chalice.app import Chalice
from chalice.config import Config
from chalice.local import LocalGateway

from chalicelib.api import errors
from devstack.gateway.authorizer import GatewayAnswer, LocalRequestAuthorizer


class ApiGateway(LocalGateway):
    """Chalice's local gateway with API Gateway's answer to unknown paths and our REQUEST authorizer."""

    def __init__(self, app_object: Chalice, config: Config) -> None:
        super().__init__(app_object, config)
        self._authorizer = LocalRequestAuthorizer(app_object)

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
