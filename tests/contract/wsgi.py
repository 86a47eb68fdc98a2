"""The Chalice app behind its local API Gateway (unknown paths, routing, auth) as a WSGI app, so
schemathesis can call it in process."""
import base64
from urllib.parse import quote

from chalice.config import Config

from chalicelib.gateway import ApiGateway


def wsgi_app(chalice_app):
    """A WSGI callable that sends each request through the local API Gateway to `chalice_app`."""
    gateway = ApiGateway(chalice_app, Config(chalice_stage="local"))

    def app(environ, start_response):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        path = quote(environ.get("PATH_INFO", "/").encode("latin-1"), safe="/%:@!$&'()*+,;=-._~")
        if environ.get("QUERY_STRING"):
            path += "?" + environ["QUERY_STRING"]
        headers = {key[5:].replace("_", "-").lower(): value for key, value in environ.items()
                   if key.startswith("HTTP_")}
        if environ.get("CONTENT_TYPE"):
            headers["content-type"] = environ["CONTENT_TYPE"]
        answer = gateway.handle_request(environ["REQUEST_METHOD"], path, headers, body)
        payload = answer["body"] or b""
        if answer.get("isBase64Encoded"):
            payload = base64.b64decode(payload)
        elif isinstance(payload, str):
            payload = payload.encode("utf-8")
        pairs = [(k, v) for k, v in answer["headers"].items() if k not in answer.get("multiValueHeaders", {})]
        pairs += [(k, v) for k, values in (answer.get("multiValueHeaders") or {}).items() for v in values]
        start_response(f"{answer['statusCode']} -", pairs)
        return [payload]

    return app
