"""OAuth 1a end to end: a real devserver switched to mode 1a and given a consumer with the admin
CLI, requests-oauthlib's OAuth1Session as the client over HTTP, the login form posted for real."""

import pytest
import requests
from requests_oauthlib import OAuth1, OAuth1Session

from tests.e2e.test_local_stack import PASSWORD, Stack
from tests.loginform import LoginForm

CALLBACK = "https://client.example/oauth1/callback"


def cli(stack, data_dir, *args):
    """The admin CLI against the running stack; returns its JSON output."""
    code, output = stack.cli(*args)
    assert code == 0, output
    return output


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("oauth1") / "data"
    stack = Stack(data_dir)
    try:
        assert cli(stack, data_dir, "settings", "set", "--oauth-mode", "1a")["oauthMode"] == "1a"
        consumer = cli(stack, data_dir, "clients", "create", "--name", "E2E consumer", "--redirect-uri", CALLBACK)
        assert consumer["mode"] == "1a" and consumer["clientId"] and consumer["clientSecret"]
        yield {
            "base": f"http://127.0.0.1:{stack.port}",
            "key": consumer["clientId"],
            "secret": consumer["clientSecret"],
            "stack": stack,
            "data_dir": data_dir,
        }
    finally:
        if stack.process.poll() is None:
            stack.stop()


def log_in(authorization_url, password=PASSWORD):
    """What a browser does: load the page, fill the form, post it with the cookie."""
    browser = requests.Session()
    page = browser.get(authorization_url, timeout=10)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html"), page.text
    form = LoginForm(page.text)
    assert form.action and "_csrf" in form.fields and browser.cookies
    return browser.post(
        form.action, data=dict(form.fields, username="admin", password=password), allow_redirects=False, timeout=10
    )


def authorize(service):
    """The whole flow with OAuth1Session; returns the session holding the access token."""
    session = OAuth1Session(service["key"], client_secret=service["secret"], callback_uri=CALLBACK)
    granted = session.fetch_request_token(f"{service['base']}/oauth/v1/request_token")
    assert granted["oauth_callback_confirmed"] == "1" and granted["oauth_expires_in"] == "3600"
    answer = log_in(session.authorization_url(f"{service['base']}/oauth/v1/authorize"))
    assert answer.status_code == 302, answer.text
    assert answer.headers["Location"].startswith(CALLBACK + "?")
    back = session.parse_authorization_response(answer.headers["Location"])
    assert back["oauth_token"] == granted["oauth_token"]
    tokens = session.fetch_access_token(f"{service['base']}/oauth/v1/access_token")
    assert tokens["oauth_token"] and tokens["oauth_token_secret"]
    return session, tokens


def test_oauth1_flow_over_http(service):
    session, tokens = authorize(service)
    base = service["base"]

    listed = session.get(f"{base}/api/contacts", params={"limit": 5, "orderBy": "id"}, timeout=10)
    assert listed.status_code == 200, listed.text
    assert set(listed.json()) == {"total", "contacts"}

    created = session.post(f"{base}/api/tags/new", data={"tag": "from oauth1", "extra": ["a", "b"]}, timeout=10)
    assert created.status_code == 201, created.text
    assert created.json()["tag"]["tag"] == "from oauth1"
    assert session.get(f"{base}/api/users/self", timeout=10).json()["username"] == "admin"

    # A fresh client object holding only the stored token, as an application would after a restart.
    auth = OAuth1(
        service["key"],
        client_secret=service["secret"],
        resource_owner_key=tokens["oauth_token"],
        resource_owner_secret=tokens["oauth_token_secret"],
    )
    assert requests.get(f"{base}/api/tags", auth=auth, timeout=10).status_code == 200


def test_refusals_over_http(service):
    session, tokens = authorize(service)
    base = service["base"]

    prepared = requests.Request("GET", f"{base}/api/contacts", auth=session.auth).prepare()
    with requests.Session() as http:
        assert http.send(prepared, timeout=10).status_code == 200
        replay = http.send(prepared, timeout=10)
    assert replay.status_code == 400 and replay.json()["errors"][0]["type"] == "nonce_used"

    tampered = requests.Request("POST", f"{base}/api/tags/new", data={"tag": "good"}, auth=session.auth).prepare()
    tampered.body = "tag=evil"
    tampered.headers["Content-Length"] = str(len(tampered.body))
    with requests.Session() as http:
        response = http.send(tampered, timeout=10)
    assert response.status_code == 401 and response.json()["errors"][0]["type"] == "signature_invalid"

    wrong = OAuth1(
        service["key"],
        client_secret="wrong",
        resource_owner_key=tokens["oauth_token"],
        resource_owner_secret=tokens["oauth_token_secret"],
    )
    response = requests.get(f"{base}/api/contacts", auth=wrong, timeout=10)
    assert response.status_code == 401 and response.json()["errors"][0]["type"] == "signature_invalid"

    bad_password = OAuth1Session(service["key"], client_secret=service["secret"], callback_uri=CALLBACK)
    bad_password.fetch_request_token(f"{base}/oauth/v1/request_token")
    again = log_in(bad_password.authorization_url(f"{base}/oauth/v1/authorize"), password="wrong")
    assert again.status_code == 200 and 'role="alert"' in again.text


def test_mode_2_refuses_oauth1_over_http(service):
    session, _ = authorize(service)
    base = service["base"]
    cli(service["stack"], service["data_dir"], "settings", "set", "--oauth-mode", "2")
    try:
        response = session.get(f"{base}/api/contacts", timeout=10)
        assert response.status_code == 401 and response.json()["errors"][0]["code"] == 401
        endpoint = OAuth1Session(service["key"], client_secret=service["secret"], callback_uri=CALLBACK)
        refused = endpoint.post(f"{base}/oauth/v1/request_token", timeout=10)
        assert refused.status_code == 403
    finally:
        cli(service["stack"], service["data_dir"], "settings", "set", "--oauth-mode", "1a")
    assert session.get(f"{base}/api/contacts", timeout=10).status_code == 200
