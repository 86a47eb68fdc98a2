"""DynamoDB writes (TransactWriteItems, PutItem, UpdateItem, DeleteItem) handed to moto without the
HTTP detour (local stack and tests only, never on Lambda), as `devstack/direct_reads.py` does for reads.

Through moto, a write's request is signed, made a werkzeug request, dispatched, answered and the
answer parsed by botocore: about a tenth of a contacts batch create's time on the local stack
(docs/storage.md, "Local stack"). Here a `before-call` handler gives the request's JSON body to moto's
own DynamoDB handler (its parameter parser, its validation, its method), under the lock of
`devstack/capture.py`, so the write is journaled as before. A refusal (a failed condition, a
cancelled transaction, a validation error) is answered with moto's own error body, parsed by
botocore into the same `ClientError` (code, message, cancellation reasons): the write is never run
twice. An exception moto answers another way takes the HTTP way, which answers it as before.

What stays on the way: the call (`BaseClient._make_api_call`: the tests' call counters and the fault
injection of `devstack/faults.py` see every write) and botocore's serialization of the request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from devstack.direct_reads import hook, moto_account, moto_result

if TYPE_CHECKING:
    from botocore.awsrequest import AWSResponse
    from botocore.model import OperationModel
    from botocore.signers import RequestSigner

# The writes answered this way: botocore's operation name -> moto's DynamoHandler method.
OPERATIONS = {
    "TransactWriteItems": "transact_write_items",
    "PutItem": "put_item",
    "UpdateItem": "update_item",
    "DeleteItem": "delete_item",
}
switch = {"on": True}  # off: every write takes the HTTP way
JSON_TYPE = "application/x-amz-json-1.0"


def _run(model: OperationModel, params: dict[str, Any], account: str, region: str) -> tuple[int, str]:
    """(status, JSON body) of the write run by moto's handler: its answer, or its refusal."""
    from werkzeug.exceptions import HTTPException

    try:
        return 200, moto_result(model.name, params, account, region, OPERATIONS[model.name])
    except HTTPException as refusal:  # moto's DynamoDB errors (JsonRESTError): nothing was written
        return int(refusal.code or 400), str(refusal.description)


def answer(
    model: OperationModel, params: dict[str, Any], request_signer: RequestSigner, **_: Any
) -> tuple[AWSResponse, dict[str, Any]] | None:
    """(HTTP response, parsed answer or error) of a write under moto, or None to let it take the HTTP way."""
    from botocore.awsrequest import AWSResponse
    from botocore.parsers import create_parser
    from moto.core.exceptions import ServiceException

    account = moto_account(request_signer, switch)
    if account is None:
        return None
    try:
        status, body = _run(model, params, account, request_signer.region_name)
    except ServiceException:  # answered by moto's serializer on the HTTP way; not raised by DynamoDB's writes
        return None
    headers = {"content-type": JSON_TYPE, "x-amzn-requestid": "direct"}
    response = {"status_code": status, "headers": headers, "body": body.encode()}
    parser = create_parser(model.metadata["protocol"])
    parsed = parser.parse(response, model.output_shape)
    shape = model.service_model.shape_for_error_code(parsed.get("Error", {}).get("Code")) if status >= 300 else None
    if shape is not None:  # the error's own fields (a cancelled transaction's reasons), as botocore adds them
        parsed.update(parser.parse(response, shape))
    return AWSResponse(params["url"], status, headers, None), parsed


def install() -> None:
    """Answer every botocore client's DynamoDB writes of OPERATIONS this way from now on (`hook`)."""
    hook(OPERATIONS, answer)
