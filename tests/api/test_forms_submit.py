"""Issue 9, forms: cachedHtml, public submission (validation, contact mapping, actions, postAction,
timeline) and the submissions API."""

import json
from urllib.parse import urlencode

import pytest

from tests.conftest import set_cookies, visitor_cookie

FIELDS = [
    {
        "label": "Email",
        "alias": "email",
        "type": "email",
        "isRequired": True,
        "mappedObject": "contact",
        "mappedField": "email",
        "validationMessage": "We need your email.",
    },
    {"label": "First name", "type": "text", "mappedObject": "contact", "mappedField": "firstname"},
    {"label": "Age", "type": "number"},
    {
        "label": "Colour",
        "type": "select",
        "properties": {"list": {"list": [{"label": "Red", "value": "red"}, {"label": "Blue", "value": "blue"}]}},
    },
    {"label": "Topics", "type": "checkboxgrp", "properties": {"list": {"list": ["news", "offers"]}}},
    {"label": "Send", "type": "button"},
]


def make_form(api, **extra):
    body = {"name": "Newsletter", "fields": FIELDS}
    body.update(extra)
    response = api.post("/api/forms/new", body)
    assert response.status_code == 201, response.json
    return response.json["form"]


def post(api, form_id, values, query="", headers=None):
    pairs = [("mauticform[formId]", str(form_id))]
    for key, value in values.items():
        multiple = isinstance(value, list)
        pairs += [(f"mauticform[{key}][]", v) for v in value] if multiple else [(f"mauticform[{key}]", value)]
    all_headers = {"Content-Type": "application/x-www-form-urlencoded"}
    all_headers.update(headers or {})
    return api.http.request(
        "POST", f"/form/submit?formId={form_id}{query}", headers=all_headers, body=urlencode(pairs).encode()
    )


def test_cached_html_is_a_form_posting_to_the_submit_url(api):
    form = make_form(api)
    html = form["cachedHtml"]
    assert html.startswith("<style") and '<form autocomplete="false"' in html  # Mautic's wrapper
    assert f'/form/submit?formId={form["id"]}"' in html and 'id="mauticform_newsletter"' in html
    assert 'name="mauticform[email]"' in html and 'type="email"' in html and 'data-validate="email"' in html
    assert 'class="mauticform-required">*' in html and ">First name<" in html
    assert '<option value="red">Red</option>' in html and 'name="mauticform[topics][]"' in html
    assert f'name="mauticform[formId]" id="mauticform_newsletter_id" value="{form["id"]}"' in html


def test_submission_creates_the_contact_stores_results_and_shows_the_message(api, source_ip):
    form = make_form(api, postActionProperty="Thanks!")
    source_ip("10.1.2.3")
    response = post(
        api,
        form["id"],
        {"email": "ann@example.com", "first_name": "Ann", "age": "33", "colour": "red", "topics": ["news", "offers"]},
        headers={"Referer": "https://site.example/landing?utm_source=x"},
    )
    assert response.status_code == 200 and "Thanks!" in response.body.decode()
    assert set(set_cookies(response)) == {"mtc_id", "mtc_sid"}
    contacts = api.get("/api/contacts?search=email:ann@example.com").json["contacts"]
    (contact,) = contacts.values()
    assert contact["fields"]["all"]["firstname"] == "Ann"
    listed = api.get(f"/api/forms/{form['id']}/submissions").json
    assert int(listed["total"]) == 1
    sub = listed["submissions"][0]
    assert sub["results"] == {
        "email": "ann@example.com",
        "first_name": "Ann",
        "age": "33",
        "colour": "red",
        "topics": "news|offers",
    }
    assert sub["ipAddress"] == {"ip": "10.1.2.3"} and sub["referer"].startswith("https://site.example/landing")
    assert sub["form"] == {"id": form["id"], "name": "Newsletter", "alias": "newsletter", "category": None}
    assert sub["lead"]["id"] == contact["id"] and sub["lead"]["email"] == "ann@example.com"
    assert sub["lead"]["points"] == 0 and "color" in sub["lead"]
    activity = api.get(f"/api/contacts/{contact['id']}/activity").json["events"]
    submitted = [e for e in activity if e["event"] == "form.submitted"]
    assert submitted and submitted[0]["details"]["form"]["id"] == form["id"]
    assert submitted[0]["details"]["submission"]["id"] == sub["id"]


def test_second_submission_with_same_email_reuses_the_contact(api):
    form = make_form(api)
    post(api, form["id"], {"email": "bob@example.com"})
    post(api, form["id"], {"email": "BOB@example.com", "first_name": "Bob"})
    assert int(api.get("/api/contacts").json["total"]) == 1
    assert int(api.get(f"/api/forms/{form['id']}/submissions").json["total"]) == 2


def test_invalid_submission_names_the_fields_and_stores_nothing(api):
    form = make_form(api)
    response = post(api, form["id"], {"email": "", "age": "old", "colour": "green", "topics": ["spam"]})
    assert response.status_code == 400
    details = json.loads(response.body)["errors"][0]["details"]
    assert details["email"] == ["We need your email."]
    assert set(details) == {"email", "age", "colour", "topics"}
    assert int(api.get("/api/contacts").json["total"]) == 0
    assert int(api.get(f"/api/forms/{form['id']}/submissions").json["total"]) == 0
    assert post(api, form["id"], {"email": "not-an-email"}).status_code == 400


def test_unknown_or_unpublished_form_is_404(api):
    assert post(api, 999, {"email": "a@example.com"}).status_code == 404
    form = make_form(api, isPublished=False)
    assert post(api, form["id"], {"email": "a@example.com"}).status_code == 404


def test_post_actions_redirect_return_and_ajax(api, configure):
    configure(FORM_RETURN_HOSTS=("site.example",))
    redirecting = make_form(api, postAction="redirect", postActionProperty="https://site.example/thanks")
    response = post(api, redirecting["id"], {"email": "r@example.com"})
    assert response.status_code == 302 and response.headers["Location"] == "https://site.example/thanks"
    returning = make_form(api, name="Ret", postAction="return")
    response = post(api, returning["id"], {"email": "s@example.com", "return": "https://site.example/back"})
    assert response.status_code == 302 and response.headers["Location"] == "https://site.example/back"
    response = post(api, returning["id"], {"email": "t@example.com"}, query="&ajax=true")
    body = json.loads(response.body)
    assert response.status_code == 200 and body["success"] == 1 and body["results"]["email"] == "t@example.com"


def test_form_actions_change_points_tags_utm_and_dnc(api):
    actions = [
        {"name": "Score", "type": "lead.pointschange", "properties": {"operator": "plus", "points": 10}},
        {"name": "Tag", "type": "lead.changetags", "properties": {"add_tags": ["lead", "web"]}},
        {"name": "UTM", "type": "lead.addutmtags", "properties": {}},
        {"name": "DNC", "type": "lead.remove_do_not_contact", "properties": {}},
    ]
    form = make_form(api, actions=actions)
    contact = api.post("/api/contacts/new", {"email": "dee@example.com"}).json["contact"]
    api.post(f"/api/contacts/{contact['id']}/dnc/email/add", {})
    post(
        api,
        form["id"],
        {"email": "dee@example.com"},  # from Dee's own browser: she may change her consent
        headers={
            "Referer": "https://site.example/p?utm_source=news&utm_campaign=spring",
            "Cookie": visitor_cookie(contact["id"]),
        },
    )
    after = api.get(f"/api/contacts/{contact['id']}").json["contact"]
    assert after["points"] == 10
    assert sorted(t["tag"] for t in after["tags"]) == ["lead", "web"]
    assert after["utmtags"][0]["utmSource"] == "news" and after["utmtags"][0]["utmCampaign"] == "spring"
    assert after["doNotContact"] == []
    events = {e["event"] for e in api.get(f"/api/contacts/{contact['id']}/activity").json["events"]}
    assert {"form.submitted", "point.gained", "lead.utmtagsadded"} <= events


def test_unknown_form_action_type_is_refused(api):
    response = api.post("/api/forms/new", {"name": "F", "actions": [{"name": "x", "type": "nope"}]})
    assert response.status_code == 400 and "actions[0][type]" in response.json["errors"][0]["details"]


def test_submissions_api_by_contact_one_and_ordering(api):
    form = make_form(api)
    for email in ("a@example.com", "b@example.com", "a@example.com"):
        post(api, form["id"], {"email": email})
    base = f"/api/forms/{form['id']}/submissions"
    ordered = api.get(base + "?orderBy=s.date_submitted&orderByDir=DESC&limit=2").json
    assert int(ordered["total"]) == 3 and len(ordered["submissions"]) == 2
    by_id = api.get(base + "?orderBy=s.id&orderByDir=DESC").json["submissions"]
    assert [s["id"] for s in by_id] == sorted((s["id"] for s in by_id), reverse=True)
    contact_id = by_id[0]["lead"]["id"]
    mine = api.get(f"{base}/contact/{contact_id}").json
    assert int(mine["total"]) == 2 and all(s["lead"]["id"] == contact_id for s in mine["submissions"])
    one = api.get(f"{base}/{by_id[0]['id']}").json["submission"]
    assert one["id"] == by_id[0]["id"] and one["results"]["email"] == "a@example.com"
    assert api.get(f"{base}/9999").status_code == 404
    assert api.get(base + "?orderBy=s.nope").status_code == 400
    assert api.get(f"{base}/contact/9999").status_code == 404


# --- one write per submission, and who the submitter is --------------------------------------------


def _visitor(api, form_id, values, contact_id=None):
    headers = {"Cookie": visitor_cookie(contact_id)} if contact_id else None
    return post(api, form_id, values, headers=headers)


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_a_submission_is_stored_with_its_contact_in_one_transaction(api):
    from tests.bench.conftest import dynamodb_calls

    form = make_form(api, actions=[{"name": "Tag", "type": "lead.changetags", "properties": {"add_tags": ["web"]}}])
    api.post("/api/tags/new", {"tag": "web"})  # a tag named for the first time is a write of its own
    with dynamodb_calls() as calls:
        response = post(api, form["id"], {"email": "ann@example.com", "first_name": "Ann"})
    assert response.status_code in (200, 302)
    assert calls["TransactWriteItems"] == 1
    (submission,) = api.get(f"/api/forms/{form['id']}/submissions").json["submissions"]
    assert submission["lead"]["email"] == "ann@example.com"
    contact = api.get(f"/api/contacts/{submission['lead']['id']}").json["contact"]
    assert [t["tag"] for t in contact["tags"]] == ["web"]


def test_a_submission_failing_on_the_contact_stores_nothing(api, monkeypatch, configure):
    from chalicelib.store import port as entities

    configure(CONFLICT_RETRY_SECONDS=0.2)  # the 409 after the retry budget, without waiting out 5 s
    form = make_form(api)

    def failing(*args, **kwargs):
        raise entities.Stale("contact")

    monkeypatch.setattr(entities, "create", failing)
    response = post(api, form["id"], {"email": "ann@example.com"})
    assert response.status_code == 409
    monkeypatch.undo()
    assert int(api.get(f"/api/forms/{form['id']}/submissions").json["total"]) == 0
    assert int(api.get("/api/contacts").json["total"]) == 0


def test_a_known_email_typed_in_updates_that_contact_but_does_not_hand_it_over(api):
    form = make_form(api)
    ann = api.post("/api/contacts/new", {"email": "ann@example.com", "lastname": "Smith"}).json["contact"]
    visitor = api.post("/api/contacts/new", {"city": "Prague"}).json["contact"]  # tracked, anonymous
    response = _visitor(api, form["id"], {"email": "ann@example.com", "first_name": "Ann"}, visitor["id"])
    assert set_cookies(response)["mtc_id"] == str(visitor["id"])  # the browser stays who it was
    contact = api.get(f"/api/contacts/{ann['id']}").json["contact"]
    fields = contact["fields"]["all"]
    assert (fields["firstname"], fields["lastname"], fields["city"]) == ("Ann", "Smith", None)
    assert api.get(f"/api/contacts/{visitor['id']}").status_code == 200  # not merged into Ann
    (submission,) = api.get(f"/api/forms/{form['id']}/submissions").json["submissions"]
    assert submission["lead"]["id"] == ann["id"]


def test_an_anonymous_visitor_giving_a_new_email_becomes_identified(api):
    form = make_form(api)
    visitor = api.post("/api/contacts/new", {"city": "Prague"}).json["contact"]
    _visitor(api, form["id"], {"email": "new@example.com"}, visitor["id"])
    contact = api.get(f"/api/contacts/{visitor['id']}").json["contact"]
    assert contact["fields"]["all"]["email"] == "new@example.com" and contact["dateIdentified"]
    assert int(api.get("/api/contacts").json["total"]) == 1


def test_a_known_visitor_giving_another_email_submits_as_that_other_contact(api):
    form = make_form(api)
    ann = api.post("/api/contacts/new", {"email": "ann@example.com"}).json["contact"]
    _visitor(api, form["id"], {"email": "bob@example.com", "first_name": "Bob"}, ann["id"])
    assert api.get(f"/api/contacts/{ann['id']}").json["contact"]["fields"]["all"]["email"] == "ann@example.com"
    bob = api.get("/api/contacts?search=email:bob@example.com").json["contacts"]
    assert [c["fields"]["all"]["firstname"] for c in bob.values()] == ["Bob"]
