"""API Gateway's REQUEST authorizer step, run locally before an `/api` route.

As on AWS: the gateway builds the REQUEST authorizer event (headers, query, path, request
context; no body), invokes the `api_authorizer` Lambda function of the app, evaluates the
returned IAM policy against the method ARN and hands the decision's context to the route as
`requestContext.authorizer`. Refusals are the gateway responses of `infra/resources.json`:
UNAUTHORIZED (the function raised `Unauthorized`, or the identity source is missing) and
ACCESS_DENIED (a Deny, its body the decision's `error`).

With `config.active().AUTHORIZER_CACHE_SECONDS` > 0 (the stack's AuthorizerCacheSeconds), decisions are
cached that long keyed by the identity source, the Authorization header, which every request
must then carry; with 0 the function runs for every request and sees every credential place.
"""

from __future__ import annotations

import fnmatch
import time
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from chalice.local import LambdaContext, LocalGatewayAuthorizer

from chalicelib import config
from chalicelib.api import errors

if TYPE_CHECKING:
    from chalice.app import Chalice

Event = dict[str, Any]  # a Lambda event (API Gateway's JSON)
Response = dict[str, Any]  # a gateway response: statusCode, headers, multiValueHeaders, body
Decision = dict[str, Any]  # the authorizer's answer: principalId, policyDocument, context

FUNCTION = "api_authorizer"
REGION, ACCOUNT, API_ID, STAGE = "us-east-1", "123456789012", "local", "api"
_decisions: dict[str | None, tuple[float, Decision]] = {}  # identity -> (expiry, decision)


class GatewayAnswer(Exception):
    """The gateway answers itself; the route is not invoked."""

    def __init__(self, response: Response) -> None:
        super().__init__(response["statusCode"])
        self.response = response


OPEN_PATHS = ("/api/openapi.json",)  # as infra/compact.py OPEN_PATHS: the API contract needs no credentials


def guarded(path: str) -> bool:
    """Whether API Gateway runs the authorizer before this route (every route under /api but OPEN_PATHS)."""
    return path.startswith("/api/") and path not in OPEN_PATHS


def forget() -> None:
    """Drop the cached decisions (tests)."""
    _decisions.clear()


class LocalRequestAuthorizer(LocalGatewayAuthorizer):
    """Chalice's local authorizer hook (`authorize(path, event, context)`) for our REQUEST authorizer."""

    def __init__(self, app_object: Chalice) -> None:
        super().__init__(app_object)
        self._function: Callable[[Event, LambdaContext], Decision] = app_object.handler_map[FUNCTION]

    def authorize(
        self, raw_path: str, lambda_event: Event, lambda_context: LambdaContext
    ) -> tuple[Event, LambdaContext]:
        """The event and context the route gets (`requestContext.authorizer` set), or a GatewayAnswer
        refusal; routes outside /api pass untouched."""
        context = lambda_event["requestContext"]
        context.update(requestId=lambda_context.aws_request_id, stage=STAGE)
        if not guarded(context["resourcePath"]):
            return lambda_event, lambda_context
        arn = method_arn(context["httpMethod"], context["path"])
        decision = self._decide(authorizer_event(lambda_event, arn), lambda_context)
        if not allowed(decision["policyDocument"], arn):
            raise GatewayAnswer(access_denied(decision.get("context") or {}))
        context["authorizer"] = dict(decision.get("context") or {}, principalId=decision["principalId"])
        return lambda_event, lambda_context

    def _decide(self, event: Event, lambda_context: LambdaContext) -> Decision:
        """The authorizer function's decision for the event, cached by identity when the stack caches."""
        seconds = config.active().AUTHORIZER_CACHE_SECONDS
        identity = (event["headers"].get("authorization") or "") if seconds else None
        if identity == "":
            raise GatewayAnswer(unauthorized())  # a missing identity source: the function is not called
        hit = _decisions.get(identity)
        if hit and hit[0] > time.monotonic():
            return hit[1]
        try:
            decision = self._function(event, lambda_context)
        except Exception as error:  # re-raised unless it is the Unauthorized refusal
            if str(error) != "Unauthorized":
                raise
            raise GatewayAnswer(unauthorized()) from None
        if seconds:
            _decisions[identity] = (time.monotonic() + seconds, decision)
        return decision


def method_arn(method: str, path: str) -> str:
    """The execute-api ARN API Gateway gives the authorizer for a request."""
    return f"arn:aws:execute-api:{REGION}:{ACCOUNT}:{API_ID}/{STAGE}/{method}{path}"


def authorizer_event(lambda_event: Event, arn: str) -> Event:
    """The event API Gateway sends a REQUEST authorizer for this request."""
    context = lambda_event["requestContext"]
    query = lambda_event.get("multiValueQueryStringParameters")
    headers = lambda_event["headers"]
    return {
        "type": "REQUEST",
        "methodArn": arn,
        "resource": context["resourcePath"],
        "path": context["path"],
        "httpMethod": context["httpMethod"],
        "headers": dict(headers),
        "multiValueHeaders": {name: [value] for name, value in headers.items()},
        "queryStringParameters": {k: v[-1] for k, v in query.items()} if query else None,
        "multiValueQueryStringParameters": query,
        "pathParameters": lambda_event.get("pathParameters"),
        "stageVariables": lambda_event.get("stageVariables"),
        "requestContext": dict(context, requestId=context.get("requestId") or str(uuid.uuid4())),
    }


def allowed(policy: Mapping[str, Any], arn: str) -> bool:
    """IAM evaluation of the returned policy for the method ARN: an explicit Deny wins, else an Allow."""
    effects = {
        statement["Effect"]
        for statement in policy["Statement"]
        if any(fnmatch.fnmatchcase(arn, resource) for resource in _list(statement["Resource"]))
    }
    return "Allow" in effects and "Deny" not in effects


def _list(value: str | list[str]) -> list[str]:
    """A policy field that holds one value or a list, as a list."""
    return value if isinstance(value, list) else [value]


def unauthorized() -> Response:
    """The UNAUTHORIZED gateway response (infra/resources.json)."""
    return _response(401, errors.no_credentials_json(), errors.challenge())


def access_denied(context: Mapping[str, Any]) -> Response:
    """The ACCESS_DENIED gateway response: the template `$context.authorizer.error`."""
    return _response(403, context.get("error", ""))


def _response(status: int, body: str, extra: Mapping[str, str] | None = None) -> Response:
    """A gateway response with our JSON error headers (and `extra`)."""
    return {
        "statusCode": status,
        "headers": dict(errors.headers(), **(extra or {})),
        "multiValueHeaders": {},
        "body": body,
    }
