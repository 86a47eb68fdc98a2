"""OAuth2 in process: the authorize page, the three grants, rotation, replay detection, token use."""

import base64
import json
import time
import types
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
import pytest
from oauthlib.oauth2.rfc6749.clients.base import Client as OAuthClient

from chalicelib.auth import clients, settings, users
from chalicelib.domain.kernel.context import Context
from tests.conftest import ADMIN
from tests.loginform import LoginForm

REDIRECT = "https://client.example/cb"
FORM = "application/x-www-form-urlencoded"
TOKEN_FIELDS = ["access_token", "expires_in", "token_type", "scope", "refresh_token"]
INVALID_CLIENT = {"errors": [{"code": 400, "message": "The client credentials are invalid", "type": "invalid_client"}]}


@pytest.fixture
def client(fresh):
    doc, secret = clients.create(Context(), "Test app", [REDIRECT], "2", creator_id=1, grants=clients.GRANTS, user_id=1)
    return types.SimpleNamespace(id=doc["publicId"], secret=secret, doc=doc)


def request(api, method, path, params=None, headers=None, as_json=False):
    """A raw call without the administrator's Basic header; JSON answers parsed into .json."""
    all_headers = dict(headers or {})
    raw = b""
    if params is not None:
        all_headers["Content-Type"] = "application/json" if as_json else FORM
        raw = json.dumps(params).encode() if as_json else urlencode(params).encode()
    response = api.http.request(method, path, headers=all_headers, body=raw)
    content_type = response.headers.get("Content-Type", "")
    response.json = json.loads(response.body) if content_type.startswith("application/json") and response.body else None
    response.text = response.body.decode() if isinstance(response.body, bytes) else response.body
    return response


def authorize_url(client_id, redirect_uri=REDIRECT, **extra):
    params = {"client_id": client_id, "redirect_uri": redirect_uri, "response_type": "code", "state": "st-8", **extra}
    return "/oauth/v2/authorize?" + urlencode({k: v for k, v in params.items() if v is not None})


def cookie_of(response):
    return response.headers["Set-Cookie"].split(";")[0]


def open_page(api, client_id, **extra):
    page = request(api, "GET", authorize_url(client_id, **extra))
    assert page.status_code == 200, page.body
    return page, LoginForm(page.text)


def submit(api, page, form, username=ADMIN[0], password=ADMIN[1], cookie=None, **overrides):
    fields = dict(form.fields, username=username, password=password, **overrides)
    fields = {k: v for k, v in fields.items() if v is not None}
    return request(
        api, "POST", urlsplit(form.action).path, fields, {"Cookie": cookie if cookie is not None else cookie_of(page)}
    )


def code_for(api, client_id, **extra):
    """Log in on the authorize page; returns the code from the redirect."""
    page, form = open_page(api, client_id, **extra)
    done = submit(api, page, form)
    assert done.status_code == 302, done.body
    query = parse_qs(urlsplit(done.headers["Location"]).query)
    return query["code"][0]


def token(api, params, headers=None, as_json=False, method="POST"):
    if method == "GET":
        return request(api, "GET", "/oauth/v2/token?" + urlencode(params), headers=headers)
    return request(api, method, "/oauth/v2/token", params, headers, as_json)


def exchange(api, client, code, **extra):
    params = {
        "grant_type": "authorization_code",
        "client_id": client.id,
        "client_secret": client.secret,
        "redirect_uri": REDIRECT,
        "code": code,
        **extra,
    }
    return token(api, {k: v for k, v in params.items() if v is not None})


def refresh(api, client, refresh_token):
    return token(
        api,
        {
            "grant_type": "refresh_token",
            "client_id": client.id,
            "client_secret": client.secret,
            "refresh_token": refresh_token,
            "redirect_uri": REDIRECT,
        },
    )


def tokens_for(api, client):
    response = exchange(api, client, code_for(api, client.id))
    assert response.status_code == 200, response.body
    return response.json


def contacts(api, access_token):
    return request(api, "GET", "/api/contacts", headers={"Authorization": f"Bearer {access_token}"})


def later(monkeypatch, module, seconds):
    """Shift the clock that `module` reads by `seconds` (the tokens' clock: the installed adapter's)."""
    from chalicelib.ports import adapters
    from chalicelib.store import tokens

    real = time.time
    installed = adapters.active()
    if module is tokens and installed is not None and hasattr(installed.tokens, "clock"):
        monkeypatch.setattr(installed.tokens, "clock", lambda: real() + seconds)
        return
    monkeypatch.setattr(module, "time", types.SimpleNamespace(time=lambda: real() + seconds))


def assert_error(response, status, error_type, message=None):
    assert response.status_code == status, response.body
    assert response.headers["Content-Type"].startswith("application/json")
    item = response.json["errors"][0]
    assert set(item) == {"code", "message", "type"} and item["code"] == status and item["type"] == error_type, item
    if message is not None:
        assert item["message"] == message
    assert "Location" not in response.headers


# --- authorize ------------------------------------------------------------------------------


def test_authorize_renders_the_login_page_with_csrf(api, client):
    page, form = open_page(api, client.id)
    assert page.headers["Content-Type"].startswith("text/html")
    assert page.headers["Cache-Control"] == "no-store" and page.headers["X-Frame-Options"] == "DENY"
    assert cookie_of(page).startswith("mautic_login_csrf=") and "HttpOnly" in page.headers["Set-Cookie"]
    assert "Test app" in page.text and urlsplit(form.action).path == "/oauth/v2/authorize"
    assert form.fields["client_id"] == client.id and form.fields["redirect_uri"] == REDIRECT
    assert form.fields["state"] == "st-8" and form.fields["response_type"] == "code" and form.fields["_csrf"]
    assert {"username", "password"} <= set(form.fields)


@pytest.mark.parametrize(
    "redirect_uri",
    [
        "https://client.example/cb/",
        "https://client.example/cb/../evil",
        "https://client.example/cbx",
        "https://client.example/cb?x=1",
        "https://client.example:444/cb",
        "http://client.example/cb",
        "https://CLIENT.example/cb",
        "https://evil.example/cb",
        None,
    ],
)
def test_authorize_refuses_a_redirect_uri_that_is_not_exactly_registered(api, client, redirect_uri):
    for method in ("GET", "POST"):
        if method == "GET":
            response = request(api, "GET", authorize_url(client.id, redirect_uri=redirect_uri))
        else:
            page, form = open_page(api, client.id)
            response = submit(api, page, form, redirect_uri=redirect_uri or "")
        assert_error(response, 400, "invalid_request" if redirect_uri is None else "redirect_uri_mismatch")


def test_authorize_refuses_unknown_revoked_and_oauth1_clients(api, client):
    consumer, _ = clients.create(Context(), "OAuth1 consumer", [REDIRECT], "1a", creator_id=1)
    for client_id in ("99_nope", consumer["publicId"], None):
        response = request(api, "GET", authorize_url(client_id))
        assert_error(response, 400, "invalid_request" if client_id is None else "invalid_client")
    clients.revoke(Context(), client.doc["id"])
    assert_error(request(api, "GET", authorize_url(client.id)), 400, "invalid_client")


@pytest.mark.parametrize("response_type", ["token", "", "code token"])
def test_wrong_response_type_is_redirected_only_to_a_valid_redirect_uri(api, client, response_type):
    response = request(api, "GET", authorize_url(client.id, response_type=response_type))
    assert response.status_code == 302
    location = urlsplit(response.headers["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == REDIRECT
    query = parse_qs(location.query)
    assert query["error"] == ["unsupported_response_type"] and query["state"] == ["st-8"] and "code" not in query
    wrong = request(
        api, "GET", authorize_url(client.id, redirect_uri="https://evil.example/cb", response_type=response_type)
    )
    assert_error(wrong, 400, "redirect_uri_mismatch")


@pytest.mark.parametrize(
    "extra",
    [
        {"code_challenge": "a" * 43, "code_challenge_method": "plain"},
        {"code_challenge": "a" * 43},
        {"code_challenge": "short", "code_challenge_method": "S256"},
        {"code_challenge_method": "S256"},
    ],
)
def test_pkce_plain_or_malformed_is_refused(api, client, extra):
    response = request(api, "GET", authorize_url(client.id, **extra))
    assert response.status_code == 302
    assert parse_qs(urlsplit(response.headers["Location"]).query)["error"] == ["invalid_request"]


def test_a_requested_scope_is_refused(api, client):
    response = request(api, "GET", authorize_url(client.id, scope="admin"))
    assert parse_qs(urlsplit(response.headers["Location"]).query)["error"] == ["invalid_scope"]


def test_login_redirects_with_code_and_unchanged_state_keeping_the_query(api, fresh):
    registered = "https://client.example/cb?tenant=a%20b&x"
    doc, _ = clients.create(Context(), "Query app", [REDIRECT, registered], "2", creator_id=1)
    page, form = open_page(api, doc["publicId"], redirect_uri=registered, state="a b&c=d/é")
    done = submit(api, page, form)
    assert done.status_code == 302 and done.headers["Cache-Control"] == "no-store"
    location = done.headers["Location"]
    assert location.startswith(registered + "&code=")
    query = parse_qs(urlsplit(location).query, keep_blank_values=True)
    assert query["state"] == ["a b&c=d/é"] and query["tenant"] == ["a b"] and len(query["code"][0]) >= 40


def test_login_without_state_sends_no_state(api, client):
    page, form = open_page(api, client.id, state=None)
    done = submit(api, page, form)
    assert "state" not in parse_qs(urlsplit(done.headers["Location"]).query)


def tampered(value):
    return value[:-1] + ("1" if value[-1] == "0" else "0")


def test_csrf_missing_or_mismatched_is_refused_before_the_login(api, client):
    page, form = open_page(api, client.id)
    other_page, other_form = open_page(api, client.id)
    attempts = [
        submit(api, page, form, cookie=""),  # no cookie
        submit(api, page, form, _csrf=None),  # no field
        submit(api, page, form, _csrf=other_form.fields["_csrf"]),  # field of another page
        submit(api, page, form, cookie=cookie_of(other_page)),  # cookie of another page
        submit(api, page, form, _csrf=tampered(form.fields["_csrf"])),
    ]  # tampered
    for response in attempts:
        assert_error(response, 403, "access_denied")
    assert submit(api, page, form).status_code == 302  # the genuine pair still works


def test_wrong_password_renders_the_page_again(api, client):
    page, form = open_page(api, client.id)
    for username, password in ((ADMIN[0], "wrong"), ("nobody", ADMIN[1]), ("", "")):
        again = submit(api, page, form, username=username, password=password)
        assert again.status_code == 200 and "Location" not in again.headers
        assert "Invalid username or password." in again.text
        refill = LoginForm(again.text)
        assert refill.fields["client_id"] == client.id and refill.fields["state"] == "st-8"
    assert submit(api, again, refill).status_code == 302


# --- authorization_code grant ---------------------------------------------------------------


def test_authorization_code_grant_gives_tokens_in_mautic_shape(api, client):
    response = exchange(api, client, code_for(api, client.id))
    assert response.status_code == 200, response.body
    assert response.headers["Cache-Control"] == "no-store" and response.headers["Pragma"] == "no-cache"
    assert response.headers["Content-Type"] == "application/json"
    body = response.json
    assert list(body) == TOKEN_FIELDS
    assert body["expires_in"] == 3600 and body["token_type"] == "bearer" and body["scope"] is None
    assert body["refresh_token"] and body["refresh_token"] != body["access_token"]
    claims = jwt.decode(body["access_token"], options={"verify_signature": False})
    assert claims["sub"] == "1" and claims["cid"] == client.id
    listed = contacts(api, body["access_token"])
    assert listed.status_code == 200 and int(listed.json["total"]) == 0


def test_lifetimes_follow_the_settings(api, client):
    settings.update(Context(), {"accessTokenMinutes": 5})
    body = tokens_for(api, client)
    assert body["expires_in"] == 300
    claims = jwt.decode(body["access_token"], options={"verify_signature": False})
    assert claims["exp"] - claims["iat"] == 300


def test_php_client_style_json_body_with_a_dangling_bearer_header(api, client):
    code = code_for(api, client.id)
    params = {
        "client_id": client.id,
        "client_secret": client.secret,
        "grant_type": "authorization_code",
        "redirect_uri": REDIRECT,
        "code": code,
    }
    response = token(api, params, {"Authorization": "Bearer ", "Accept": "application/json"}, as_json=True)
    assert response.status_code == 200, response.body
    again = token(
        api,
        {**params, "grant_type": "refresh_token", "refresh_token": response.json["refresh_token"]},
        {"Authorization": "Bearer "},
        as_json=True,
    )
    assert again.status_code == 200 and list(again.json) == TOKEN_FIELDS


def test_client_authentication_by_http_basic(api, client):
    basic = {"Authorization": "Basic " + base64.b64encode(f"{client.id}:{client.secret}".encode()).decode()}
    params = {"grant_type": "authorization_code", "redirect_uri": REDIRECT, "code": code_for(api, client.id)}
    assert token(api, params, basic).status_code == 200
    wrong = {"Authorization": "Basic " + base64.b64encode(f"{client.id}:nope".encode()).decode()}
    response = token(api, {**params, "code": code_for(api, client.id)}, wrong)
    assert response.status_code == 400 and response.json == INVALID_CLIENT
    both = token(api, {**params, "code": code_for(api, client.id), "client_secret": client.secret}, basic)
    assert_error(both, 400, "invalid_request")
    assert_error(
        token(api, {"grant_type": "client_credentials"}, {"Authorization": "Basic !!!"}), 400, "invalid_client"
    )


def test_token_endpoint_refuses_get_so_secrets_stay_out_of_urls(api, client):
    response = token(
        api, {"grant_type": "client_credentials", "client_id": client.id, "client_secret": client.secret}, method="GET"
    )
    assert response.status_code == 405 and response.headers["Allow"] == "POST"
    assert response.json["errors"][0]["code"] == 405 and "access_token" not in response.body.decode()


def test_reused_code_is_refused_and_revokes_what_it_issued(api, client):
    code = code_for(api, client.id)
    first = exchange(api, client, code)
    assert first.status_code == 200
    assert contacts(api, first.json["access_token"]).status_code == 200
    assert_error(exchange(api, client, code), 400, "invalid_grant")
    assert_error(
        contacts(api, first.json["access_token"]), 401, "invalid_grant", "The access token provided is invalid."
    )
    assert_error(refresh(api, client, first.json["refresh_token"]), 400, "invalid_grant")
    other = tokens_for(api, client)  # other families are not affected
    assert contacts(api, other["access_token"]).status_code == 200


def test_code_expires_after_30_seconds(api, client, monkeypatch):
    from chalicelib.store import tokens

    code = code_for(api, client.id)
    later(monkeypatch, tokens, 31)
    assert_error(exchange(api, client, code), 400, "invalid_grant")
    monkeypatch.undo()
    assert exchange(api, client, code_for(api, client.id)).status_code == 200


def test_code_needs_the_identical_redirect_uri(api, client):
    for redirect_uri in ("https://client.example/cb/", None):
        assert_error(exchange(api, client, code_for(api, client.id), redirect_uri=redirect_uri), 400, "invalid_grant")


def test_code_of_another_client_is_refused(api, client):
    doc, secret = clients.create(Context(), "Other", [REDIRECT], "2", creator_id=1)
    other = types.SimpleNamespace(id=doc["publicId"], secret=secret)
    code = code_for(api, client.id)
    assert_error(exchange(api, other, code), 400, "invalid_grant")
    assert exchange(api, client, code).status_code == 200


@pytest.mark.parametrize("secret", ["wrong", "", None])
def test_wrong_client_secret_or_id(api, client, secret):
    code = code_for(api, client.id)
    response = exchange(api, types.SimpleNamespace(id=client.id, secret=secret), code)
    assert response.status_code == 400 and response.json == INVALID_CLIENT
    response = exchange(api, types.SimpleNamespace(id="9999_unknown", secret=client.secret), code)
    assert response.status_code == 400 and response.json == INVALID_CLIENT
    assert exchange(api, client, code).status_code == 200  # a refused client did not spend the code


def test_pkce_s256(api, client):
    helper = OAuthClient(client.id)
    verifier = helper.create_code_verifier(64)
    challenge = helper.create_code_challenge(verifier, "S256")
    code = code_for(api, client.id, code_challenge=challenge, code_challenge_method="S256")
    assert exchange(api, client, code, code_verifier=verifier).status_code == 200
    for wrong in (None, helper.create_code_verifier(64), "short"):
        code = code_for(api, client.id, code_challenge=challenge, code_challenge_method="S256")
        assert_error(exchange(api, client, code, code_verifier=wrong), 400, "invalid_grant")


def test_a_code_verifier_without_a_challenge_is_refused(api, client):
    code = code_for(api, client.id)
    assert_error(exchange(api, client, code, code_verifier="v" * 50), 400, "invalid_grant")


# --- refresh_token grant --------------------------------------------------------------------


def test_refresh_rotates_both_tokens(api, client):
    first = tokens_for(api, client)
    second = refresh(api, client, first["refresh_token"])
    assert second.status_code == 200 and list(second.json) == TOKEN_FIELDS
    assert second.headers["Cache-Control"] == "no-store"
    assert second.json["access_token"] != first["access_token"]
    assert second.json["refresh_token"] != first["refresh_token"]
    assert contacts(api, second.json["access_token"]).status_code == 200
    third = refresh(api, client, second.json["refresh_token"])
    assert third.status_code == 200


def test_reused_refresh_token_revokes_the_family(api, client):
    first = tokens_for(api, client)
    second = refresh(api, client, first["refresh_token"]).json
    bystander = tokens_for(api, client)
    assert_error(refresh(api, client, first["refresh_token"]), 400, "invalid_grant")
    for access_token in (first["access_token"], second["access_token"]):
        assert_error(contacts(api, access_token), 401, "invalid_grant")
    assert_error(refresh(api, client, second["refresh_token"]), 400, "invalid_grant")
    assert contacts(api, bystander["access_token"]).status_code == 200


def test_refresh_token_expires_after_the_configured_days(api, client, monkeypatch):
    from chalicelib.store import tokens

    settings.update(Context(), {"refreshTokenDays": 2})
    kept, unused = tokens_for(api, client), tokens_for(api, client)
    later(monkeypatch, tokens, 2 * 86400 - 60)
    renewed = refresh(api, client, kept["refresh_token"])
    assert renewed.status_code == 200
    later(monkeypatch, tokens, 2 * 86400 + 60)
    assert_error(refresh(api, client, unused["refresh_token"]), 400, "invalid_grant")
    again = refresh(api, client, renewed.json["refresh_token"])  # the renewed one has a full new period
    assert again.status_code == 200
    later(monkeypatch, tokens, 4 * 86400 + 120)
    assert_error(refresh(api, client, again.json["refresh_token"]), 400, "invalid_grant")


def test_unknown_or_foreign_refresh_token(api, client):
    body = tokens_for(api, client)
    assert_error(refresh(api, client, "not-a-token"), 400, "invalid_grant")
    assert_error(refresh(api, client, ""), 400, "invalid_request")
    doc, secret = clients.create(Context(), "Other", [REDIRECT], "2", creator_id=1)
    assert_error(
        refresh(api, types.SimpleNamespace(id=doc["publicId"], secret=secret), body["refresh_token"]),
        400,
        "invalid_grant",
    )
    assert refresh(api, client, body["refresh_token"]).status_code == 200


# --- client_credentials grant ---------------------------------------------------------------


def test_client_credentials_gives_an_access_token_only_acting_as_the_named_user(api, fresh):
    owner = users.create_user("owner", "owner-password", first_name="Olga")
    doc, secret = clients.create(
        Context(), "Machine", [], "2", creator_id=1, grants=["client_credentials"], user_id=owner["id"]
    )
    response = token(api, {"grant_type": "client_credentials", "client_id": doc["publicId"], "client_secret": secret})
    assert response.status_code == 200 and response.headers["Pragma"] == "no-cache"
    assert list(response.json) == ["access_token", "expires_in", "token_type", "scope"]
    claims = jwt.decode(response.json["access_token"], options={"verify_signature": False})
    assert claims["sub"] == str(owner["id"]) and claims["usr"]["username"] == "owner"
    created = request(
        api,
        "POST",
        "/api/contacts/new",
        {"email": "made@example.com"},
        {"Authorization": f"Bearer {response.json['access_token']}"},
        as_json=True,
    )
    assert created.status_code == 201 and created.json["contact"]["createdBy"] == owner["id"]


def test_a_client_uses_only_its_grants(api, fresh):
    # A code-flow client (the default grants) cannot mint tokens alone with client_credentials.
    doc, secret = clients.create(Context(), "Web app", [REDIRECT], "2", creator_id=1)
    response = token(api, {"grant_type": "client_credentials", "client_id": doc["publicId"], "client_secret": secret})
    assert_error(response, 400, "unauthorized_client")
    machine, machine_secret = clients.create(Context(), "Machine", [], "2", grants=["client_credentials"], user_id=1)
    response = token(
        api,
        {
            "grant_type": "refresh_token",
            "refresh_token": "x",
            "client_id": machine["publicId"],
            "client_secret": machine_secret,
        },
    )
    assert_error(response, 400, "unauthorized_client")
    with pytest.raises(ValueError):
        clients.create(Context(), "No user", [], "2", grants=["client_credentials"])


def test_grant_type_and_scope_errors(api, client):
    base = {"client_id": client.id, "client_secret": client.secret}
    assert_error(
        token(api, {**base, "grant_type": "password", "username": "a", "password": "b"}), 400, "unsupported_grant_type"
    )
    assert_error(token(api, {**base, "grant_type": "implicit"}), 400, "unsupported_grant_type")
    assert_error(token(api, base), 400, "invalid_request")
    assert_error(token(api, {**base, "grant_type": "client_credentials", "scope": "all"}), 400, "invalid_scope")
    response = token(api, {"grant_type": "client_credentials", "client_id": client.id, "client_secret": "x"})
    assert response.json == INVALID_CLIENT


# --- using the access token -----------------------------------------------------------------


def test_access_token_in_header_query_or_form_body_but_only_one(api, client):
    access_token = tokens_for(api, client)["access_token"]
    assert contacts(api, access_token).status_code == 200
    assert request(api, "GET", f"/api/contacts?access_token={access_token}").status_code == 200
    created = request(api, "POST", "/api/tags/new", {"tag": "via-form", "access_token": access_token})
    assert created.status_code == 201, created.body
    both = request(
        api, "GET", f"/api/contacts?access_token={access_token}", headers={"Authorization": f"Bearer {access_token}"}
    )
    assert_error(
        both,
        400,
        "invalid_request",
        "Only one method may be used to authenticate at a time (Auth header, GET or POST).",
    )
    assert_error(contacts(api, access_token[:-2] + "xx"), 401, "invalid_grant", "The access token provided is invalid.")


def test_expired_access_token(api, client, monkeypatch):
    from chalicelib.auth import oauth2

    later(monkeypatch, oauth2, -3601)
    access_token = tokens_for(api, client)["access_token"]
    monkeypatch.undo()
    assert_error(contacts(api, access_token), 401, "invalid_grant", "The access token provided has expired.")


def test_revoked_client_tokens_stop_working(api, client):
    body = tokens_for(api, client)
    clients.revoke(Context(), client.doc["id"])
    assert_error(contacts(api, body["access_token"]), 401, "invalid_grant")
    response = refresh(api, client, body["refresh_token"])
    assert response.status_code == 400 and response.json == INVALID_CLIENT


def test_a_user_revocation_ends_tokens_before_it_and_none_after_it_in_the_same_millisecond(api, client, monkeypatch):
    """Issue times in microseconds: a token issued 0.3 ms after the user's revocation works (milliseconds
    took it for revoked), one issued 0.3 ms before it does not."""
    import time

    millisecond = int(time.time() * 1000 - 10_000) / 1000  # the start of a millisecond ten seconds ago

    def at(offset):
        monkeypatch.setattr(time, "time", lambda: millisecond + offset)

    at(0.0001)
    before = tokens_for(api, client)["access_token"]
    at(0.0004)
    clients.revoke_subject(Context(), "user:1")
    at(0.0007)
    after = tokens_for(api, client)["access_token"]
    monkeypatch.undo()
    assert_error(contacts(api, before), 401, "invalid_grant")
    assert contacts(api, after).status_code == 200


def test_oauth1a_mode_disables_oauth2(api, client):
    body = tokens_for(api, client)
    code = code_for(api, client.id)
    settings.update(Context(), {"oauthMode": "1a"})
    assert_error(contacts(api, body["access_token"]), 401, "invalid_grant")
    assert_error(request(api, "GET", authorize_url(client.id)), 403, "access_denied")
    assert_error(exchange(api, client, code), 403, "access_denied")
    assert_error(refresh(api, client, body["refresh_token"]), 403, "access_denied")
    settings.update(Context(), {"oauthMode": "2"})
    assert contacts(api, body["access_token"]).status_code == 200


def test_api_disabled_closes_the_oauth_endpoints(api, client):
    settings.update(Context(), {"apiEnabled": False})
    for response in (
        request(api, "GET", authorize_url(client.id)),
        token(api, {"grant_type": "client_credentials", "client_id": client.id, "client_secret": client.secret}),
    ):
        assert_error(response, 403, "api_disabled")


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_nothing_secret_is_stored_in_clear(api, client):
    from chalicelib.store.models import Token

    code = code_for(api, client.id)
    body = exchange(api, client, code).json
    dump = json.dumps([item.attribute_values for item in Token.scan()], default=str)
    assert code not in dump and body["refresh_token"] not in dump and client.secret not in dump
