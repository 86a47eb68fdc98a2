"""Finish chalice's CloudFormation template (`python -m infra.compact sam.json`): wire every
function to the service's resources, replace chalice's path per route by three proxy resources
(`proxy`), declare every media type binary (`binary`: bytes answered whatever the Accept header),
guard the `/api` ones with the REQUEST authorizer (`ApiAuthorizer`, declared in
infra/resources.json: chalice's own authorizers are TOKEN-only), then rewrite the file without
whitespace.

chalice knows neither the stack's resource names nor our queues, so every function (API,
queue workers, scheduled jobs) gets the `RESOURCE_PREFIX`/`FILES_BUCKET` environment and waits
for the service policy, and runs on the runtime and architecture of `infra/runtime.py`; each SQS
event source points at the queue of `infra/resources.json` (`<prefix>segments` -> `SegmentsQueue`)
and reports partial batch failures (the workers answer which messages failed, `workers.on_batch`).
chalice writes every route as a path with one integration per method: past 300 resources (path
segments) API Gateway refuses the API, which is why the routes are served through the proxies.
`make package` (`infra/build.py`) and the packaging tests run this.
"""

import json
import os
import sys
from typing import Any

from infra import runtime

AUTHORIZER = "ApiAuthorizer"
GUARDED_PREFIX = "/api/"  # as devstack/gateway/authorizer.py `guarded` locally
OPEN_PATHS = ("/api/openapi.json",)  # the API contract, readable without credentials
PROXIES = ("/api/{proxy+}", "/{proxy+}")  # every other route, behind the authorizer and not
BINARY_MEDIA_TYPES = "*/*"  # every answer may be bytes, whatever the Accept header (`binary`)
Template = dict[str, Any]  # a CloudFormation (SAM) template as JSON
ENVIRONMENT = {
    "RESOURCE_PREFIX": {"Fn::Sub": "${AWS::StackName}-"},
    "FILES_BUCKET": {"Ref": "FilesBucket"},
    "SES_CONFIGURATION_SET": {"Ref": "MailConfigurationSet"},  # its events feed the feedback queue
    "STACK_ACCOUNT_ID": {"Ref": "AWS::AccountId"},  # the only account whose SES feedback counts
    "MAILER_CALLBACK_TOPICS": {"Ref": "FeedbackTopic"},  # the one topic /mailer/callback accepts
}


def _queue_resource(arn: str | dict[str, str]) -> str:
    """`arn:...:<prefix>segments` -> `SegmentsQueue`."""
    name = arn["Fn::Sub"] if isinstance(arn, dict) else arn
    return name.rsplit(":", 1)[-1].rsplit("-", 1)[-1].capitalize() + "Queue"


def wire(template: Template) -> Template:
    """Give every function the service environment, policy, runtime and architecture; point SQS
    events at our queues, with partial batch responses."""
    for resource in template["Resources"].values():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        properties = resource["Properties"]
        properties.update(Runtime=runtime.RUNTIME, Architectures=[runtime.ARCHITECTURE])
        properties.setdefault("Environment", {}).setdefault("Variables", {}).update(ENVIRONMENT)
        resource["DependsOn"] = sorted(set(resource.get("DependsOn", [])) | {"ServicePolicy"})
        for event in properties.get("Events", {}).values():
            if event["Type"] == "SQS":
                event["Properties"]["Queue"] = {"Fn::GetAtt": [_queue_resource(event["Properties"]["Queue"]), "Arn"]}
                event["Properties"]["FunctionResponseTypes"] = ["ReportBatchItemFailures"]
    return template


def proxy(template: Template) -> Template:
    """Serve every route through three resources: `/api/{proxy+}`, `/{proxy+}` and the open paths,
    each with the API function's integration (chalice's path per route would outgrow API Gateway's
    300 resources per API; the function routes by path itself, chalicelib/api/path_routing.py)."""
    body = template["Resources"]["RestAPI"]["Properties"]["DefinitionBody"]
    paths = body["paths"]
    integration = next(iter(next(iter(paths.values())).values()))["x-amazon-apigateway-integration"]
    greedy = {
        "x-amazon-apigateway-any-method": {
            "consumes": ["*/*"],
            "produces": ["application/json"],
            "responses": {},
            "parameters": [{"name": "proxy", "in": "path", "required": True, "type": "string"}],
            "x-amazon-apigateway-integration": integration,
        }
    }
    body["paths"] = {
        PROXIES[0]: greedy,
        PROXIES[1]: json.loads(json.dumps(greedy)),
        **{path: paths[path] for path in OPEN_PATHS},
    }
    return template


def binary(template: Template) -> Template:
    """Declare every media type binary (`*/*`): API Gateway then decodes a base64 answer of the
    function (pixels, downloads, zips) whatever the request's Accept header, and hands request
    bodies to the function base64-encoded, which chalice's `raw_body` decodes. Text answers travel
    as text (`isBase64Encoded` false) and are passed through unchanged."""
    template["Resources"]["RestAPI"]["Properties"]["DefinitionBody"]["x-amazon-apigateway-binary-media-types"] = [
        BINARY_MEDIA_TYPES
    ]
    return template


def guard(template: Template) -> Template:
    """Put the REQUEST authorizer on every operation of every path under /api but OPEN_PATHS."""
    paths = template["Resources"]["RestAPI"]["Properties"]["DefinitionBody"]["paths"]
    for path, operations in paths.items():
        if path.startswith(GUARDED_PREFIX) and path not in OPEN_PATHS:
            for operation in operations.values():
                operation["security"] = [{AUTHORIZER: []}]
    return template


def finish(template: Template) -> Template:
    """The template with everything above done."""
    return guard(binary(proxy(wire(template))))


def compact(path: str | os.PathLike[str]) -> None:
    """Finish the template in the file at `path`, in place, written without whitespace."""
    with open(path) as handle:
        template = finish(json.load(handle))
    with open(path, "w") as handle:
        json.dump(template, handle, separators=(",", ":"))


if __name__ == "__main__":
    compact(sys.argv[1])
