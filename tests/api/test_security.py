"""Attacks of issue 22 performed through the API, each seen to fail: hostile segment patterns,
unbounded lists, a line break in a field reaching the mailer, password guessing."""

import time

import pytest

from chalicelib import config
from chalicelib.auth import users
from chalicelib.store import port as store
from tests.api.test_email_segment_send import _audience, _batch_message, _recipients, _run, fan_out_only  # noqa: F401 - a fixture
from tests.api.test_email_send import make_email
from tests.conftest import set_cookies, visitor_cookie

HOSTILE_LIKE = [
    {
        "glue": "and",
        "field": "firstname",
        "object": "lead",
        "type": "text",
        "operator": "like",
        "properties": {"filter": "%a%a%a%a%a%a%b"},
    }
]


def test_a_hostile_like_filter_does_not_stall_contact_writes(api):
    assert api.post("/api/segments/new", {"name": "Trap", "filters": HOSTILE_LIKE}).status_code == 201
    started = time.perf_counter()
    response = api.post("/api/contacts/new", {"email": "ann@example.com", "firstname": "a" * 191})  # the longest
    assert response.status_code == 201
    assert time.perf_counter() - started < 2  # a backtracking regex takes hours on this value


def test_a_regexp_that_needs_backtracking_is_refused_on_save(api):
    filters = [dict(HOSTILE_LIKE[0], operator="regexp", properties={"filter": r"(a+)\1"})]
    response = api.post("/api/segments/new", {"name": "Trap", "filters": filters})
    assert response.status_code == 400
    assert "filters[0][properties][filter]" in response.json["errors"][0]["details"]
    assert int(api.get("/api/segments").json["total"]) == 0


def test_a_list_answer_never_holds_more_than_the_maximum(api, configure):
    configure(MAX_PAGE_LIMIT=3)
    for n in range(5):
        api.post("/api/tags/new", {"tag": f"t{n}"})
    for limit in ("0", "5000", "3"):
        answer = api.get(f"/api/tags?limit={limit}").json
        assert int(answer["total"]) == 5 and len(answer["tags"]) == 3, limit
    assert len(api.get("/api/tags?limit=2").json["tags"]) == 2


def test_line_breaks_are_stripped_from_single_line_fields(api):
    contact = api.post(
        "/api/contacts/new",
        {"email": "ann@example.com", "firstname": "Ann\r\nBcc: x@example.com", "city": "Prague\t\n"},
    ).json["contact"]
    assert contact["fields"]["core"]["firstname"]["value"] == "Ann Bcc: x@example.com"
    assert contact["fields"]["core"]["city"]["value"] == "Prague"


def test_a_message_that_cannot_be_built_fails_for_its_contact_only(api, drain, fan_out_only):  # noqa: F811 - the fixture
    segment, ids = _audience(api, drain, 3)
    stored = store.get("contact", ids[1])  # written before line breaks were stripped
    stored["values"]["firstname"] = "Bad\nBcc: x@example.com"
    store.replace("contact", stored, {}, {})
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    (batch,) = _batch_message(api, mail_doc)
    _run(batch)
    assert _recipients() == ["c0@example.com", "c2@example.com"]
    events = api.get(f"/api/contacts/{ids[1]}/activity").json["events"]
    failed = [e for e in events if e["event"] == "email.failed"]
    assert len(failed) == 1 and "cannot be built" in str(failed[0])


def _basic(username, password):
    import base64

    return {"Authorization": "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()}


def test_repeated_wrong_passwords_lock_the_username_out_from_that_address_only(api, configure, source_ip):
    configure(SIGN_IN_FAILURES_PER_USER_ADDRESS=3)
    users.create_user("ann", "ann-secret")
    source_ip("203.0.113.5")
    for _ in range(3):
        assert api.get("/api/contacts", auth=False, headers=_basic("ann", "guess")).status_code == 401
    locked = api.get("/api/contacts", auth=False, headers=_basic("ann", "ann-secret"))
    assert locked.status_code == 429 and int(locked.headers["Retry-After"]) > 0
    assert locked.json["errors"][0]["message"].startswith("Too many failed sign-in attempts")
    source_ip("198.51.100.7")
    assert api.get("/api/contacts", auth=False, headers=_basic("ann", "ann-secret")).status_code == 200


def test_a_lockout_holds_for_the_right_password_even_once_it_was_verified(api, configure, source_ip):
    """Credentials remembered as verified answer 429 like any other while their address is locked
    out: a guess that is right must not tell itself apart from a wrong one by a 200."""
    configure(SIGN_IN_FAILURES_PER_USER_ADDRESS=3)
    users.create_user("ann", "ann-secret")
    source_ip("203.0.113.5")
    assert api.get("/api/contacts", auth=False, headers=_basic("ann", "ann-secret")).status_code == 200
    for _ in range(3):
        assert api.get("/api/contacts", auth=False, headers=_basic("ann", "guess")).status_code == 401
    assert api.get("/api/contacts", auth=False, headers=_basic("ann", "ann-secret")).status_code == 429
    source_ip("198.51.100.7")
    assert api.get("/api/contacts", auth=False, headers=_basic("ann", "ann-secret")).status_code == 200


def test_remembered_credentials_read_their_lockout_once_a_second_and_a_lockout_elsewhere_applies_after_it(
    api, configure, monkeypatch, source_ip
):
    """A client sending the same Basic credentials at any rate reads the address's lockout counters
    about once per `VERSIONS_TTL` per container, not once per request (two hot items otherwise:
    docs/capacity.md); a lockout counted by another container applies once that time is past, and a
    failure in this container at once."""
    from chalicelib.ports import window_counters

    configure(VERSIONS_TTL=60, SIGN_IN_FAILURES_PER_USER_ADDRESS=3)
    users.create_user("ann", "ann-secret")
    source_ip("203.0.113.5")
    reads = []
    real = window_counters.counted
    monkeypatch.setattr(
        window_counters, "counted", lambda name, *args, **kw: reads.append(name) or real(name, *args, **kw)
    )
    ann = _basic("ann", "ann-secret")
    assert api.get("/api/contacts", auth=False, headers=ann).status_code == 200  # verified: counters read
    verified = len(reads)
    assert [api.get("/api/contacts", auth=False, headers=ann).status_code for _ in range(5)] == [200] * 5
    assert sorted(reads[verified:]) == ["address:203.0.113.5", "user-address:203.0.113.5/ann"]  # once, not 5 times
    for _ in range(3):  # another container's failures (the same counters)
        window_counters.count("user-address:203.0.113.5/ann", config.active().SIGN_IN_WINDOW)
    assert api.get("/api/contacts", auth=False, headers=ann).status_code == 200  # within the second read open
    configure(VERSIONS_TTL=0)
    assert api.get("/api/contacts", auth=False, headers=ann).status_code == 429  # past it: locked out
    configure(VERSIONS_TTL=60)
    source_ip("198.51.100.7")
    assert api.get("/api/contacts", auth=False, headers=ann).status_code == 200  # open here, remembered
    for _ in range(3):
        assert api.get("/api/contacts", auth=False, headers=_basic("ann", "guess")).status_code == 401
    assert api.get("/api/contacts", auth=False, headers=ann).status_code == 429  # a failure here: at once


def test_failures_on_the_login_form_make_remembered_credentials_read_their_lockout_at_once(api, configure, source_ip):
    """The OAuth authorize page's login form counts its failures on the same lockout counters as Basic: in
    this container they lock remembered Basic credentials out at once, as Basic's own failures do."""
    from chalicelib.auth import clients
    from chalicelib.domain.kernel.context import Context
    from tests.api.test_oauth2 import REDIRECT, open_page, submit

    configure(VERSIONS_TTL=60, SIGN_IN_FAILURES_PER_USER_ADDRESS=3)
    users.create_user("ann", "ann-secret")
    app, _ = clients.create(Context(), "App", [REDIRECT], "2", creator_id=1, grants=clients.GRANTS, user_id=1)
    source_ip("203.0.113.9")
    ann = _basic("ann", "ann-secret")
    assert [api.get("/api/contacts", auth=False, headers=ann).status_code for _ in range(2)] == [200, 200]
    for _ in range(3):
        page, form = open_page(api, app["publicId"])
        assert submit(api, page, form, username="ann", password="guess").status_code == 200  # the form again
    assert api.get("/api/contacts", auth=False, headers=ann).status_code == 429


def test_a_failure_while_remembered_credentials_read_their_lockout_is_not_forgotten(
    api, configure, monkeypatch, source_ip
):
    """Another request of this container fails (and locks the address out) between a remembered
    credential's read of its open counters and its remembering them: the next request reads them again."""
    from chalicelib.auth import core
    from chalicelib.ports import window_counters

    configure(VERSIONS_TTL=60, SIGN_IN_FAILURES_PER_USER_ADDRESS=3)
    users.create_user("ann", "ann-secret")
    source_ip("203.0.113.11")
    ann = _basic("ann", "ann-secret")
    assert api.get("/api/contacts", auth=False, headers=ann).status_code == 200  # verified, remembered
    real = users.refuse_locked

    def read_then_failed_meanwhile(username, source):
        real(username, source)  # open
        for _ in range(3):  # another thread's failures, counted after this read
            window_counters.count("user-address:203.0.113.11/ann", config.active().SIGN_IN_WINDOW)
        core.forget_lockout_checks()
        monkeypatch.setattr(users, "refuse_locked", real)

    monkeypatch.setattr(users, "refuse_locked", read_then_failed_meanwhile)
    assert api.get("/api/contacts", auth=False, headers=ann).status_code == 200  # read open
    assert api.get("/api/contacts", auth=False, headers=ann).status_code == 429


def test_failing_a_username_from_one_address_does_not_lock_its_owner_out_elsewhere(api, monkeypatch, source_ip):
    """The attack of issue 27, with the default allowances: 14 wrong passwords from one address."""
    waits = []
    monkeypatch.setattr(users.time, "sleep", waits.append)
    users.create_user("ann", "ann-secret")
    source_ip("203.0.113.5")
    answers = [api.get("/api/contacts", auth=False, headers=_basic("ann", "guess")).status_code for _ in range(14)]
    assert answers == [401] * config.active().SIGN_IN_FAILURES_PER_USER_ADDRESS + [429] * 4
    source_ip("198.51.100.7")
    assert api.get("/api/contacts", auth=False, headers=_basic("ann", "ann-secret")).status_code == 200
    assert waits == [config.active().SIGN_IN_DELAY]  # slowed down, not refused


def test_failures_from_many_addresses_slow_a_username_down_and_never_lock_it(configure, api, monkeypatch, source_ip):
    waits = []
    monkeypatch.setattr(users.time, "sleep", waits.append)
    configure(SIGN_IN_FAILURES_PER_USER=3)
    users.create_user("ann", "ann-secret")
    for n in range(6):
        source_ip(f"203.0.113.{n}")
        assert api.get("/api/contacts", auth=False, headers=_basic("ann", "guess")).status_code == 401
    assert len(waits) == 3  # the attempts after the third failure waited
    source_ip("198.51.100.7")
    assert api.get("/api/contacts", auth=False, headers=_basic("ann", "ann-secret")).status_code == 200
    assert waits == [config.active().SIGN_IN_DELAY] * 4


def test_one_address_trying_many_usernames_is_throttled(api, configure):
    configure(SIGN_IN_FAILURES_PER_ADDRESS=3)
    users.create_user("ann", "ann-secret")
    for name in ("root", "test", "guest"):
        assert api.get("/api/contacts", auth=False, headers=_basic(name, "x")).status_code == 401
    assert api.get("/api/contacts", auth=False, headers=_basic("ann", "ann-secret")).status_code == 429


def test_an_unknown_username_costs_a_password_verification_too(api, monkeypatch):
    from chalicelib.auth import passwords

    checked = []
    real = passwords.verify
    monkeypatch.setattr(
        passwords, "verify", lambda stored, password: checked.append(password) or real(stored, password)
    )
    assert api.get("/api/contacts", auth=False, headers=_basic("nobody-here", "pw1")).status_code == 401
    assert api.get("/api/contacts", auth=False, headers=_basic("admin", "pw2")).status_code == 401
    assert checked == ["pw1", "pw2"]


def test_a_forged_visitor_cookie_is_a_new_visitor(api):
    from tests.api.test_pages_public import fetch

    victim = api.post("/api/contacts/new", {"email": "vic@example.com", "firstname": "Victoria"}).json["contact"]
    api.post("/api/pages/new", {"title": "Hi", "alias": "hi", "customHtml": "<p>Hi {contactfield=firstname|there}</p>"})
    browser = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0"}
    forged = [f"mtc_id={victim['id']}", f"mtc_id={victim['id']}; mtc_sid={victim['id']}.0123456789abcdef"]
    for cookie in forged:
        page = fetch(api, "/hi", dict(browser, Cookie=cookie))
        assert page.body.decode() == "<p>Hi there</p>"
        assert set_cookies(page)["mtc_id"] != str(victim["id"])
    assert [
        e for e in api.get(f"/api/contacts/{victim['id']}/activity").json["events"] if e["event"] == "page.hit"
    ] == []
    own = fetch(api, "/hi", dict(browser, Cookie=visitor_cookie(victim["id"])))  # the signed token is proof
    assert own.body.decode() == "<p>Hi Victoria</p>"


def test_submitting_someone_elses_email_neither_hands_over_the_contact_nor_changes_consent(api):
    from tests.api.test_forms_submit import make_form, post

    form = make_form(api, actions=[{"name": "DNC", "type": "lead.remove_do_not_contact", "properties": {}}])
    victim = api.post("/api/contacts/new", {"email": "vic@example.com"}).json["contact"]
    api.post(f"/api/contacts/{victim['id']}/dnc/email/add", {})
    response = post(api, form["id"], {"email": "vic@example.com"})
    assert "mtc_id" not in set_cookies(response)  # no cookie naming the victim
    after = api.get(f"/api/contacts/{victim['id']}").json["contact"]
    assert [e["channel"] for e in after["doNotContact"]] == ["email"]
    failed = [
        e
        for e in api.get(f"/api/contacts/{victim['id']}/activity").json["events"]
        if e["event"] == "form.action.failed"
    ]
    assert len(failed) == 1


def test_following_an_email_link_proves_the_recipient(api):
    from html import unescape
    from urllib.parse import urlparse

    from tests.api.test_email_send import make_email, parts, sent_messages

    ann = api.post("/api/contacts/new", {"email": "ann@example.com", "firstname": "Ann"}).json["contact"]
    mail_doc = make_email(api, customHtml='<a href="https://site.example/offer">Offer</a>')
    api.post(f"/api/emails/{mail_doc['id']}/contact/{ann['id']}/send")
    html = parts(sent_messages()[0])[1]
    link = urlparse(unescape(html.split('href="')[1].split('"')[0]))
    clicked = api.http.request("GET", f"{link.path}?{link.query}", headers={}, body=b"")
    assert clicked.status_code == 302
    cookies = set_cookies(clicked)
    assert cookies["mtc_id"] == str(ann["id"]) and cookies["mtc_sid"].startswith(f"{ann['id']}.")


def test_a_form_return_goes_only_to_allowed_hosts(api, configure):
    from tests.api.test_forms_submit import make_form, post

    configure(FORM_RETURN_HOSTS=(".shop.example",))
    form = make_form(api, postAction="return", postActionProperty="Thanks")
    allowed = ["https://www.shop.example/back", "http://127.0.0.1/back"]  # a subdomain; the service's own host
    for target in allowed:
        response = post(api, form["id"], {"email": "a@example.com", "return": target})
        assert response.status_code == 302 and response.headers["Location"] == target
    for target in ("https://evil.example/phish", "https://shop.example.evil.example/", "javascript:alert(1)"):
        response = post(api, form["id"], {"email": "a@example.com", "return": target})
        assert response.status_code == 200 and "Location" not in response.headers, target
    refused = post(api, form["id"], {"email": "a@example.com"}, headers={"Referer": "https://evil.example/form"})
    assert refused.status_code == 200 and "Thanks" in refused.body.decode()


def test_one_address_cannot_flood_forms(api, configure):
    from tests.api.test_forms_submit import make_form, post

    configure(FORM_SUBMISSIONS_PER_ADDRESS=2)
    form = make_form(api)
    for n in range(2):
        assert post(api, form["id"], {"email": f"s{n}@example.com"}).status_code == 200
    refused = post(api, form["id"], {"email": "s2@example.com"}, headers={"X-Forwarded-For": "198.51.100.9"})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0  # a forged header changes nothing
    assert int(api.get(f"/api/forms/{form['id']}/submissions").json["total"]) == 2
    assert int(api.get("/api/contacts").json["total"]) == 2


def test_many_addresses_together_cannot_turn_forms_into_a_mail_relay(api, drain, configure):
    from tests.api.test_email_send import events, sent_messages
    from tests.api.test_form_actions import contact_of
    from tests.api.test_form_actions import make_form as form_with
    from tests.api.test_forms_submit import post

    configure(FORM_RELAY_PER_WINDOW=2)
    mail_doc = make_email(api, subject="Thanks", customHtml="<p>Thanks</p>")
    form = form_with(
        api,
        {"type": "email.send.lead", "properties": {"email": mail_doc["id"]}},
        {"type": "form.email", "properties": {"to": "sales@example.com", "copy_lead": True}},
    )
    for n in range(3):  # each from its own address, as a botnet would
        assert post(api, form["id"], {"email": f"victim{n}@example.com"}).status_code == 200
    drain()
    to_victims = [m for m in sent_messages() if m["To"].addresses[0].addr_spec.startswith("victim")]
    assert len(to_victims) == 2
    assert len([m for m in sent_messages() if m["To"].addresses[0].addr_spec == "sales@example.com"]) == 3
    (failed,) = events(api, contact_of(api, "victim2@example.com")["id"], "form.action.failed")
    assert "at most 2 submitted addresses" in failed["details"]["reason"]


def test_one_address_cannot_flood_the_contact_list_with_visitors(api, configure):
    from tests.api.test_pages_public import fetch

    configure(VISITORS_PER_ADDRESS=2)
    api.post("/api/pages/new", {"title": "Hi", "alias": "hi", "customHtml": "<p>Hi</p>"})
    browser = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0"}
    answers = [fetch(api, "/hi", browser) for _ in range(4)]
    assert [a.status_code for a in answers] == [200] * 4
    assert ["mtc_id" in set_cookies(a) for a in answers] == [True, True, False, False]
    assert int(api.get("/api/contacts?search=is:anonymous").json["total"]) == 2
    assert api.get("/api/pages").json["pages"][0]["hits"] == 4  # the page still counts every view


def test_a_bot_filling_the_honeypot_is_thanked_and_nothing_is_stored(api):
    from tests.api.test_forms_submit import make_form, post

    form = make_form(api)
    assert 'name="mauticform[hp_website]"' in form["cachedHtml"] and 'aria-hidden="true"' in form["cachedHtml"]
    response = post(api, form["id"], {"email": "bot@example.com", "hp_website": "http://spam.example"})
    assert response.status_code == 200 and "Thank you" in response.body.decode()
    assert int(api.get(f"/api/forms/{form['id']}/submissions").json["total"]) == 0
    assert int(api.get("/api/contacts").json["total"]) == 0


def test_click_tracking_signs_only_links_of_the_stored_content(api):
    from tests.api.test_email_send import make_email, parts, sent_messages

    ann = api.post("/api/contacts/new", {"email": "ann@example.com", "website": "https://evil.example/phish"}).json[
        "contact"
    ]
    html = (
        '<a href="https://site.example/offer">Offer</a> '
        '<a href="https://site.example/p?who={contactfield=email}">Mine</a> <a href="{contactfield=website}">Site</a>'
    )
    mail_doc = make_email(api, customHtml=html)
    api.post(f"/api/emails/{mail_doc['id']}/contact/{ann['id']}/send")
    sent = parts(sent_messages()[0])[1]
    hrefs = [part.split('"')[0] for part in sent.split('href="')[1:]]
    assert [("/r/" in href) for href in hrefs[:3]] == [True, True, False]
    assert hrefs[2] == "https://evil.example/phish"  # left as written: no redirect of ours points there


def test_oauth2_redirect_uris_are_https_or_loopback_without_fragments(fresh):
    import pytest

    from chalicelib.auth import clients
    from chalicelib.domain.kernel.context import Context

    for uri in ("http://crm.example/cb", "https://crm.example/cb#frag", "javascript:alert(1)", "https:///cb"):
        with pytest.raises(ValueError):
            clients.create(Context(), "Bad", [uri], "2")
    for uri in ("https://crm.example/cb", "http://127.0.0.1:8400/cb", "http://localhost/cb"):
        assert clients.create(Context(), "Good", [uri], "2")[0]["redirectUris"] == [uri]


@pytest.mark.aws  # DynamoDB refuses keys past its size: over moto
def test_a_username_longer_than_any_is_refused_as_any_wrong_one_and_never_stored(api):
    """Mautic's users have VARCHAR(191) usernames: a longer one in Basic credentials or a reset request
    is answered as a wrong one (it was a 500: its lockout counters' keys were past DynamoDB's limit),
    and a user cannot be given one."""
    long = "u" * 3000
    assert api.get("/api/contacts", auth=False, headers=_basic(long, "x")).status_code == 401
    assert api.post("/passwordreset", {"identifier": long}, auth=False).status_code == 200
    answer = api.post("/api/users/new", {"username": "u" * 192, "email": "u@example.com"})
    assert answer.status_code == 400 and "username" in answer.json["errors"][0]["details"]
