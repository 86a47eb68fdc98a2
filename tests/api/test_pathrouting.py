"""The deployed REST API is three proxy resources: the app finds each request's route by its path
(literal segments before parameters, as API Gateway), with its path parameters, and answers an
unknown path with the JSON 404."""

import base64
import json

from chalicelib.api.path_routing import match
from tests.conftest import ADMIN


def _event(method, path, resource="/api/{proxy+}", body=None):
    auth = "Basic " + base64.b64encode(":".join(ADMIN).encode()).decode()
    headers = {"Authorization": auth, "Content-Type": "application/json", "Host": "api.example.com"}
    return {
        "resource": resource,
        "path": path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": {"proxy": path.split("/", 2)[-1]},
        "stageVariables": None,
        "body": json.dumps(body) if body is not None else None,
        "isBase64Encoded": False,
        "requestContext": {
            "resourcePath": resource,
            "httpMethod": method,
            "stage": "api",
            "path": f"/api{path}",
            "identity": {"sourceIp": "198.51.100.7"},
            "requestId": "r1",
        },
    }


def _call(app, method, path, **kw):
    answer = app(_event(method, path, **kw), None)
    return answer["statusCode"], json.loads(answer["body"])


def test_literal_segments_win_over_parameters():
    routes = ("/api/contacts/{id}", "/api/contacts/{id}/{op}", "/api/contacts/list/owners", "/api/contacts/{id}/notes")
    assert match(routes, "/api/contacts/list/owners") == ("/api/contacts/list/owners", {})
    assert match(routes, "/api/contacts/7/notes") == ("/api/contacts/{id}/notes", {"id": "7"})
    assert match(routes, "/api/contacts/7/edit") == ("/api/contacts/{id}/{op}", {"id": "7", "op": "edit"})
    assert match(routes, "/api/contacts") is None


def test_requests_through_the_proxy_reach_their_routes(chalice_app, fresh):
    status, created = _call(chalice_app, "POST", "/api/contacts/new", body={"email": "ann@example.com"})
    assert status == 201
    contact_id = created["contact"]["id"]
    status, got = _call(chalice_app, "GET", f"/api/contacts/{contact_id}")
    assert status == 200 and got["contact"]["id"] == contact_id
    status, owners = _call(chalice_app, "GET", "/api/contacts/list/owners")
    assert status == 200 and owners[0]["id"] == 1
    status, gone = _call(chalice_app, "GET", "/api/no/such/path")
    assert status == 404 and gone["errors"][0]["code"] == 404
    status, public = _call(chalice_app, "GET", "/oauth/v2/token", resource="/{proxy+}")
    assert status == 405
