"""The REQUEST Lambda authorizer in front of `/api`: the local gateway invokes it as API Gateway
would, a refused request never reaches a route handler, and a cached decision is reused."""

import base64
import json

import pytest

from chalicelib.api import authorizer, contacts
from chalicelib.auth import clients, oauth2, settings
from chalicelib.domain.kernel.context import Context
from devstack.gateway import authorizer as gateway

ADMIN = "Basic " + base64.b64encode(b"admin:admin-secret").decode()


@pytest.fixture
def calls(api, monkeypatch):
    """The authorizer events (app.py's `api_authorizer` calls authorizer.handler) and the calls of
    the contacts list handler, recorded per test."""
    seen = {"authorizer": [], "handler": 0}
    original = authorizer.handler

    def recording(event, context=None):
        seen["authorizer"].append(event)
        return original(event, context)

    monkeypatch.setattr(authorizer, "handler", recording)
    handlers = contacts.routes.table["/contacts"]
    listing = handlers["GET"]

    def counting(*args, **kwargs):
        seen["handler"] += 1
        return listing(*args, **kwargs)

    monkeypatch.setitem(handlers, "GET", counting)
    gateway.forget()
    yield seen
    gateway.forget()


@pytest.fixture
def cached(configure):
    configure(AUTHORIZER_CACHE_SECONDS=300)


def test_the_authorizer_gets_api_gateways_request_event(api, calls):
    assert api.get("/api/contacts?limit=2&access_token=", headers={"X-Trace": "1"}).status_code == 200
    (event,) = calls["authorizer"]
    assert event["type"] == "REQUEST" and event["httpMethod"] == "GET"
    assert event["methodArn"].endswith("/api/GET/api/contacts")
    assert event["resource"] == event["path"] == "/api/contacts"
    assert event["headers"]["x-trace"] == "1" and event["multiValueHeaders"]["x-trace"] == ["1"]
    assert event["queryStringParameters"]["limit"] == "2"
    assert event["requestContext"]["requestId"] and "body" not in event
    assert calls["handler"] == 1


def test_decision_context_names_the_caller(fresh):
    event = {
        "type": "REQUEST",
        "methodArn": "arn:aws:execute-api:eu-west-1:1:abc/api/GET/api/contacts",
        "headers": {"Authorization": ADMIN},
        "multiValueQueryStringParameters": None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "httpMethod": "GET",
            "resourcePath": "/api/contacts",
            "path": "/api/contacts",
            "requestId": "r-1",
            "identity": {"sourceIp": "203.0.113.9"},
        },
    }
    decision = authorizer.handler(event)
    (statement,) = decision["policyDocument"]["Statement"]
    assert statement == {
        "Action": "execute-api:Invoke",
        "Effect": "Allow",
        "Resource": "arn:aws:execute-api:eu-west-1:1:abc/api/*/api/*",
    }
    context = decision["context"]
    assert context["scheme"] == "Basic" and context["userId"] == 1 and context["clientId"] == ""
    assert context["settingsVersion"] == settings.version(Context())
    assert json.loads(context["user"])["username"] == "admin" and "passwordHash" not in context["user"]
    assert all(isinstance(value, (str, int, bool)) for value in context.values())  # what API Gateway accepts


@pytest.mark.parametrize(
    "headers, status, kind",
    [
        ({}, 401, "access_denied"),  # gateway UNAUTHORIZED
        ({"Authorization": "Basic " + base64.b64encode(b"admin:x").decode()}, 401, None),  # refusal in context
        ({"Authorization": "Bearer not-a-token"}, 401, "invalid_grant"),
    ],
)
def test_a_refused_request_never_reaches_the_handler(api, calls, headers, status, kind):
    response = api.get("/api/contacts", auth=False, headers=headers)
    assert response.status_code == status and response.json["errors"][0]["code"] == status
    if kind:
        assert response.json["errors"][0]["type"] == kind
    assert len(calls["authorizer"]) == 1 and calls["handler"] == 0


def test_no_credentials_is_the_gateways_401(api, calls):
    response = api.get("/api/contacts", auth=False)
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="Service"'
    assert response.body.decode() == gateway.unauthorized()["body"]


def test_api_switch_off_is_the_gateways_403(api, calls):
    settings.update(Context(), {"apiEnabled": False})
    response = api.get("/api/contacts")
    assert response.status_code == 403 and response.json["errors"][0]["type"] == "api_disabled"
    assert calls["handler"] == 0


def test_bearer_in_header_and_query_pass_through_the_authorizer(api, calls):
    client, _ = clients.create(Context(), "OAuth2 app", ["https://client.example/callback"], "2")
    token, _ = oauth2.issue_access_token(Context(), client, {"id": 1, "username": "admin"}, "family-1")
    assert api.get("/api/contacts", auth=False, headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert api.get(f"/api/contacts?access_token={token}", auth=False).status_code == 200
    assert len(calls["authorizer"]) == 2 and calls["handler"] == 2


def test_without_the_cache_every_request_runs_the_authorizer(api, calls):
    assert api.get("/api/contacts").status_code == 200
    assert api.get("/api/contacts").status_code == 200
    assert len(calls["authorizer"]) == 2 and calls["handler"] == 2


def test_a_cached_decision_is_reused(api, calls, cached):
    for _ in range(3):
        assert api.get("/api/contacts").status_code == 200
    assert len(calls["authorizer"]) == 1 and calls["handler"] == 3


def test_a_cached_allow_yields_to_an_api_switch_change(api, calls, cached):
    assert api.get("/api/contacts").status_code == 200
    settings.update(Context(), {"apiEnabled": False})
    response = api.get("/api/contacts")  # the cached Allow names an older settings version
    assert response.status_code == 403 and response.json["errors"][0]["type"] == "api_disabled"
    assert len(calls["authorizer"]) == 1 and calls["handler"] == 1


def test_the_cache_needs_the_authorization_header(api, calls, cached):
    response = api.get("/api/contacts?access_token=abc", auth=False)
    assert response.status_code == 401 and not calls["authorizer"] and calls["handler"] == 0


def test_a_form_body_is_left_to_the_function(api, calls):
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    response = api.post("/api/contacts/new", raw=b"access_token=nope&firstname=a", auth=False, headers=form)
    assert response.status_code == 401 and response.json["errors"][0]["type"] == "invalid_grant"
    (event,) = calls["authorizer"]
    assert "access_token" not in json.dumps(event)
