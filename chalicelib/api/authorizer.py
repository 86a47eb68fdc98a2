"""The REQUEST Lambda authorizer of the `/api` routes: API Gateway calls it on AWS, the local
gateway (`devstack/gateway/`) calls it the same way before the route.

It runs the one auth core (`auth/core.py` `authenticate`) on what a REQUEST authorizer sees
(headers, query, path; never the body) and answers with an IAM policy and a context:
- Allow with the caller (`userId`, `clientId`, `scheme`, `user`, `settingsVersion`,
  `revocationsVersion`, `requestId`): the API function trusts it while both versions hold and
  skips its own check;
- Deny (a 403 of the API or Basic switch) with the error document in `error`: API Gateway's
  ACCESS_DENIED response renders it, so the client sees today's 403;
- the error `Unauthorized` when the request carries no credential at all: API Gateway's
  UNAUTHORIZED response is today's 401 `API authorization denied.`;
- Allow with `refusal` (status, headers, body) for the other refusals (400, the 401s of bad
  credentials with their scheme's challenge, 429), which a gateway response cannot carry
  exactly: the API function answers them without running the route handler;
- Allow with scheme `deferred` when the credential may be in the body the authorizer cannot see:
  an OAuth1a signature of a form-encoded request (its base string covers the body) or no
  credential but a form body (`access_token` field). The API function then checks in process.
"""

import json
from typing import Any

from chalice.app import Request

from chalicelib import observe
from chalicelib.api.errors import ApiError
from chalicelib.api.errors import body as error_body
from chalicelib.api.request import FORM, ApiRequest
from chalicelib.auth import clients, core, settings
from chalicelib.auth.errors import AuthError
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.types import Doc

UNAUTHORIZED = "Unauthorized"  # the error message API Gateway turns into its 401
DEFERRED = "deferred"


def handler(event: Doc, context: object = None) -> Doc:
    """The authorizer's Lambda handler: the policy document API Gateway expects."""
    observe.begin(
        getattr(context, "aws_request_id", None), apiRequestId=(event.get("requestContext") or {}).get("requestId")
    )
    effect, decision = decide(event)
    observe.identify({"user": decision.get("userId"), "client": decision.get("clientId") or None})
    return {
        "principalId": str(decision.get("userId", "anonymous")),
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [
                {"Action": "execute-api:Invoke", "Effect": effect, "Resource": api_resources(event["methodArn"])}
            ],
        },
        "context": decision,
    }


def api_resources(method_arn: str) -> str:
    """Every method under `/api` of the stage: a cached decision serves any route."""
    api, _, _ = method_arn.partition("/")
    stage = method_arn.split("/")[1]
    return f"{api}/{stage}/*/api/*"


def decide(event: Doc) -> tuple[str, dict[str, Any]]:
    """(effect, context) for an API Gateway REQUEST authorizer event; raises Exception("Unauthorized")."""
    settings.ensure_once()
    ctx = Context()
    request_id = (event.get("requestContext") or {}).get("requestId", "")
    try:
        request = ApiRequest(Request(dict(event, body=None, isBase64Encoded=False)))
        header = (request.headers.get("authorization") or "").strip()
        if _body_may_hold_credentials(request, header):
            return "Allow", {"scheme": DEFERRED, "requestId": request_id}
        user = core.authenticate(request, ctx)
    except AuthError as error:
        return _refused(error, header or request.query.get("access_token"))
    except ApiError as error:  # a query the PHP notation cannot read
        return "Allow", _refusal(error.status, {}, error_body(error.status, error.message, error.details))
    scheme = header.partition(" ")[0] if header else "Bearer"
    return "Allow", {
        "userId": user["id"],
        "clientId": user.get("clientId") or "",
        "scheme": scheme,
        "user": json.dumps(core.public_user(user)),
        "requestId": request_id,
        "settingsVersion": settings.version(ctx),
        "revocationsVersion": clients.revocations_version(ctx),
    }


def _body_may_hold_credentials(request: ApiRequest, header: str) -> bool:
    """Whether the credential may be in the form body the authorizer cannot see."""
    form = request.method != "GET" and request.content_type == FORM
    return form and (header.startswith("OAuth ") or not (header or request.query.get("access_token")))


def _refused(error: AuthError, credentials: str | None) -> tuple[str, Doc]:
    """The decision for a refusal: Deny for a 403, `Unauthorized` for no credential, else a refusal the API answers."""
    document = error_body(error.status, error.message, error_type=error.type, with_details=False)
    if error.status == 403:
        return "Deny", {"error": json.dumps(document, separators=(",", ":"))}
    if error.status == 401 and not credentials:
        raise Exception(UNAUTHORIZED)
    return "Allow", _refusal(error.status, error.headers, document)


def _refusal(status: int, headers: dict[str, str], document: Doc) -> Doc:
    """The context of a refusal the API function answers as it stands (status, headers, body)."""
    return {"refusal": json.dumps({"status": status, "headers": headers, "body": document})}


def caller(request: ApiRequest, ctx: Context) -> Doc:
    """The user of an `/api` request: the authorizer's decision when it made one this function can
    trust, else the in-process check (AuthError/ApiError on refusal).

    The in-process check runs when there is no decision (routes without the authorizer), when the
    authorizer deferred to it, when the API settings changed since a cached decision (the API and
    Basic switches apply at once), when the revocation list changed since (a user deleted,
    disabled, given a new password or another role, a client or token family revoked: at once,
    not when the gateway's cache expires), and for an OAuth1a decision made for another request: a
    signed request is single-use, so a cached decision for it is a replay that the nonce refuses.
    """
    granted = (request.raw.context or {}).get("authorizer") or {}
    if "refusal" in granted:
        refusal = json.loads(granted["refusal"])
        (item,) = refusal["body"]["errors"]
        raise ApiError(
            refusal["status"],
            item["message"],
            item.get("details"),
            item["type"],
            refusal["headers"],
            with_details="details" in item,
        )
    if "userId" not in granted or not _still_valid(granted, request, ctx):
        return core.authenticate(request, ctx)
    ctx.client = granted.get("clientId") or None
    return json.loads(granted["user"])


def _still_valid(granted: Doc, request: ApiRequest, ctx: Context) -> bool:
    """Whether an Allow decision still holds: same settings and revocations versions, and not an
    OAuth1a decision made for another request."""
    if granted["scheme"] == "OAuth" and granted.get("requestId") != (request.raw.context or {}).get("requestId"):
        return False
    return str(granted.get("settingsVersion")) == str(settings.version(ctx)) and str(
        granted.get("revocationsVersion")
    ) == str(clients.revocations_version(ctx))
