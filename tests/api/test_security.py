"""Attacks of issue 22 performed through the API, each seen to fail: hostile segment patterns,
unbounded lists, a line break in a field reaching the mailer, password guessing."""
import time

from chalicelib import config
from chalicelib.auth import users
from chalicelib.store import entities as store
from tests.api.test_email_segment_send import _audience, _batch_message, _recipients, _run
from tests.api.test_email_send import make_email

HOSTILE_LIKE = [{"glue": "and", "field": "firstname", "object": "lead", "type": "text", "operator": "like",
                 "properties": {"filter": "%a%a%a%a%a%a%b"}}]


def test_a_hostile_like_filter_does_not_stall_contact_writes(api):
    assert api.post("/api/segments/new", {"name": "Trap", "filters": HOSTILE_LIKE}).status_code == 201
    started = time.perf_counter()
    response = api.post("/api/contacts/new", {"email": "ann@example.com", "firstname": "a" * 2000})
    assert response.status_code == 201
    assert time.perf_counter() - started < 2  # a backtracking regex takes hours on this value


def test_a_regexp_that_needs_backtracking_is_refused_on_save(api):
    filters = [dict(HOSTILE_LIKE[0], operator="regexp", properties={"filter": r"(a+)\1"})]
    response = api.post("/api/segments/new", {"name": "Trap", "filters": filters})
    assert response.status_code == 400
    assert "filters[0][properties][filter]" in response.json["errors"][0]["details"]
    assert api.get("/api/segments").json["total"] == 0


def test_a_list_answer_never_holds_more_than_the_maximum(api, monkeypatch):
    monkeypatch.setattr(config, "MAX_PAGE_LIMIT", 3)
    for n in range(5):
        api.post("/api/tags/new", {"tag": f"t{n}"})
    for limit in ("0", "5000", "3"):
        answer = api.get(f"/api/tags?limit={limit}").json
        assert answer["total"] == 5 and len(answer["tags"]) == 3, limit
    assert len(api.get("/api/tags?limit=2").json["tags"]) == 2


def test_line_breaks_are_stripped_from_single_line_fields(api):
    contact = api.post("/api/contacts/new", {"email": "ann@example.com", "firstname": "Ann\r\nBcc: x@example.com",
                                             "city": "Prague\t\n"}).json["contact"]
    assert contact["fields"]["core"]["firstname"]["value"] == "Ann Bcc: x@example.com"
    assert contact["fields"]["core"]["city"]["value"] == "Prague"


def test_a_message_that_cannot_be_built_fails_for_its_contact_only(api, drain):
    segment, ids = _audience(api, drain, 3)
    stored = store.get("contact", ids[1])  # written before line breaks were stripped
    stored["values"]["firstname"] = "Bad\nBcc: x@example.com"
    store.replace("contact", stored, {}, {})
    mail_doc = make_email(api, lists=[segment["id"]])
    (batch,) = _batch_message(api, mail_doc)
    _run(batch)
    assert _recipients() == ["c0@example.com", "c2@example.com"]
    events = api.get(f"/api/contacts/{ids[1]}/activity").json["events"]
    failed = [e for e in events if e["event"] == "email.failed"]
    assert len(failed) == 1 and "cannot be built" in str(failed[0])


def _basic(username, password):
    import base64
    return {"Authorization": "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()}


def test_repeated_wrong_passwords_lock_the_username_out(api, monkeypatch):
    monkeypatch.setattr(config, "SIGN_IN_FAILURES_PER_USER", 3)
    users.create_user("ann", "ann-secret")
    for _ in range(3):
        assert api.get("/api/contacts", auth=False, headers=_basic("ann", "guess")).status_code == 401
    locked = api.get("/api/contacts", auth=False, headers=_basic("ann", "ann-secret"))
    assert locked.status_code == 429 and int(locked.headers["Retry-After"]) > 0
    assert locked.json["errors"][0]["message"].startswith("Too many failed sign-in attempts")


def test_one_address_trying_many_usernames_is_throttled(api, monkeypatch):
    monkeypatch.setattr(config, "SIGN_IN_FAILURES_PER_ADDRESS", 3)
    users.create_user("ann", "ann-secret")
    for name in ("root", "test", "guest"):
        assert api.get("/api/contacts", auth=False, headers=_basic(name, "x")).status_code == 401
    assert api.get("/api/contacts", auth=False, headers=_basic("ann", "ann-secret")).status_code == 429


def test_an_unknown_username_costs_a_password_verification_too(api, monkeypatch):
    from chalicelib.auth import passwords
    checked = []
    real = passwords.verify
    monkeypatch.setattr(passwords, "verify", lambda stored, password: checked.append(password) or real(stored, password))
    assert api.get("/api/contacts", auth=False, headers=_basic("nobody-here", "pw1")).status_code == 401
    assert api.get("/api/contacts", auth=False, headers=_basic("admin", "pw2")).status_code == 401
    assert checked == ["pw1", "pw2"]
