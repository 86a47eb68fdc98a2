"""The Chalice app behind the local API Gateway of the API tests (`conftest.local_http`: routing,
unknown paths, authentication) as a WSGI app, so schemathesis can call it in process."""

from urllib.parse import quote

from tests.conftest import local_http


def wsgi_app(chalice_app):
    """A WSGI callable that sends each request through the local gateway to `chalice_app`."""
    http = local_http(chalice_app)

    def app(environ, start_response):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        path = quote(environ.get("PATH_INFO", "/").encode("latin-1"), safe="/%:@!$&'()*+,;=-._~")
        if environ.get("QUERY_STRING"):
            path += "?" + environ["QUERY_STRING"]
        headers = {
            key[5:].replace("_", "-").lower(): value for key, value in environ.items() if key.startswith("HTTP_")
        }
        if environ.get("CONTENT_TYPE"):
            headers["content-type"] = environ["CONTENT_TYPE"]
        answer = http.request(environ["REQUEST_METHOD"], path, headers=headers, body=body)
        pairs = [
            (name, v) for name, value in answer.headers.items() for v in (value if isinstance(value, list) else [value])
        ]
        start_response(f"{answer.status_code} -", pairs)
        return [answer.body or b""]

    return app
