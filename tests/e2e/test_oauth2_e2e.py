"""OAuth2 end to end: a real devserver, clients made with the admin CLI, requests-oauthlib as the client.

The login is a real HTML form post: the page is fetched with requests, its form's hidden fields
and the CSRF cookie are read and posted back with the user's credentials.
"""

from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from oauthlib.oauth2 import BackendApplicationClient
from requests.auth import HTTPBasicAuth
from requests_oauthlib import OAuth2Session

from tests.e2e.test_local_stack import PASSWORD, Stack
from tests.loginform import LoginForm

REDIRECT = "https://client.example/callback"


class Service:
    """A running stack, its data directory and its URLs."""

    def __init__(self, data_dir):
        self.data_dir = data_dir
        self.stack = Stack(data_dir)
        self.base = f"http://127.0.0.1:{self.stack.port}"

    def cli(self, *args):
        """The admin CLI against this stack; returns its JSON output."""
        code, output = self.stack.cli(*args)
        assert code == 0, output
        return output


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    running = Service(tmp_path_factory.mktemp("oauth2") / "data")
    yield running
    if running.stack.process.poll() is None:
        running.stack.stop()


@pytest.fixture(autouse=True)
def plain_http_for_loopback(monkeypatch):
    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")  # the stack is http://127.0.0.1


def log_in(authorization_url, username="admin", password=PASSWORD):
    """What a browser does: load the page, fill the form, post it with the cookie. Returns the answer."""
    browser = requests.Session()
    page = browser.get(authorization_url, timeout=10)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html"), page.text
    form = LoginForm(page.text)
    assert form.action and "_csrf" in form.fields and browser.cookies
    fields = dict(form.fields, username=username, password=password)
    return browser.post(form.action, data=fields, allow_redirects=False, timeout=10)


def test_authorization_code_flow_with_pkce_refresh_and_replay(service):
    client = service.cli("clients", "create", "--name", "E2E web app", "--redirect-uri", REDIRECT)
    assert client["mode"] == "2" and client["redirectUris"] == [REDIRECT]
    token_url = service.base + "/oauth/v2/token"
    session = OAuth2Session(client["clientId"], redirect_uri=REDIRECT, pkce="S256")
    url, state = session.authorization_url(service.base + "/oauth/v2/authorize")

    refused = log_in(url, password="wrong-password")
    assert refused.status_code == 200 and "Invalid username or password." in refused.text

    answer = log_in(url)
    assert answer.status_code == 302, answer.text
    callback = answer.headers["Location"]
    assert callback.startswith(REDIRECT + "?") and parse_qs(urlsplit(callback).query)["state"] == [state]

    # requests-oauthlib checks the state, sends the PKCE verifier and authenticates by HTTP Basic
    token = session.fetch_token(token_url, authorization_response=callback, client_secret=client["clientSecret"])
    assert token["token_type"] == "bearer" and token["expires_in"] == 3600 and token["refresh_token"]
    listed = session.get(service.base + "/api/contacts", timeout=10)
    assert listed.status_code == 200 and int(listed.json()["total"]) == 0
    assert session.get(service.base + "/api/users/self", timeout=10).json()["username"] == "admin"

    # the code was single use: a second exchange fails and revokes what the first one issued
    code = parse_qs(urlsplit(callback).query)["code"][0]
    replay = requests.post(
        token_url,
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "code_verifier": session._code_verifier,
        },
        auth=HTTPBasicAuth(client["clientId"], client["clientSecret"]),
        timeout=10,
    )
    assert replay.status_code == 400 and replay.json()["errors"][0]["type"] == "invalid_grant"
    assert session.get(service.base + "/api/contacts", timeout=10).status_code == 401

    # a new authorization; then refresh rotates both tokens and a replayed refresh token revokes the family
    session = OAuth2Session(client["clientId"], redirect_uri=REDIRECT, pkce="S256")
    url, _ = session.authorization_url(service.base + "/oauth/v2/authorize")
    first = session.fetch_token(
        token_url, authorization_response=log_in(url).headers["Location"], client_secret=client["clientSecret"]
    )
    basic = HTTPBasicAuth(client["clientId"], client["clientSecret"])
    second = session.refresh_token(token_url, auth=basic)
    assert second["access_token"] != first["access_token"] and second["refresh_token"] != first["refresh_token"]
    assert session.get(service.base + "/api/contacts", timeout=10).status_code == 200
    replayed = requests.post(
        token_url, data={"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}, auth=basic, timeout=10
    )
    assert replayed.status_code == 400 and replayed.json()["errors"][0]["type"] == "invalid_grant"
    assert session.get(service.base + "/api/contacts", timeout=10).status_code == 401


def test_client_credentials_grant(service):
    client = service.cli(
        "clients", "create", "--name", "E2E machine", "--grant", "client_credentials", "--user", "admin"
    )
    session = OAuth2Session(client=BackendApplicationClient(client_id=client["clientId"]))
    token = session.fetch_token(
        service.base + "/oauth/v2/token", client_id=client["clientId"], client_secret=client["clientSecret"]
    )
    assert "refresh_token" not in token and token["token_type"] == "bearer"
    created = session.post(service.base + "/api/contacts/new", json={"email": "machine@example.com"}, timeout=10)
    assert created.status_code == 201, created.text
    assert session.get(service.base + "/api/users/self", timeout=10).json()["username"] == "admin"

    wrong = requests.post(
        service.base + "/oauth/v2/token",
        data={"grant_type": "client_credentials"},
        auth=HTTPBasicAuth(client["clientId"], "not-the-secret"),
        timeout=10,
    )
    assert wrong.status_code == 400
    assert wrong.json() == {
        "errors": [{"code": 400, "message": "The client credentials are invalid", "type": "invalid_client"}]
    }

    service.cli("clients", "revoke", str(client["id"]))
    assert session.get(service.base + "/api/contacts", timeout=10).status_code == 401
