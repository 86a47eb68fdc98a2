"""The one authentication core: API switch, Basic switch, one credential place, cached Basic."""

import base64

import pytest

from chalicelib.auth import settings, users
from chalicelib.domain.kernel.context import Context


def basic(user, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def error(response):
    return response.json["errors"][0]


def test_api_disabled_is_403_for_every_scheme(api):
    settings.update(Context(), {"apiEnabled": False})
    for headers in ({}, basic("admin", "admin-secret"), {"Authorization": "Bearer abc"}):
        r = api.get("/api/contacts", auth=False, headers=headers)
        assert r.status_code == 403 and error(r)["type"] == "api_disabled"
    settings.update(Context(), {"apiEnabled": True})
    assert api.get("/api/contacts").status_code == 200


def test_basic_disabled_is_403(api):
    settings.update(Context(), {"basicAuthEnabled": False})
    r = api.get("/api/contacts")
    assert r.status_code == 403 and error(r)["message"].startswith("Basic Auth disabled")


def test_missing_credentials_is_401_with_mautic_message(api):
    r = api.get("/api/contacts", auth=False)
    assert r.status_code == 401
    assert error(r) == {"code": 401, "message": "API authorization denied.", "type": "access_denied"}


@pytest.mark.parametrize(
    "header",
    [
        "Basic !!!notbase64",
        "Basic " + base64.b64encode(b"nocolon").decode(),
        "Basic " + base64.b64encode(b"admin:wrong").decode(),
        "Basic " + base64.b64encode(b"ghost:admin-secret").decode(),
    ],
)
def test_bad_basic_credentials_are_401(api, header):
    r = api.get("/api/contacts", auth=False, headers={"Authorization": header})
    assert r.status_code == 401 and error(r)["message"] == "Authorization denied, invalid credentials."


def test_a_failure_is_never_remembered_as_success(api):
    users.create_user("kim", "kim-password-1")
    assert api.get("/api/contacts", auth=False, headers=basic("kim", "wrong")).status_code == 401
    assert api.get("/api/contacts", auth=False, headers=basic("kim", "kim-password-1")).status_code == 200
    assert api.get("/api/contacts", auth=False, headers=basic("kim", "wrong")).status_code == 401


def test_two_credential_places_are_400(api):
    r = api.get("/api/contacts?access_token=abc")
    assert r.status_code == 400 and error(r)["type"] == "invalid_request"


def test_basic_scheme_name_is_case_insensitive(api):
    header = basic("admin", "admin-secret")["Authorization"].replace("Basic", "bAsIc")
    assert api.get("/api/contacts", auth=False, headers={"Authorization": header}).status_code == 200


def test_settings_changes_are_seen_on_the_next_request(api):
    assert api.get("/api/contacts").status_code == 200
    settings.update(Context(), {"basicAuthEnabled": False})
    assert api.get("/api/contacts").status_code == 403


def test_settings_reject_unknown_names_and_modes(fresh):
    with pytest.raises(ValueError):
        settings.update(Context(), {"colour": "blue"})
    with pytest.raises(ValueError):
        settings.update(Context(), {"oauthMode": "3"})


def test_expired_revocations_stop_counting_and_are_dropped(fresh):
    from chalicelib.auth import clients
    from chalicelib.domain.kernel import cached
    from chalicelib.store import port as store

    clients.revoke_subject(Context(), "family:old", seconds=60)
    clients.revoke_subject(Context(), "client:forever")
    assert clients.revoked(Context(), "family:old") and clients.revoked(Context(), "client:forever")
    later = Context(now="2999-01-01T00:00:00+00:00")
    assert not clients.revoked(later, "family:old") and clients.revoked(later, "client:forever")
    clients.revoke_subject(later, "family:new", seconds=60)
    cached.forget()
    assert sorted(r["subject"] for r in store.iterate("revocation")) == ["client:forever", "family:new"]
