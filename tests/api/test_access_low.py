"""The low findings of issue 27, each performed over the API and seen to fail: an idempotent replay
by a caller who lost the right, a cached authorizer decision outliving a role change, theme zips
with names that leave their folder."""

import pytest

from devstack.gateway import authorizer as gateway
from tests.api.payloads import assert_error
from tests.api.test_permissions import FORBIDDEN, _as
from tests.api.test_themes import MESSAGE, theme_zip, upload

KEY = {"Idempotency-Key": "demoted-7"}
REPLAYED = "Idempotent-Replayed"


def _role_id(api, user_id):
    return api.get(f"/api/users/{user_id}").json["user"]["role"]["id"]


def test_a_demoted_caller_replays_nothing(api):
    dora = _as(api, "dora", {"lead:leads": ["viewown", "create"]})
    assert dora.post("/api/tags/new", {"tag": "vip"}, headers=KEY).status_code == 201
    api.patch(f"/api/roles/{_role_id(api, dora.user_id)}/edit", {"rawPermissions": {"lead:leads": ["viewown"]}})
    replay = dora.post("/api/tags/new", {"tag": "vip"}, headers=KEY)
    assert_error(replay, 403, message=FORBIDDEN)
    assert REPLAYED not in replay.headers
    assert int(api.get("/api/tags").json["total"]) == 1


def test_a_replayed_delete_of_an_own_document_still_answers(api):
    dora = _as(api, "dora", {"email:emails": ["viewown", "create", "deleteown"]})
    mail = dora.post("/api/emails/new", {"name": "Mine"}).json["email"]
    first = dora.delete(f"/api/emails/{mail['id']}/delete", headers=KEY)
    assert first.status_code == 200
    again = dora.delete(f"/api/emails/{mail['id']}/delete", headers=KEY)
    assert again.status_code == 200 and again.headers[REPLAYED] == "true" and again.body == first.body
    assert_error(dora.delete(f"/api/emails/{mail['id']}/delete"), 404)  # without the key: checked, gone


@pytest.fixture
def gateway_cache(configure):
    configure(AUTHORIZER_CACHE_SECONDS=300)
    gateway.forget()
    yield
    gateway.forget()


def test_a_cached_decision_yields_to_a_role_change(api, gateway_cache):
    olga = _as(api, "olga", {"lead:leads": ["viewother"]})
    assert olga.get("/api/contacts").status_code == 200  # the decision is cached, naming her role
    nothing = api.post("/api/roles/new", {"name": "Nothing"}).json["role"]
    assert api.patch(f"/api/users/{olga.user_id}/edit", {"role": nothing["id"]}).status_code == 200
    assert_error(olga.get("/api/contacts"), 403, message=FORBIDDEN)


def test_a_cached_decision_yields_to_a_deleted_user(api, gateway_cache):
    olga = _as(api, "olga", {"lead:leads": ["viewother"]})
    assert olga.get("/api/contacts").status_code == 200
    assert api.delete(f"/api/users/{olga.user_id}/delete").status_code == 200
    assert olga.get("/api/contacts").status_code == 401


@pytest.mark.parametrize(
    "name",
    [
        "..\\..\\evil.twig",
        "C:/evil.twig",
        "/etc/evil.twig",
        "html/../../evil.twig",
        "./html/x.twig",
        "html//x.twig",
        "html\\x.twig",
        "html/x\x01.twig",
    ],
)
def test_a_theme_entry_name_that_leaves_its_folder_is_refused(api, name):
    data = theme_zip({"config.json": '{"name": "Evil", "features": []}', MESSAGE: "m", name: "{{ 1 }}"})
    response = upload(api, "evil.zip", data)
    assert_error(response, 400, field="file")
    assert repr(name) in response.json["errors"][0]["message"]
    assert list(api.get("/api/themes").json["themes"]) == ["blank"]
