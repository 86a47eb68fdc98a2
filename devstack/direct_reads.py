"""DynamoDB reads (Query, GetItem, BatchGetItem) answered by moto without the HTTP detour (local
stack and tests only, never on Lambda).

Through moto, a botocore call is signed, made a werkzeug request, parsed by moto, answered, turned
into JSON by moto's generic serializer (which walks every attribute of every item against the
service model) and parsed by botocore: several times the cost of the read itself
(`devstack/query.py` answers a Query from ordered keys). A sharded kind's list page, cursor page and
`email:` search make a Query per shard (32 for contacts, `store/fanout.py`), so locally that detour,
not the data, set their time (docs/storage.md, "Local stack"). Here a `before-call` handler gives
the read's JSON body to moto's own DynamoDB handler (its parameter parser and method), dumps the
answer as DynamoDB JSON (`dynamo_json_dump`: binary values in base64, as on the wire) and gives
botocore what its parser would make of it (`binary`): the same items, keys, counts and unprocessed keys.

What stays on the way: the call (`BaseClient._make_api_call`: the tests' call counters and the
fault injection of `devstack/faults.py` see every read) and the one-call-at-a-time lock of
`devstack/capture.py`. A read moto refuses (a validation error, a missing table) takes the HTTP
way, which turns it into botocore's error as before.
"""

from __future__ import annotations

import base64
import json
import os
from typing import TYPE_CHECKING, Any

from devstack import capture

if TYPE_CHECKING:
    from botocore.awsrequest import AWSResponse
    from botocore.model import OperationModel
    from botocore.signers import RequestSigner

# The reads answered this way: botocore's operation name -> moto's DynamoHandler method.
OPERATIONS = {"Query": "query", "GetItem": "get_item", "BatchGetItem": "batch_get_item"}
switch = {"on": True}  # off: every read takes the HTTP way (the benchmark measures both)


def moto_account(request_signer: RequestSigner, switch: dict[str, bool]) -> str | None:
    """The moto account a call of this signer goes to when it may skip the HTTP way (its module's
    switch on, moto mocking, credentials signed), else None."""
    from moto.core.models import botocore_stubber
    from moto.iam.models import get_account_id_from

    credentials = getattr(request_signer, "_credentials", None)
    if not (switch["on"] and botocore_stubber.enabled) or credentials is None:
        return None
    return os.environ.get("MOTO_ACCOUNT_ID") or get_account_id_from(credentials.access_key)


def moto_handler(operation_name: str, request: dict[str, Any], account: str, region: str) -> Any:
    """Moto's DynamoDB handler set up for this request, as its HTTP dispatch would set it up."""
    from moto.core.parse import PROTOCOL_PARSERS, RequestDict
    from moto.core.utils import get_service_model
    from moto.dynamodb.responses import DynamoHandler
    from werkzeug.datastructures import MultiDict

    handler = DynamoHandler()
    handler.headers = request["headers"]
    handler.current_account = account
    handler.region = region
    handler.response_headers = {"server": "amazon.com"}
    handler.querystring = {}
    handler.uri_match = {}
    operation = get_service_model("dynamodb").operation_model(operation_name)
    parser = PROTOCOL_PARSERS["json"](operation, map_type=handler.PROTOCOL_PARSER_MAP_TYPE)
    parsed = RequestDict(
        method="POST", values=MultiDict(), headers=request["headers"], body=request["body"], url_path="/", url_params={}
    )
    handler.params = parser.parse(parsed)
    handler.body = handler.params
    return handler


def moto_result(operation_name: str, request: dict[str, Any], account: str, region: str, method: str) -> str:
    """The DynamoDB JSON body moto's handler answers for the request (its `method`), under the lock
    of `devstack/capture.py`; its refusals raised as moto raises them."""
    from moto.dynamodb.models.utilities import dynamo_json_dump

    with capture.serialized():
        handler = moto_handler(operation_name, request, account, region)
        return str(dynamo_json_dump(getattr(handler, method)().result))


def hook(operations: dict[str, str], answer: Any) -> None:
    """Answer every botocore client's DynamoDB calls of `operations` with `answer` from now on
    (idempotent): clients made afterwards get the handler with botocore's built-in ones."""
    from botocore.handlers import BUILTIN_HANDLERS

    for operation in operations:
        if (f"before-call.dynamodb.{operation}", answer) not in BUILTIN_HANDLERS:
            BUILTIN_HANDLERS.append((f"before-call.dynamodb.{operation}", answer))


def answer(
    model: OperationModel, params: dict[str, Any], request_signer: RequestSigner, **_: Any
) -> tuple[AWSResponse, dict[str, Any]] | None:
    """(HTTP response, parsed answer) of a read under moto, or None to let it take the HTTP way."""
    from botocore.awsrequest import AWSResponse
    from moto.core.exceptions import ServiceException
    from werkzeug.exceptions import HTTPException

    account = moto_account(request_signer, switch)
    if account is None:
        return None
    try:
        body = moto_result(model.name, params, account, request_signer.region_name, OPERATIONS[model.name])
    except (ServiceException, HTTPException, KeyError, ValueError):
        return None
    headers = {"content-type": "application/x-amz-json-1.0", "x-amzn-requestid": "direct"}
    parsed = binary(json.loads(body))
    parsed["ResponseMetadata"] = {"RequestId": "direct", "HTTPStatusCode": 200, "HTTPHeaders": dict(headers)}
    return AWSResponse(params["url"], 200, headers, None), parsed


def binary(value: Any) -> Any:
    """DynamoDB JSON as botocore's parser gives it for these reads (every member of their answers is in
    the output shape; numbers stay strings in `N`): binary values (`B`, `BS`), base64 on the wire, as
    bytes. Walking the service model instead took a fifth of a read's CPU."""
    if isinstance(value, list):
        return [binary(item) for item in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        if isinstance(found := value.get("B"), str):
            return {"B": base64.b64decode(found)}
        if isinstance(found := value.get("BS"), list):
            return {"BS": [base64.b64decode(item) for item in found]}
    return {key: binary(item) for key, item in value.items()}


def install() -> None:
    """Answer every botocore client's DynamoDB reads of OPERATIONS this way from now on (`hook`)."""
    hook(OPERATIONS, answer)
