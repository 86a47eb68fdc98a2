"""The parsed HTTP request: query (PHP bracket notation), body (JSON, form-encoded or multipart)."""

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from chalice.app import Request

from chalicelib import config
from chalicelib.api import php_query
from chalicelib.api.errors import ApiError
from chalicelib.domain.kernel import nesting

FORM = "application/x-www-form-urlencoded"
MAX_DEPTH = php_query.MAX_DEPTH  # nesting levels of a JSON body
MULTIPART = "multipart/form-data"
File = tuple[str, str, bytes]  # (file name, content type, bytes) of a multipart part


class ApiRequest:
    """What a handler needs from the HTTP request."""

    def __init__(self, request: Request) -> None:
        self.raw = request
        self.method: str = request.method
        self.headers = request.headers
        params = request.query_params
        pairs = [(k, v) for k in params for v in params.getlist(k)] if params else []
        self.query: dict[str, Any] = _nested(lambda: php_query.parse(pairs))
        self.files: dict[str, File] = {}  # multipart parts with a file name, by field name
        self._body: Any = None
        self._parsed = False

    @property
    def content_type(self) -> str:
        """The media type of the body, lowercased, without parameters."""
        return (self.headers.get("content-type") or "").split(";")[0].strip().lower()

    @property
    def body(self) -> Any:
        """The request body as Python data; {} when empty."""
        if not self._parsed:
            self._body = self._parse_body()
            self._parsed = True
        return self._body

    def _parse_body(self) -> Any:
        """The body as Python data by its content type; ApiError 400/415 when it cannot be read."""
        raw = self.raw.raw_body or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
        kind = self.content_type
        if kind == FORM:
            return _nested(lambda: php_query.parse(parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True)))
        if kind == MULTIPART:
            return self._multipart(raw)
        if kind and kind != "application/json" and not kind.endswith("+json"):
            raise ApiError(415, f"Unsupported media type: {kind}. Send application/json, {FORM} or {MULTIPART}.")
        if not raw.strip():
            return {}
        return _json(raw)

    def json(self) -> Any:
        """The body read as JSON whatever its Content-Type (Amazon SNS posts JSON as text/plain), with
        the depth limit of `body`; ApiError 400 when it is not JSON or nests too deep."""
        raw = self.raw.raw_body or b""
        return _json(raw.encode("utf-8") if isinstance(raw, str) else raw)

    def _multipart(self, raw: bytes) -> dict[str, Any]:
        """The fields of a multipart body; its files go to `self.files`. The email parser is imported
        here: only multipart bodies need it, and the request authorizer never reads a body."""
        from email.parser import BytesParser
        from email.policy import HTTP

        header = f"Content-Type: {self.headers.get('content-type')}\r\n\r\n".encode()
        message = BytesParser(policy=HTTP).parsebytes(header + raw)
        if not message.is_multipart():
            raise ApiError(400, "The multipart body could not be read.")
        pairs = []
        for part in message.iter_parts():
            name = str(part.get_param("name", header="content-disposition"))
            payload = part.get_payload(decode=True)  # bytes for a part that is not itself multipart
            assert isinstance(payload, bytes)
            filename = part.get_filename()
            if filename is not None:
                self.files[name] = (filename, part.get_content_type(), payload)
            elif name:
                pairs.append((name, payload.decode("utf-8", "replace")))
        return _nested(lambda: php_query.parse(pairs))

    def cookies(self) -> dict[str, str]:
        """The request's cookies by name (the first of a repeated name)."""
        found: dict[str, str] = {}
        for part in (self.headers.get("cookie") or "").split(";"):
            name, _, value = part.strip().partition("=")
            if name:
                found.setdefault(name, value)
        return found

    def form_field(self, name: str) -> str | None:
        """A field of a form-encoded body (not for GET), or None; never raises."""
        if self.method == "GET" or self.content_type != FORM:
            return None
        value = self.body.get(name) if isinstance(self.body, dict) else None
        return value if isinstance(value, str) else None

    def url(self) -> str:
        """The absolute URL the client called, without the query string (OAuth1 signatures)."""
        path = (self.raw.context or {}).get("path") or self.raw.path
        host = self.headers.get("host") or "127.0.0.1"
        return f"{self.headers.get('x-forwarded-proto') or 'http'}://{host}{path}"

    def base_url(self) -> str:
        """The public base URL of the service (no trailing slash)."""
        if config.active().BASE_URL:
            return config.active().BASE_URL
        host = self.headers.get("host") or "127.0.0.1"
        scheme = self.headers.get("x-forwarded-proto") or "http"
        stage = (self.raw.context or {}).get("stage")
        suffix = f"/{stage}" if stage and ".execute-api." in host else ""
        return f"{scheme}://{host}{suffix}"


def _json(raw: bytes) -> Any:
    """A JSON body as Python data: ApiError 400 when it is not JSON or nests more than MAX_DEPTH levels."""
    too_deep = f"The request body nests more than {MAX_DEPTH} levels."
    try:
        data = json.loads(raw)
    except RecursionError:
        raise ApiError(400, too_deep, {"body": [too_deep]}) from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ApiError(400, f"The request body is not valid JSON: {error}.", {"body": [str(error)]}) from None
    if nesting.depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise ApiError(400, too_deep, {"body": [too_deep]})
    return data


def _nested(parse: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run a bracket-notation parse; a key nested too deep is a 400 naming the parameter."""
    try:
        return parse()
    except php_query.TooDeep as error:
        raise ApiError(400, str(error), {error.name: [str(error)]}) from None
