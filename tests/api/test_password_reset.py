"""Password reset and invitations (docs/auth.md "Password reset and invitations"): the public
`/passwordreset` and `/passwordresetconfirm` pages, and the administrator-only move-in invitation."""

import base64
import json
import re
import time
from urllib.parse import urlencode, urlsplit

import pytest

from chalicelib.auth import resets
from chalicelib.ports import adapters
from chalicelib.store import port as store
from tests.api.test_permissions import FORBIDDEN, _as

FORM = "application/x-www-form-urlencoded"
NEW_PASSWORD = "Blue-heron-42-lake"
LINK = re.compile(r"https?://[^\s\"<]+/passwordresetconfirm\?token=([A-Za-z0-9_-]+)")


def sent():
    return list(adapters.active().mail.sent)


def token_of(message):
    """The token of the reset link in a message's text and HTML (the same)."""
    tokens = {LINK.search(message.mail.text).group(1), LINK.search(message.mail.html).group(1)}
    assert len(tokens) == 1
    return tokens.pop()


def post(api, path, fields, form=False):
    """A public post, without credentials: form-encoded (the pages) or JSON."""
    raw = urlencode(fields).encode() if form else json.dumps(fields).encode()
    headers = {"Content-Type": FORM if form else "application/json"}
    response = api.http.request("POST", path, headers=headers, body=raw)
    text = response.body.decode() if isinstance(response.body, bytes) else response.body
    response.text = text
    response.json = (
        json.loads(text) if response.headers.get("Content-Type", "").startswith("application/json") else None
    )
    return response


def get(api, path):
    response = api.http.request("GET", path, headers={}, body=b"")
    response.text = response.body.decode() if isinstance(response.body, bytes) else response.body
    return response


def basic(api, username, password):
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return api.get("/api/users/self", auth=False, headers={"Authorization": f"Basic {token}"})


@pytest.fixture
def june(api):
    """A user with an email, and their Api (Basic, with the password they had)."""
    return _as(api, "june", {"lead:leads": ["viewown"]})


def test_a_request_answers_the_same_for_a_user_and_for_nobody_and_mails_only_the_user(api, june):
    answers = {
        name: post(api, "/passwordreset", {"identifier": name})
        for name in ("june", "JUNE@example.com", "nobody", "nobody@example.com")
    }
    assert {(a.status_code, a.body) for a in answers.values()} == {(200, answers["june"].body)}
    assert answers["june"].json["message"].startswith("If this user exists, an email with a link")
    pages = {name: post(api, "/passwordreset", {"identifier": name}, form=True) for name in ("june", "nobody")}
    assert (
        pages["june"].status_code == pages["nobody"].status_code == 200 and pages["june"].text == pages["nobody"].text
    )
    assert pages["june"].headers["Cache-Control"] == "no-store"
    assert pages["june"].headers["Referrer-Policy"] == "no-referrer"
    messages = sent()
    assert [m.mail.to for m in messages] == ["june@example.com"] * 3  # by username, by email, by the form
    assert (
        messages[0].mail.subject == "Mautic password reset"
        and "You requested a password reset" in messages[0].mail.text
    )
    assert len({token_of(m) for m in messages}) == 3
    blank = post(api, "/passwordreset", {"identifier": " "})
    assert blank.status_code == 400 and "identifier" in blank.json["errors"][0]["details"]
    assert len(sent()) == 3


def test_the_link_sets_a_password_that_basic_auth_then_accepts_and_ends_the_old_one(api, june):
    post(api, "/passwordreset", {"identifier": "june"})
    (message,) = sent()
    link = LINK.search(message.mail.text).group(0)
    page = get(api, urlsplit(link).path + "?" + urlsplit(link).query)
    assert page.status_code == 200 and 'name="password"' in page.text and token_of(message) in page.text
    assert page.headers["X-Frame-Options"] == "DENY"
    done = post(
        api,
        "/passwordresetconfirm",
        {"token": token_of(message), "password": NEW_PASSWORD, "confirm": NEW_PASSWORD},
        True,
    )
    assert done.status_code == 200 and "You may now log in as june" in done.text
    assert basic(api, "june", NEW_PASSWORD).status_code == 200
    assert basic(api, "june", "secret-pass-1").status_code == 401


def test_a_used_an_expired_or_an_outdated_link_is_refused_with_its_reason(api, june):
    for _ in range(2):
        post(api, "/passwordreset", {"identifier": "june"})
    first, second = (token_of(m) for m in sent())
    fields = {"token": first, "password": NEW_PASSWORD, "confirm": NEW_PASSWORD}
    assert post(api, "/passwordresetconfirm", fields).status_code == 200
    again = post(api, "/passwordresetconfirm", fields)
    assert again.status_code == 400 and again.json["errors"][0]["details"] == {"token": [resets.USED]}
    reused_page = get(api, f"/passwordresetconfirm?token={first}")
    assert reused_page.status_code == 200 and "used already" in reused_page.text and "<form" not in reused_page.text
    outdated = post(api, "/passwordresetconfirm", dict(fields, token=second))
    assert outdated.json["errors"][0]["details"] == {"token": [resets.CHANGED]}  # a newer password ends it
    post(api, "/passwordreset", {"identifier": "june"})
    third = token_of(sent()[-1])
    tokens = adapters.active().tokens
    tokens.clock = lambda: time.time() + 24 * 3600 + 1
    expired = post(api, "/passwordresetconfirm", dict(fields, token=third))
    assert expired.status_code == 400 and expired.json["errors"][0]["details"] == {"token": [resets.EXPIRED]}
    assert resets.EXPIRED in get(api, f"/passwordresetconfirm?token={third}").text
    guessed = post(api, "/passwordresetconfirm", dict(fields, token="x" * 43), form=True)
    assert guessed.status_code == 200 and 'role="alert"' in guessed.text and "expired or is not valid" in guessed.text
    assert basic(api, "june", NEW_PASSWORD).status_code == 200


def test_a_weak_or_mismatched_password_is_refused_and_the_link_still_works(api, june):
    post(api, "/passwordreset", {"identifier": "june"})
    token = token_of(sent()[0])
    for password, confirm, words in (
        ("password", "password", "stronger password"),
        ("abc", "abc", "at least 6"),
        (NEW_PASSWORD, NEW_PASSWORD + "x", "do not match"),
    ):
        refused = post(api, "/passwordresetconfirm", {"token": token, "password": password, "confirm": confirm})
        assert refused.status_code == 400 and words in refused.json["errors"][0]["details"]["password"][0]
        page = post(api, "/passwordresetconfirm", {"token": token, "password": password, "confirm": confirm}, True)
        assert words in page.text and '<form method="post"' in page.text  # the form again, to try again
    assert basic(api, "june", "secret-pass-1").status_code == 200
    ok = post(api, "/passwordresetconfirm", {"token": token, "password": NEW_PASSWORD, "confirm": NEW_PASSWORD})
    assert ok.status_code == 200


def test_requests_are_limited_per_address_and_emails_per_user(api, june, configure):
    configure(PASSWORD_RESETS_PER_USER=2, PASSWORD_RESETS_PER_ADDRESS=4)
    answers = [post(api, "/passwordreset", {"identifier": "june"}) for _ in range(4)]
    assert {a.status_code for a in answers} == {200} and len({a.body for a in answers}) == 1
    assert len(sent()) == 2  # the third and fourth answered the same, sent nothing
    refused = post(api, "/passwordreset", {"identifier": "nobody"})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0


def test_a_disabled_user_gets_no_email(api, june):
    api.patch(f"/api/users/{june.user_id}/edit", {"isPublished": False})
    assert post(api, "/passwordreset", {"identifier": "june"}).status_code == 200
    assert sent() == []


def test_an_administrator_invites_a_user_once_with_a_link_that_sets_the_password(api, june):
    answer = api.post(f"/api/movein/users/{june.user_id}/invite")
    assert answer.status_code == 201 and answer.json == {"user": june.user_id, "invited": True}
    (message,) = sent()
    assert message.mail.to == "june@example.com" and message.mail.subject == "Your invitation: choose your password"
    assert "An account was made for you (username: june)" in message.mail.text
    again = api.post(f"/api/movein/users/{june.user_id}/invite")
    assert again.status_code == 200 and again.json == {"user": june.user_id, "invited": False} and len(sent()) == 1
    fields = {"token": token_of(message), "password": NEW_PASSWORD, "confirm": NEW_PASSWORD}
    adapters.active().tokens.clock = lambda: time.time() + 6 * 86400  # an invitation lives INVITATION_DAYS (7)
    assert post(api, "/passwordresetconfirm", fields).status_code == 200
    assert basic(api, "june", NEW_PASSWORD).status_code == 200


def test_an_invitation_for_nobody_or_a_user_without_email_sends_nothing(api):
    assert api.post("/api/movein/users/999/invite").status_code == 404
    bare = api.post(
        "/api/users/new",
        {
            "username": "bare",
            "firstName": "B",
            "lastName": "B",
            "email": "b@example.com",
            "role": 1,
            "plainPassword": {"password": NEW_PASSWORD, "confirm": NEW_PASSWORD},
        },
    )
    assert bare.status_code == 201, bare.json
    doc = store.get("user", bare.json["user"]["id"])
    store.put("user", dict(doc, email=None))
    refused = api.post(f"/api/movein/users/{doc['id']}/invite")
    assert refused.status_code == 422 and "email" in refused.json["errors"][0]["details"]
    assert sent() == []


def test_a_limited_user_cannot_invite_and_nothing_is_sent(api, june):
    mallory = _as(api, "mallory", {"user:users": ["full"], "lead:leads": ["full"]})
    refused = mallory.post(f"/api/movein/users/{june.user_id}/invite")
    assert refused.status_code == 403 and refused.json["errors"][0]["message"] == FORBIDDEN
    assert sent() == []
    assert api.post(f"/api/movein/users/{june.user_id}/invite").json["invited"] is True  # not marked by the refusal


@pytest.mark.aws  # about AWS: the DynamoDB calls of each path (docs/storage.md), over moto
def test_what_each_path_costs_in_dynamodb_calls(api, june):
    from tests.bench.conftest import dynamodb_calls

    def cost(call):
        with dynamodb_calls() as calls:
            answer = call()
        assert answer.status_code in (200, 201), answer.body
        return dict(calls)

    user = store.get("user", june.user_id)
    measured = {
        "request, a username": cost(lambda: post(api, "/passwordreset", {"identifier": "june"})),
        "request, an email": cost(lambda: post(api, "/passwordreset", {"identifier": "june@example.com"})),
        "request, nobody": cost(lambda: post(api, "/passwordreset", {"identifier": "nobody"})),
    }
    token = resets.issue(user, resets.RESET)
    measured["confirm page"] = cost(lambda: get(api, f"/passwordresetconfirm?token={token}"))
    fields = {"token": token, "password": NEW_PASSWORD, "confirm": NEW_PASSWORD}
    measured["confirm"] = cost(lambda: post(api, "/passwordresetconfirm", fields))
    measured["invite"] = cost(lambda: api.post(f"/api/movein/users/{june.user_id}/invite"))
    print({name: (sum(calls.values()), calls) for name, calls in measured.items()})
    assert all(not calls.get("Scan") for calls in measured.values())
    assert sum(measured["request, nobody"].values()) <= sum(measured["request, a username"].values())
    assert all(sum(calls.values()) <= 12 for calls in measured.values()), measured


def test_an_invitation_the_mail_service_refuses_or_cannot_take_is_not_marked_sent(api, june, monkeypatch):
    from chalicelib.ports import mail

    installed = adapters.active().mail
    for failure, status in ((mail.Rejected("Address blacklisted."), 422), (mail.Unavailable("throttled"), 503)):

        def failing(message, failure=failure):
            raise failure

        monkeypatch.setattr(installed, "send", failing)
        refused = api.post(f"/api/movein/users/{june.user_id}/invite")
        assert refused.status_code == status, refused.json
        assert status == 422 or int(refused.headers["Retry-After"]) > 0
        monkeypatch.undo()
        assert sent() == []
    assert api.post(f"/api/movein/users/{june.user_id}/invite").json["invited"] is True and len(sent()) == 1
    monkeypatch.setattr(installed, "send", lambda message: (_ for _ in ()).throw(mail.Unavailable("down")))
    assert post(api, "/passwordreset", {"identifier": "june"}).status_code == 200  # the same answer, logged
