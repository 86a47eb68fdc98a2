"""`Idempotency-Key`: a replay answers the first answer unchanged, another request under the key is
a 422, a replay while the first still runs a 409; per credential; batch endpoints included."""

import base64
import threading

import pytest

from chalicelib.auth import users
from chalicelib.domain.kernel import service
from chalicelib.store import idempotency as records
from tests.api.payloads import assert_error

KEY = {"Idempotency-Key": "4f1c9a0e-key"}
REPLAYED = "Idempotent-Replayed"


def test_replay_returns_the_first_answer_and_writes_nothing(api):
    first = api.post("/api/tags/new", {"tag": "vip"}, headers=KEY)
    assert first.status_code == 201 and REPLAYED not in first.headers
    again = api.post("/api/tags/new", {"tag": "vip"}, headers=KEY)
    assert again.status_code == 201
    assert again.headers[REPLAYED] == "true"
    assert again.body == first.body and again.headers["Location"] == first.headers["Location"]
    assert api.get("/api/tags").json["total"] == 1


def test_same_key_other_body_is_422_and_writes_nothing(api):
    api.post("/api/tags/new", {"tag": "vip"}, headers=KEY)
    assert_error(api.post("/api/tags/new", {"tag": "other"}, headers=KEY), 422)
    assert_error(api.post("/api/tags/new?x=1", {"tag": "vip"}, headers=KEY), 422)
    assert api.get("/api/tags").json["total"] == 1


def test_same_key_on_another_entity_is_422(api):
    one, two = (api.post("/api/tags/new", {"tag": name}).json["tag"]["id"] for name in ("a", "b"))
    assert api.patch(f"/api/tags/{one}/edit", {"description": "x"}, headers=KEY).status_code == 200
    assert_error(api.patch(f"/api/tags/{two}/edit", {"description": "x"}, headers=KEY), 422)
    assert api.get(f"/api/tags/{two}").json["tag"]["description"] is None


def test_replay_while_the_first_runs_is_409(api, monkeypatch):
    started, release = threading.Event(), threading.Event()
    create = service.create

    def slow_create(*args, **kw):
        started.set()
        release.wait(10)
        return create(*args, **kw)

    monkeypatch.setattr(service, "create", slow_create)
    answers = []
    first = threading.Thread(target=lambda: answers.append(api.post("/api/tags/new", {"tag": "vip"}, headers=KEY)))
    first.start()
    assert started.wait(10)
    try:
        assert_error(api.post("/api/tags/new", {"tag": "vip"}, headers=KEY), 409)
    finally:
        release.set()
        first.join(10)
    assert answers[0].status_code == 201
    assert api.post("/api/tags/new", {"tag": "vip"}, headers=KEY).headers[REPLAYED] == "true"


def test_keys_are_per_credential(api):
    users.create_user("kim", "kim-password-1")
    kim = {"Authorization": "Basic " + base64.b64encode(b"kim:kim-password-1").decode()}
    assert api.post("/api/tags/new", {"tag": "a"}, headers=KEY).status_code == 201
    other = api.post("/api/tags/new", {"tag": "b"}, headers=dict(KEY, **kim), auth=False)
    assert other.status_code == 201 and REPLAYED not in other.headers
    assert_error(api.post("/api/tags/new", {"tag": "c"}, headers=dict(KEY, **kim), auth=False), 422)
    assert api.get("/api/tags").json["total"] == 2


def test_an_error_answer_is_replayed_too(api):
    first = api.post("/api/tags/new", {}, headers=KEY)
    assert_error(first, 400)
    again = api.post("/api/tags/new", {}, headers=KEY)
    assert again.status_code == 400 and again.headers[REPLAYED] == "true" and again.body == first.body


def test_delete_replay_answers_the_deleted_entity_again(api):
    tag = api.post("/api/tags/new", {"tag": "gone"}).json["tag"]
    first = api.delete(f"/api/tags/{tag['id']}/delete", headers=KEY)
    assert first.status_code == 200
    again = api.delete(f"/api/tags/{tag['id']}/delete", headers=KEY)
    assert again.status_code == 200 and again.body == first.body and again.headers[REPLAYED] == "true"
    assert api.delete(f"/api/tags/{tag['id']}/delete").status_code == 404


def test_batch_endpoints_replay(api):
    items = [{"tag": "one"}, {"tag": "two"}]
    first = api.post("/api/tags/batch/new", items, headers=KEY)
    assert first.status_code == 201 and first.json["statusCodes"] == [201, 201]
    again = api.post("/api/tags/batch/new", items, headers=KEY)
    assert again.body == first.body and again.headers[REPLAYED] == "true"
    assert api.get("/api/tags").json["total"] == 2


def test_put_and_patch_replay(api):
    tag = api.post("/api/tags/new", {"tag": "t"}).json["tag"]
    for method in ("PATCH", "PUT"):
        key = {"Idempotency-Key": f"edit-{method}"}
        first = api.call(method, f"/api/tags/{tag['id']}/edit", {"tag": method.lower()}, headers=key)
        again = api.call(method, f"/api/tags/{tag['id']}/edit", {"tag": method.lower()}, headers=key)
        assert first.status_code == again.status_code == 200 and again.headers[REPLAYED] == "true"


def test_get_ignores_the_key(api):
    api.get("/api/tags", headers=KEY)
    assert REPLAYED not in api.get("/api/tags", headers=KEY).headers


@pytest.mark.parametrize("key", ["x" * 256, "tab\there"])
def test_malformed_key_is_400_naming_the_header(api, key):
    assert_error(
        api.post("/api/tags/new", {"tag": "x"}, headers={"Idempotency-Key": key}), 400, field="Idempotency-Key"
    )
    assert api.get("/api/tags").json["total"] == 0


def test_server_error_releases_the_key(api, monkeypatch):
    def boom(*args, **kw):
        raise RuntimeError("boom")

    monkeypatch.setattr(service, "create", boom)
    assert api.post("/api/tags/new", {"tag": "x"}, headers=KEY).status_code == 500
    monkeypatch.undo()
    retried = api.post("/api/tags/new", {"tag": "x"}, headers=KEY)
    assert retried.status_code == 201 and REPLAYED not in retried.headers


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_an_expired_running_lease_is_taken_over(fresh):
    assert records.claim("s", "k", "f", lease=-1) is None
    assert records.claim("s", "k", "f", lease=60) is None  # the first run's lease has ended
    assert records.claim("s", "k", "f", lease=60).answer is None
