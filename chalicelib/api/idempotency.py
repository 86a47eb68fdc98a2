"""`Idempotency-Key` on POST, PUT, PATCH and DELETE under /api.

The first answer to a key (status, body, `Content-Type` and `Location`) is kept for 24 h per
credential (API client and user); a retry with the same key and the same request gets it again
with `Idempotent-Replayed: true` and changes nothing. The same key with another request (method,
path, query or body) is a 422; a retry while the first request still runs is a 409. Server errors
(5xx), 409 and 429 are not kept: the key is released and a retry runs again. See
docs/api-contract.md.
"""

import hashlib
import json
from collections.abc import Callable

from chalice import Response

from chalicelib import aws
from chalicelib.api.errors import ApiError
from chalicelib.api.errors import body as error_body
from chalicelib.api.errors import headers as base_headers
from chalicelib.api.request import ApiRequest
from chalicelib.domain.kernel.context import Context
from chalicelib.ports import idempotency as records

METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
HEADER = "Idempotency-Key"
KEEP = 24 * 3600
LEASE = 60  # seconds a running first request holds its key (the function times out after 30)
KEPT_HEADERS = ("Content-Type", "Location")
RETRYABLE = frozenset({409, 429})
UNCERTAIN = (
    f"The first request with this {HEADER} failed after a write of it may have been applied; it is not run "
    "again, so nothing is applied twice. Read the resource to see what was stored, then use a new key."
)


def _key(request: ApiRequest) -> str | None:
    """The request's `Idempotency-Key` when its method takes one; 400 for a malformed key."""
    key = request.headers.get(HEADER.lower())
    if key is None or request.method not in METHODS:
        return None
    if not 0 < len(key) <= 255 or not key.isprintable():
        message = f"{HEADER} must be 1 to 255 printable characters."
        raise ApiError(400, message, {HEADER: [message]})
    return key


def _fingerprint(request: ApiRequest) -> str:
    """A SHA-256 of what makes two requests the same: method, path, path parameters, query and body."""
    raw = request.raw.raw_body or b""
    parts: list[str | bytes] = [
        request.method,
        request.raw.path,
        repr(sorted((request.raw.uri_params or {}).items())),
        repr(sorted(request.query.items(), key=lambda kv: kv[0])),
        raw if isinstance(raw, bytes) else raw.encode("utf-8"),
    ]
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


def guarded(request: ApiRequest, ctx: Context, run: Callable[[], Response]) -> Response:
    """run() -> Response, once per (credential, key): a replay answers what the first run did."""
    key = _key(request)
    if key is None:
        return run()
    scope, fingerprint = f"{ctx.client or ''}/{ctx.user_id}", _fingerprint(request)
    found = records.claim(scope, key, fingerprint, LEASE)
    if found is not None:
        return _replay(found, fingerprint)
    writes_before = aws.writes()
    try:
        response = run()
    except BaseException:
        _settle_failure(scope, key, fingerprint, aws.writes() != writes_before)
        raise
    if response.status_code >= 500 or response.status_code in RETRYABLE:
        _settle_failure(scope, key, fingerprint, aws.writes() != writes_before)
        return response
    body = response.body if isinstance(response.body, bytes) else str(response.body).encode("utf-8")
    kept = {name: response.headers[name] for name in KEPT_HEADERS if name in response.headers}
    records.finish(scope, key, fingerprint, response.status_code, kept, body, KEEP)
    return response


def _settle_failure(scope: str, key: str, fingerprint: str, may_have_written: bool) -> None:
    """After a failed run: release the key so a retry runs again, or, when one of the run's write
    calls may have been applied (it timed out or got a 5xx after AWS took it), keep the key with the
    409 "outcome unknown" answer, since a second run could apply the write twice."""
    if not may_have_written:
        records.release(scope, key)
        return
    body = json.dumps(error_body(409, UNCERTAIN, error_type="idempotency_outcome_unknown")).encode("utf-8")
    records.finish(scope, key, fingerprint, 409, {"Content-Type": "application/json"}, body, KEEP)


def _replay(found: records.Record, fingerprint: str) -> Response:
    """The kept first answer: 422 for another request with the key, 409 while the first still runs."""
    if found.fingerprint != fingerprint:
        raise ApiError(422, f"This {HEADER} was already used for another request.")
    if found.answer is None:
        raise ApiError(
            409, f"The first request with this {HEADER} is still running. Retry it later.", headers={"Retry-After": "1"}
        )
    status, kept, stored = found.answer
    headers: dict[str, str | list[str]] = dict(base_headers(), **kept)
    headers["Idempotent-Replayed"] = "true"
    body: str | bytes = stored
    try:
        body = stored.decode("utf-8")  # text goes back as text; Chalice sends bytes only for binary types
    except UnicodeDecodeError:
        pass
    return Response(body=body, status_code=status, headers=headers)
