"""Issue 30, fault injection: with a share of AWS calls failing as they do past the SDK's retries,
every API request either succeeds or answers 503 with Retry-After (none 500), and every
acknowledged write is kept once the faults stop."""

import os

import pytest

from devstack import faults

pytestmark = pytest.mark.aws  # about AWS itself: over moto

RATE = float(os.environ.get("FAULT_RATE") or 0.03)
ROUNDS = int(os.environ.get("CHAOS_ROUNDS") or 30)


@pytest.fixture
def faulty():
    yield faults.install
    faults.stop()


def _check(response, answers):
    answers.append(response.status_code)
    if response.status_code == 503:
        assert response.headers["Retry-After"]
        assert response.json_body["errors"][0]["code"] == 503
    else:
        assert response.status_code < 500, response.body
    return response.status_code < 300


def test_fault_injection_fails_calls_with_real_codes(api, faulty):
    faulty(1.0, seed=1)
    response = api.get("/api/contacts/1")
    assert response.status_code == 503 and faults.failed() > 0


def test_fault_injection_requests_succeed_or_answer_503_and_acknowledged_writes_are_kept(api, faulty):
    created, points, answers = {}, {}, []
    faulty(RATE, seed=int(os.environ.get("FAULT_SEED") or 30))
    for n in range(ROUNDS):
        response = api.post("/api/contacts/new", {"email": f"chaos{n}@example.com", "tags": [f"t{n}"]})
        if _check(response, answers):
            created[response.json_body["contact"]["id"]] = f"chaos{n}@example.com"
            points[response.json_body["contact"]["id"]] = 0
        for contact in list(created)[-3:]:
            if _check(api.post(f"/api/contacts/{contact}/points/plus/1"), answers):
                points[contact] += 1
            _check(api.get(f"/api/contacts/{contact}"), answers)
        _check(api.get("/api/contacts?limit=5"), answers)
    faults.stop()
    for contact, email in created.items():
        doc = api.get(f"/api/contacts/{contact}").json_body["contact"]
        assert doc["fields"]["all"]["email"] == email
        assert doc["points"] >= points[contact]  # a 503 may have come after its write was applied
    print(f"{len(answers)} requests, {answers.count(503)} answered 503, {faults.failed()} faults injected")
    assert answers.count(503) < len(answers) * max(0.3, RATE * 8)


def _failing_once(monkeypatch, target, name):
    """Make `target.name` raise AWS throttling on its first call only; the calls made."""
    from botocore.exceptions import ClientError

    original, calls = getattr(target, name), []

    def once(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise ClientError({"Error": {"Code": "ThrottlingException"}, "ResponseMetadata": {}}, "GetItem")
        return original(*args, **kwargs)

    monkeypatch.setattr(target, name, once)
    return calls


def _listed(body, key):
    """A batch answer's list (`statusCodes`, `contacts`): a list, or a PHP array answered as an object."""
    found = body.get(key) or []
    return list(found.values()) if isinstance(found, dict) else list(found)


def _check_items(response):
    """No item of a batch answered 500; one that answered 503 makes the answer say when to retry."""
    codes = _listed(response.json_body, "statusCodes")
    assert 500 not in codes, response.body
    if 503 in codes:
        assert response.headers["Retry-After"]


def test_fault_injection_batch_items_are_applied_or_their_own_503_and_acknowledged_ones_are_kept(api, faulty):
    created, deleted, unknown, answers = {}, set(), set(), []
    faulty(RATE, seed=int(os.environ.get("FAULT_SEED") or 31))
    for n in range(ROUNDS):
        response = api.post("/api/contacts/batch/new", [{"email": f"batch{n}x{i}@example.com"} for i in range(3)])
        if _check(response, answers):
            _check_items(response)
            created.update({c["id"]: c["fields"]["all"]["email"] for c in _listed(response.json_body, "contacts")})
        ids = [i for i in list(created)[-3:] if i not in deleted | unknown]
        edited = api.patch("/api/contacts/batch/edit", [{"id": i, "lastname": f"L{n}"} for i in ids])
        if _check(edited, answers):
            _check_items(edited)
        if n % 4 == 3 and ids:
            removed = api.delete(f"/api/contacts/batch/delete?ids={ids[0]}")
            done = _check(removed, answers) and _listed(removed.json_body, "contacts")
            (deleted if done else unknown).add(ids[0])  # a 503 may have come after the delete was applied
    faults.stop()
    for contact in set(created) - deleted - unknown:
        assert api.get(f"/api/contacts/{contact}").json_body["contact"]["fields"]["all"]["email"] == created[contact]
    assert all(api.get(f"/api/contacts/{contact}").status_code == 404 for contact in deleted)
    print(f"{len(answers)} batch requests, {answers.count(503)} answered 503, {faults.failed()} faults injected")


def test_request_retry_runs_a_read_again_after_aws_unavailable(api, monkeypatch):
    from chalicelib.api import standard

    contact = api.post("/api/contacts/new", {"email": "again@example.com"}).json["contact"]
    calls = _failing_once(monkeypatch, standard, "single")  # the handler failed after its read
    response = api.get(f"/api/contacts/{contact['id']}")
    assert response.status_code == 200 and len(calls) == 2


def test_request_retry_never_runs_a_write_again_once_its_handler_started(api, monkeypatch):
    from chalicelib.api import standard

    calls = _failing_once(monkeypatch, standard, "single")  # after the create was committed
    response = api.post("/api/contacts/new", {"email": "once@example.com"})
    assert response.status_code == 503 and response.headers["Retry-After"] and len(calls) == 1
    faults.stop()
    found = api.get("/api/contacts?search=once@example.com").json
    assert int(found["total"]) == 1  # applied once, not twice


def test_request_retry_runs_a_write_again_only_when_its_handler_had_not_started(configure, api, monkeypatch):
    from chalicelib.api import routing

    calls = _failing_once(monkeypatch, routing.rate_limits, "admit")  # before the handler: nothing written
    assert api.post("/api/contacts/new", {"email": "first@example.com"}).status_code == 201
    assert len(calls) == 2
    configure(REQUEST_TRIES=1)
    calls = _failing_once(monkeypatch, routing.rate_limits, "admit")
    assert api.post("/api/contacts/new", {"email": "second@example.com"}).status_code == 503


def test_request_retry_runs_a_write_again_when_none_of_its_writes_was_applied(api, monkeypatch):
    from chalicelib.store import entities

    calls = _failing_once(monkeypatch, entities, "create")  # the commit refused: nothing applied
    response = api.post("/api/contacts/new", {"email": "retried@example.com"})
    assert response.status_code == 201 and len(calls) == 2
    found = api.get("/api/contacts?search=retried@example.com").json
    assert int(found["total"]) == 1


def test_aws_writes_counts_write_calls_that_may_have_been_applied(api):
    from pynamodb.exceptions import PynamoDBException

    from chalicelib import aws
    from chalicelib.store import entities

    before = aws.writes()
    entities.get("contact", 999999)  # a read
    assert aws.writes() == before
    entities.put("faultprobe", {"id": 1})  # a write AWS accepted
    assert aws.writes() == before + 1
    faults.install(1.0, seed=1)
    try:
        with pytest.raises(PynamoDBException):
            entities.put("faultprobe", {"id": 2})  # throttled: never applied
    finally:
        faults.stop()
    assert aws.writes() == before + 1
    with aws.harmless():
        entities.allocate_ids("faultprobe")
    assert aws.writes() == before + 1
    assert entities.claim("faultprobe#marker") and aws.writes() == before + 2
    assert not entities.claim("faultprobe#marker")  # the condition failed (400): nothing applied
    assert aws.writes() == before + 2


def test_idempotency_key_is_kept_when_a_write_of_the_failed_run_may_have_been_applied(api, monkeypatch):
    from chalicelib.api import standard

    key = {"Idempotency-Key": "create-once-7d1"}
    _failing_once(monkeypatch, standard, "single")  # after the create was committed: a 503
    first = api.post("/api/contacts/new", {"email": "keyed@example.com"}, headers=key)
    assert first.status_code == 503 and first.headers["Retry-After"]
    retry = api.post("/api/contacts/new", {"email": "keyed@example.com"}, headers=key)
    assert retry.status_code == 409 and retry.headers["Idempotent-Replayed"] == "true"
    assert retry.json_body["errors"][0]["type"] == "idempotency_outcome_unknown"
    found = api.get("/api/contacts?search=keyed@example.com").json
    assert int(found["total"]) == 1  # the client's retry applied nothing twice


def test_idempotency_key_is_released_when_no_write_of_the_failed_run_was_applied(configure, api, monkeypatch):
    from chalicelib.store import entities

    key = {"Idempotency-Key": "create-twice-9e2"}
    configure(REQUEST_TRIES=1)
    _failing_once(monkeypatch, entities, "create")  # the commit refused: nothing applied
    assert api.post("/api/contacts/new", {"email": "free@example.com"}, headers=key).status_code == 503
    retry = api.post("/api/contacts/new", {"email": "free@example.com"}, headers=key)
    assert retry.status_code == 201 and "Idempotent-Replayed" not in retry.headers
    assert int(api.get("/api/contacts?search=free@example.com").json["total"]) == 1
