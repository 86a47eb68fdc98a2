"""How large a request body may be, checked before it is parsed (docs/security.md "Sizes are bounded").

Every route, public ones included (forms, tracking, OAuth, the SNS callback), refuses a body over its
limit with a JSON 413 naming the limit, before any JSON, form or multipart parsing and before anything is
written. API Gateway takes up to 10 MB and Lambda up to 6 MB; these limits are Mautic-sized and far below:
`BODY_MAX_BYTES` for /api (a batch of 200 contacts is ~200 KB), `PUBLIC_BODY_MAX_BYTES` for public routes
(a form of text areas; SNS's largest message with its envelope), and for a multipart body the largest
upload (`UPLOAD_MAX_BYTES`, which each file is checked against again) plus `MULTIPART_EXTRA_BYTES`.
"""

from chalice.app import Request

from chalicelib import config
from chalicelib.api.errors import ApiError
from chalicelib.api.request import MULTIPART


def limit(request: Request, authenticated: bool) -> int:
    """The most bytes the request's body may have: by its media type and whether its route is under /api."""
    kind = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
    if kind == MULTIPART:
        return config.active().UPLOAD_MAX_BYTES + config.active().MULTIPART_EXTRA_BYTES
    return config.active().BODY_MAX_BYTES if authenticated else config.active().PUBLIC_BODY_MAX_BYTES


def check(request: Request, authenticated: bool) -> None:
    """ApiError 413 when the body (or the Content-Length it announces) is over its limit."""
    most = limit(request, authenticated)
    size = max(_announced(request), len(request.raw_body or b""))
    if size > most:
        message = f"The request body is {size:,} bytes; this route takes at most {most:,}."
        raise ApiError(413, message, {"body": [message]})


def _announced(request: Request) -> int:
    """The Content-Length header as a number (0 when absent or not one)."""
    value = request.headers.get("content-length") or ""
    return int(value) if value.strip().isdigit() else 0
