"""OAuth 1a in process: every request is signed by oauthlib's client (the signer behind
requests-oauthlib), the login form is read from the served HTML and posted back."""

import base64
import hashlib
import hmac
import json
import re
import time
from collections import Counter
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import pytest
from oauthlib.oauth1 import SIGNATURE_PLAINTEXT, Client

from chalicelib.auth import clients, oauth1, oauth2, settings
from chalicelib.domain.kernel.context import Context
from tests import motostate
from tests.conftest import ADMIN
from tests.loginform import LoginForm

HOST = "localhost"
BASE = f"http://{HOST}"
CALLBACK = "http://client.example/callback"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


class Response:
    def __init__(self, raw):
        self.status, self.headers = raw.status_code, raw.headers
        self.text = raw.body.decode() if isinstance(raw.body, bytes) else (raw.body or "")

    def json(self):
        return json.loads(self.text)

    def form(self):
        return dict(parse_qsl(self.text, strict_parsing=True))

    def error_type(self):
        return self.json()["errors"][0]["type"]


def send(api, method, path, headers=None, body=b""):
    data = body.encode() if isinstance(body, str) else (body or b"")
    return Response(api.http.request(method, path, headers=dict({"Host": HOST}, **(headers or {})), body=data))


def signed(
    api,
    method,
    path,
    key,
    secret,
    token=None,
    token_secret=None,
    body="",
    headers=None,
    send_body=None,
    send_path=None,
    **client_options,
):
    """Sign `method BASE+path` with oauthlib and send it (optionally a different body or path)."""
    client = Client(
        key, client_secret=secret, resource_owner_key=token, resource_owner_secret=token_secret, **client_options
    )
    _, signed_headers, _ = client.sign(BASE + path, method, body or None, dict(headers or {}))
    return send(api, method, send_path or path, signed_headers, body if send_body is None else send_body)


def cookie_of(response):
    return response.headers["Set-Cookie"].split(";")[0]


@pytest.fixture
def mode_1a(api):
    settings.update(Context(), {"oauthMode": "1a"})
    return api


@pytest.fixture
def consumer(mode_1a):
    doc, secret = clients.create(Context(), "Test app", [CALLBACK], "1a")
    return doc["publicId"], secret, doc


def request_token(api, key, secret, **options):
    options.setdefault("callback_uri", CALLBACK)
    response = signed(api, "POST", "/oauth/v1/request_token", key, secret, **options)
    assert response.status == 200, response.text
    assert response.headers["Content-Type"] == "application/x-www-form-urlencoded"
    return response.form()


def login(api, token, callback=None, password=ADMIN[1]):
    """GET the authorize page, fill in its form and post it; returns the POST response."""
    query = urlencode({"oauth_token": token, **({"oauth_callback": callback} if callback else {})})
    page = send(api, "GET", f"/oauth/v1/authorize?{query}")
    assert page.status == 200 and page.headers["Content-Type"].startswith("text/html"), page.text
    form = LoginForm(page.text)
    assert urlsplit(form.action).path == "/oauth/v1/authorize"
    fields = dict(form.fields, username=ADMIN[0], password=password)
    return send(api, "POST", urlsplit(form.action).path, dict(FORM, Cookie=cookie_of(page)), urlencode(fields))


def access_token(api, key, secret, granted, verifier):
    response = signed(
        api,
        "POST",
        "/oauth/v1/access_token",
        key,
        secret,
        granted["oauth_token"],
        granted["oauth_token_secret"],
        verifier=verifier,
    )
    return response


def authorized(api, consumer):
    """The whole flow; returns (access token, access token secret)."""
    key, secret, _ = consumer
    granted = request_token(api, key, secret)
    redirect = login(api, granted["oauth_token"])
    assert redirect.status == 302, redirect.text
    back = dict(parse_qsl(urlsplit(redirect.headers["Location"]).query))
    response = access_token(api, key, secret, granted, back["oauth_verifier"])
    assert response.status == 200, response.text
    tokens = response.form()
    return tokens["oauth_token"], tokens["oauth_token_secret"]


@pytest.fixture
def access(consumer, mode_1a):
    key, secret, _ = consumer
    token, token_secret = authorized(mode_1a, consumer)
    return {"key": key, "secret": secret, "token": token, "token_secret": token_secret}


def call(api, access, method, path, **kw):
    return signed(api, method, path, access["key"], access["secret"], access["token"], access["token_secret"], **kw)


# ---- the flow -------------------------------------------------------------------------------


def test_full_flow_then_signed_get_and_form_post(mode_1a, consumer):
    api = mode_1a
    key, secret, _ = consumer
    granted = request_token(api, key, secret)
    assert granted["oauth_expires_in"] == "3600" and granted["oauth_callback_confirmed"] == "1"
    assert granted["oauth_token"] and granted["oauth_token_secret"]

    redirect = login(api, granted["oauth_token"])
    assert redirect.status == 302
    location = urlsplit(redirect.headers["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == CALLBACK
    back = dict(parse_qsl(location.query))
    assert back["oauth_token"] == granted["oauth_token"] and back["oauth_verifier"]

    response = access_token(api, key, secret, granted, back["oauth_verifier"])
    assert response.status == 200, response.text
    tokens = response.form()
    assert set(tokens) == {"oauth_token", "oauth_token_secret"}
    access = {
        "key": key,
        "secret": secret,
        "token": tokens["oauth_token"],
        "token_secret": tokens["oauth_token_secret"],
    }

    listed = call(api, access, "GET", "/api/contacts?limit=5&orderBy=id")
    assert listed.status == 200, listed.text
    assert listed.json() == {"total": "0", "contacts": {}}

    created = call(api, access, "POST", "/api/tags/new", body="tag=signed+tag", headers=FORM)
    assert created.status == 201, created.text
    assert created.json()["tag"]["tag"] == "signed tag"

    me = call(api, access, "GET", "/api/users/self")
    assert me.status == 200 and me.json()["username"] == ADMIN[0]


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_token_secrets_are_not_stored(mode_1a, consumer):
    key, secret, _ = consumer
    granted = request_token(mode_1a, key, secret)
    dump = json.dumps([item for _, item in motostate.stored_items()])  # documents as text, compressed or not
    assert key in dump and CALLBACK in dump  # the dump does hold the consumer and the request token's data
    assert granted["oauth_token_secret"] not in dump and granted["oauth_token"] not in dump
    assert secret not in dump


def test_multi_valued_query_and_body_parameters_are_signed(access, mode_1a):
    response = call(mode_1a, access, "GET", "/api/contacts?search=a&search=b&limit=1")
    assert response.status == 200, response.text
    body = "tag=multi&extra=1&extra=2"
    created = call(mode_1a, access, "POST", "/api/tags/new", body=body, headers=FORM)
    assert created.status == 201, created.text


def test_json_body_is_not_part_of_the_signature(access, mode_1a):
    headers = {"Content-Type": "application/json"}
    created = call(mode_1a, access, "POST", "/api/tags/new", body=json.dumps({"tag": "json"}), headers=headers)
    assert created.status == 201, created.text


def php_library_signature(method, url, params, consumer_secret, token_secret):
    """The spec's base string as Mautic's PHP api-library builds it: ksort, nested arrays
    flattened into their top-level name, RFC 3986 encoding, HMAC-SHA1."""

    def enc(value):
        return quote(str(value), safe="~")

    pairs = []
    for name in sorted(params):
        values = params[name] if isinstance(params[name], list) else [params[name]]
        pairs += [f"{enc(name)}={enc(value)}" for value in values]
    base = f"{method}&{enc(url)}&{enc('&'.join(pairs))}"
    key = f"{enc(consumer_secret)}&{enc(token_secret)}"
    return base64.b64encode(hmac.new(key.encode(), base.encode(), hashlib.sha1).digest()).decode()


def test_spec_normalisation_of_bracket_parameters_is_accepted(access, mode_1a):
    oauth = {
        "oauth_consumer_key": access["key"],
        "oauth_nonce": "php1",
        "oauth_signature_method": "HMAC-SHA1",
        "oauth_timestamp": str(int(time.time())),
        "oauth_version": "1.0",
        "oauth_token": access["token"],
    }
    params = dict(oauth, tag="php", extra=["a", "b"])
    oauth["oauth_signature"] = php_library_signature(
        "POST", f"{BASE}/api/tags/new", params, access["secret"], access["token_secret"]
    )
    header = "OAuth " + ", ".join(f'{name}="{quote(value, safe="~")}"' for name, value in sorted(oauth.items()))
    body = "tag=php&extra%5B0%5D=a&extra%5B1%5D=b"
    response = send(mode_1a, "POST", "/api/tags/new", dict(FORM, Authorization=header), body)
    assert response.status == 201, response.text
    tampered = send(
        mode_1a,
        "POST",
        "/api/tags/new",
        dict(FORM, Authorization=header.replace("php1", "php2")),
        body.replace("tag=php", "tag=evil"),
    )
    assert tampered.status == 401 and tampered.error_type() == "signature_invalid"


# ---- refusals -------------------------------------------------------------------------------


def test_replayed_nonce_is_refused(access, mode_1a):
    options = {"nonce": "fixed-nonce-1", "timestamp": str(int(time.time()))}
    assert call(mode_1a, access, "GET", "/api/contacts", **options).status == 200
    again = call(mode_1a, access, "GET", "/api/contacts", **options)
    assert again.status == 400 and again.error_type() == "nonce_used"
    assert again.json()["errors"][0] == {
        "message": "The nonce has already been used.",
        "code": 400,
        "type": "nonce_used",
    }


def test_replayed_request_token_call_is_refused(consumer, mode_1a):
    key, secret, _ = consumer
    options = {"nonce": "fixed-nonce-2", "timestamp": str(int(time.time())), "callback_uri": CALLBACK}
    assert signed(mode_1a, "POST", "/oauth/v1/request_token", key, secret, **options).status == 200
    again = signed(mode_1a, "POST", "/oauth/v1/request_token", key, secret, **options)
    assert again.status == 400 and again.error_type() == "nonce_used"


@pytest.mark.parametrize("offset", [-700, 700])
def test_stale_or_future_timestamp_is_refused(access, mode_1a, offset):
    response = call(mode_1a, access, "GET", "/api/contacts", timestamp=str(int(time.time()) + offset))
    assert response.status == 400 and response.error_type() == "timestamp_refused"


def test_timestamp_within_the_window_is_accepted(access, mode_1a):
    response = call(mode_1a, access, "GET", "/api/contacts", timestamp=str(int(time.time()) - 500))
    assert response.status == 200, response.text


def test_tampered_body_is_refused(access, mode_1a):
    response = call(mode_1a, access, "POST", "/api/tags/new", body="tag=good", headers=FORM, send_body="tag=evil")
    assert response.status == 401 and response.error_type() == "signature_invalid"
    assert response.headers["WWW-Authenticate"].startswith("OAuth")
    assert int(call(mode_1a, access, "GET", "/api/tags?search=evil").json()["total"]) == 0


def test_added_body_parameter_is_refused(access, mode_1a):
    response = call(
        mode_1a, access, "POST", "/api/tags/new", body="tag=good", headers=FORM, send_body="tag=good&description=x"
    )
    assert response.status == 401 and response.error_type() == "signature_invalid"


def test_tampered_query_is_refused(access, mode_1a):
    response = call(mode_1a, access, "GET", "/api/contacts?limit=1", send_path="/api/contacts?limit=2")
    assert response.status == 401 and response.error_type() == "signature_invalid"


def test_other_path_is_refused(access, mode_1a):
    response = call(mode_1a, access, "GET", "/api/contacts", send_path="/api/tags")
    assert response.status == 401 and response.error_type() == "signature_invalid"


def test_wrong_consumer_secret_is_refused(access, mode_1a):
    response = call(mode_1a, dict(access, secret="not-the-secret"), "GET", "/api/contacts")
    assert response.status == 401 and response.error_type() == "signature_invalid"


def test_wrong_token_secret_is_refused(access, mode_1a):
    response = call(mode_1a, dict(access, token_secret="not-the-secret"), "GET", "/api/contacts")
    assert response.status == 401 and response.error_type() == "signature_invalid"


def test_unknown_consumer_is_refused(access, mode_1a):
    response = call(mode_1a, dict(access, key="99_unknown"), "GET", "/api/contacts")
    assert response.status == 401 and response.error_type() == "consumer_key_unknown"


def test_unknown_token_is_refused(access, mode_1a):
    response = call(mode_1a, dict(access, token="made-up-token"), "GET", "/api/contacts")
    assert response.status == 401 and response.error_type() == "token_rejected"


def test_request_token_is_not_an_access_token(consumer, mode_1a):
    key, secret, _ = consumer
    granted = request_token(mode_1a, key, secret)
    response = signed(
        mode_1a, "GET", "/api/contacts", key, secret, granted["oauth_token"], granted["oauth_token_secret"]
    )
    assert response.status == 401 and response.error_type() == "token_rejected"


def test_access_token_of_another_consumer_is_refused(access, mode_1a):
    other, other_secret = clients.create(Context(), "Other", [CALLBACK], "1a")
    response = call(mode_1a, dict(access, key=other["publicId"], secret=other_secret), "GET", "/api/contacts")
    assert response.status == 401 and response.error_type() == "token_rejected"


def test_revoked_consumer_is_refused(access, consumer, mode_1a):
    clients.revoke(Context(), consumer[2]["id"])
    response = call(mode_1a, access, "GET", "/api/contacts")
    assert response.status == 401 and response.error_type() == "consumer_key_unknown"
    again = signed(mode_1a, "POST", "/oauth/v1/request_token", access["key"], access["secret"], callback_uri=CALLBACK)
    assert again.status == 401 and again.error_type() == "consumer_key_unknown"


def test_oauth2_client_is_not_a_consumer(mode_1a):
    doc, secret = clients.create(Context(), "OAuth2 app", ["https://client.example/callback"], "2")
    response = signed(mode_1a, "POST", "/oauth/v1/request_token", doc["publicId"], secret, callback_uri=CALLBACK)
    assert response.status == 401 and response.error_type() == "consumer_key_unknown"


def test_deauthorized_access_token_is_refused(access, mode_1a):
    assert call(mode_1a, access, "GET", "/api/contacts").status == 200
    assert oauth1.deauthorize(Context(), access["token"], user_id=999) is False
    assert oauth1.deauthorize(Context(), access["token"]) is True
    response = call(mode_1a, access, "GET", "/api/contacts")
    assert response.status == 401 and response.error_type() == "token_rejected"
    assert oauth1.deauthorize(Context(), access["token"]) is False


def test_the_client_can_deauthorize_its_token(access, mode_1a):
    response = call(mode_1a, access, "POST", "/oauth/v1/deauthorize")
    assert response.status == 200
    response = call(mode_1a, access, "GET", "/api/contacts")
    assert response.status == 401 and response.error_type() == "token_rejected"
    assert call(mode_1a, access, "POST", "/oauth/v1/deauthorize").status == 401


def test_plaintext_is_refused(consumer, mode_1a):
    key, secret, _ = consumer
    response = signed(
        mode_1a,
        "POST",
        "/oauth/v1/request_token",
        key,
        secret,
        callback_uri=CALLBACK,
        signature_method=SIGNATURE_PLAINTEXT,
    )
    assert response.status == 400 and response.error_type() == "signature_method_rejected"


@pytest.mark.parametrize("method", ["RSA-SHA1", "HMAC-SHA256"])
def test_other_signature_methods_are_refused(access, mode_1a, method):
    client = Client(
        access["key"],
        client_secret=access["secret"],
        resource_owner_key=access["token"],
        resource_owner_secret=access["token_secret"],
    )
    _, headers, _ = client.sign(f"{BASE}/api/contacts", "GET")
    headers["Authorization"] = headers["Authorization"].replace("HMAC-SHA1", method)
    response = send(mode_1a, "GET", "/api/contacts", headers)
    assert response.status == 400 and response.error_type() == "signature_method_rejected"


def test_missing_parameter_is_refused(access, mode_1a):
    client = Client(
        access["key"],
        client_secret=access["secret"],
        resource_owner_key=access["token"],
        resource_owner_secret=access["token_secret"],
    )
    _, headers, _ = client.sign(f"{BASE}/api/contacts", "GET")
    header = re.sub(r'oauth_nonce="[^"]*",? ?', "", headers["Authorization"])
    assert "oauth_nonce" not in header and header.startswith("OAuth oauth_")
    response = send(mode_1a, "GET", "/api/contacts", {"Authorization": header})
    assert response.status == 400 and response.error_type() == "parameter_absent"


def test_oauth_parameters_outside_the_header_are_refused(access, mode_1a):
    response = call(mode_1a, access, "GET", "/api/contacts?oauth_token=other")
    assert response.status == 400 and response.error_type() == "parameter_rejected"


# ---- access-token exchange --------------------------------------------------------------------


def test_wrong_verifier_and_unauthorized_token_are_refused(consumer, mode_1a):
    key, secret, _ = consumer
    granted = request_token(mode_1a, key, secret)
    response = access_token(mode_1a, key, secret, granted, "no-verifier-yet")
    assert response.status == 401 and response.error_type() == "token_rejected"
    redirect = login(mode_1a, granted["oauth_token"])
    verifier = dict(parse_qsl(urlsplit(redirect.headers["Location"]).query))["oauth_verifier"]
    response = access_token(mode_1a, key, secret, granted, verifier + "x")
    assert response.status == 401 and response.error_type() == "token_rejected"
    assert access_token(mode_1a, key, secret, granted, verifier).status == 200


def test_request_token_is_exchanged_once(consumer, mode_1a):
    key, secret, _ = consumer
    granted = request_token(mode_1a, key, secret)
    redirect = login(mode_1a, granted["oauth_token"])
    verifier = dict(parse_qsl(urlsplit(redirect.headers["Location"]).query))["oauth_verifier"]
    assert access_token(mode_1a, key, secret, granted, verifier).status == 200
    again = access_token(mode_1a, key, secret, granted, verifier)
    assert again.status == 401 and again.error_type() == "token_rejected"


def test_access_token_call_without_verifier_is_refused(consumer, mode_1a):
    key, secret, _ = consumer
    granted = request_token(mode_1a, key, secret)
    response = signed(
        mode_1a, "POST", "/oauth/v1/access_token", key, secret, granted["oauth_token"], granted["oauth_token_secret"]
    )
    assert response.status == 400 and response.error_type() == "parameter_absent"


def test_request_token_of_another_consumer_is_refused(consumer, mode_1a):
    key, secret, _ = consumer
    granted = request_token(mode_1a, key, secret)
    redirect = login(mode_1a, granted["oauth_token"])
    verifier = dict(parse_qsl(urlsplit(redirect.headers["Location"]).query))["oauth_verifier"]
    other, other_secret = clients.create(Context(), "Other", [CALLBACK], "1a")
    response = access_token(mode_1a, other["publicId"], other_secret, granted, verifier)
    assert response.status == 401 and response.error_type() == "token_rejected"


# ---- callbacks ----------------------------------------------------------------------------------


def test_given_registered_callback_with_query_is_used(consumer, mode_1a):
    key, secret, _ = consumer
    granted = request_token(mode_1a, key, secret, callback_uri=CALLBACK + "?session=42")
    location = login(mode_1a, granted["oauth_token"]).headers["Location"]
    query = dict(parse_qsl(urlsplit(location).query))
    assert location.startswith(CALLBACK + "?session=42&") and query["oauth_token"] == granted["oauth_token"]


def test_unregistered_callback_is_refused(consumer, mode_1a):
    key, secret, _ = consumer
    response = signed(mode_1a, "POST", "/oauth/v1/request_token", key, secret, callback_uri="http://evil.example/")
    assert response.status == 400 and response.error_type() == "parameter_rejected"
    granted = request_token(mode_1a, key, secret)
    query = urlencode({"oauth_token": granted["oauth_token"], "oauth_callback": "http://evil.example/cb"})
    page = send(mode_1a, "GET", f"/oauth/v1/authorize?{query}")
    assert page.status == 400 and page.error_type() == "parameter_rejected"


def test_authorize_callback_overrides_with_a_registered_one(mode_1a):
    doc, secret = clients.create(Context(), "Two callbacks", [CALLBACK, "http://client.example/other"], "1a")
    granted = request_token(mode_1a, doc["publicId"], secret)
    redirect = login(mode_1a, granted["oauth_token"], callback="http://client.example/other")
    assert redirect.headers["Location"].startswith("http://client.example/other?oauth_token=")


def test_missing_callback_uses_the_registered_one(consumer, mode_1a):
    key, secret, _ = consumer
    granted = request_token(mode_1a, key, secret, callback_uri=None)
    assert login(mode_1a, granted["oauth_token"]).headers["Location"].startswith(CALLBACK + "?oauth_token=")


def test_oob_shows_the_verifier(consumer, mode_1a):
    key, secret, _ = consumer
    granted = request_token(mode_1a, key, secret, callback_uri="oob")
    page = login(mode_1a, granted["oauth_token"])
    assert page.status == 200 and 'id="oauth_verifier"' in page.text
    verifier = page.text.split('id="oauth_verifier">')[1].split("<")[0]
    assert access_token(mode_1a, key, secret, granted, verifier).status == 200


def test_consumer_without_callbacks_binds_the_request_token_callback(mode_1a):
    doc, secret = clients.create(Context(), "No callbacks", [], "1a")
    granted = request_token(mode_1a, doc["publicId"], secret, callback_uri="http://app.example/back")
    query = urlencode({"oauth_token": granted["oauth_token"], "oauth_callback": "http://evil.example/"})
    assert send(mode_1a, "GET", f"/oauth/v1/authorize?{query}").status == 400
    redirect = login(mode_1a, granted["oauth_token"])
    assert redirect.headers["Location"].startswith("http://app.example/back?oauth_token=")


# ---- the login form -------------------------------------------------------------------------


def test_authorize_post_needs_the_csrf_cookie(consumer, mode_1a):
    key, secret, _ = consumer
    granted = request_token(mode_1a, key, secret)
    page = send(mode_1a, "GET", f"/oauth/v1/authorize?oauth_token={granted['oauth_token']}")
    fields = urlencode(dict(LoginForm(page.text).fields, username=ADMIN[0], password=ADMIN[1]))
    missing = send(mode_1a, "POST", "/oauth/v1/authorize", FORM, fields)
    assert missing.status == 403 and missing.json()["errors"][0]["code"] == 403
    other = send(mode_1a, "GET", f"/oauth/v1/authorize?oauth_token={granted['oauth_token']}")
    mismatched = send(mode_1a, "POST", "/oauth/v1/authorize", dict(FORM, Cookie=cookie_of(other)), fields)
    assert mismatched.status == 403
    ok = send(mode_1a, "POST", "/oauth/v1/authorize", dict(FORM, Cookie=cookie_of(page)), fields)
    assert ok.status == 302


def test_wrong_password_shows_the_form_again(consumer, mode_1a):
    key, secret, _ = consumer
    granted = request_token(mode_1a, key, secret)
    again = login(mode_1a, granted["oauth_token"], password="wrong")
    assert again.status == 200 and 'role="alert"' in again.text and "Location" not in again.headers
    assert LoginForm(again.text).fields["oauth_token"] == granted["oauth_token"]
    assert login(mode_1a, granted["oauth_token"]).status == 302


def test_authorize_with_unknown_or_used_token(consumer, mode_1a):
    unknown = send(mode_1a, "GET", "/oauth/v1/authorize?oauth_token=nope")
    assert unknown.status == 401 and unknown.error_type() == "token_rejected"
    assert send(mode_1a, "GET", "/oauth/v1/authorize").status == 401
    key, secret, _ = consumer
    granted = request_token(mode_1a, key, secret)
    assert login(mode_1a, granted["oauth_token"]).status == 302
    used = send(mode_1a, "GET", f"/oauth/v1/authorize?oauth_token={granted['oauth_token']}")
    assert used.status == 401


# ---- modes and switches -----------------------------------------------------------------------


def test_mode_2_refuses_oauth1(access, mode_1a):
    settings.update(Context(), {"oauthMode": "2"})
    response = call(mode_1a, access, "GET", "/api/contacts")
    assert response.status == 401 and response.json()["errors"][0]["code"] == 401
    endpoint = signed(
        mode_1a, "POST", "/oauth/v1/request_token", access["key"], access["secret"], callback_uri=CALLBACK
    )
    assert endpoint.status == 403
    assert send(mode_1a, "GET", "/oauth/v1/authorize?oauth_token=x").status == 403
    settings.update(Context(), {"oauthMode": "1a"})
    assert call(mode_1a, access, "GET", "/api/contacts").status == 200


def test_mode_1a_refuses_bearer_tokens(api):
    client, _ = clients.create(Context(), "OAuth2 app", ["https://client.example/callback"], "2")
    token, _ = oauth2.issue_access_token(Context(), client, {"id": 1, "username": "admin"}, "family-1")
    bearer = {"Authorization": f"Bearer {token}"}
    assert send(api, "GET", "/api/contacts", bearer).status == 200
    settings.update(Context(), {"oauthMode": "1a"})
    refused = send(api, "GET", "/api/contacts", bearer)
    assert refused.status == 401 and refused.json()["errors"][0]["code"] == 401


def test_api_disabled_closes_the_endpoints(consumer, mode_1a):
    settings.update(Context(), {"apiEnabled": False})
    key, secret, _ = consumer
    response = signed(mode_1a, "POST", "/oauth/v1/request_token", key, secret, callback_uri=CALLBACK)
    assert response.status == 403 and response.error_type() == "api_disabled"


def test_wrong_methods_are_json_405(mode_1a):
    response = send(mode_1a, "GET", "/oauth/v1/request_token")
    assert response.status == 405 and response.json()["errors"][0]["code"] == 405


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_a_signed_call_costs_one_token_read_and_one_nonce_write(access, mode_1a):
    from tests.bench.test_api_costs import dynamodb_calls

    basic = {"Authorization": mode_1a.auth["Authorization"]}
    send(mode_1a, "GET", "/api/contacts", basic)  # Basic credentials are cached after the first call
    with dynamodb_calls(with_authorizer=True) as by_basic:
        assert send(mode_1a, "GET", "/api/contacts", basic).status == 200
    with dynamodb_calls(with_authorizer=True) as by_oauth1:
        assert call(mode_1a, access, "GET", "/api/contacts").status == 200
    lockouts = Counter({"GetItem": 2})  # cached Basic credentials still read their address's two lockout counters
    assert by_oauth1 - (by_basic - lockouts) == {"GetItem": 1, "PutItem": 1}, (by_basic, by_oauth1)
    assert (by_basic - lockouts) - by_oauth1 == {}


def test_php_library_style_access_token_exchange(consumer, mode_1a):
    """Mautic's PHP api-library puts every parameter in the header, repeats oauth_verifier in the
    form body and sends oauth_callback again; the spec's merged normalisation accepts it."""
    key, secret, _ = consumer
    granted = request_token(mode_1a, key, secret)
    redirect = login(mode_1a, granted["oauth_token"])
    verifier = dict(parse_qsl(urlsplit(redirect.headers["Location"]).query))["oauth_verifier"]
    oauth = {
        "oauth_consumer_key": key,
        "oauth_nonce": "php-exchange",
        "oauth_signature_method": "HMAC-SHA1",
        "oauth_timestamp": str(int(time.time())),
        "oauth_version": "1.0",
        "oauth_token": granted["oauth_token"],
        "oauth_callback": CALLBACK,
        "oauth_verifier": verifier,
    }
    oauth["oauth_signature"] = php_library_signature(
        "POST", f"{BASE}/oauth/v1/access_token", oauth, secret, granted["oauth_token_secret"]
    )
    header = "OAuth " + ", ".join(f'{name}="{quote(value, safe="~")}"' for name, value in sorted(oauth.items()))
    response = send(
        mode_1a,
        "POST",
        "/oauth/v1/access_token",
        dict(FORM, Authorization=header),
        urlencode({"oauth_verifier": verifier}),
    )
    assert response.status == 200, response.text
    assert set(response.form()) == {"oauth_token", "oauth_token_secret"}
