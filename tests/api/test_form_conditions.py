"""Issue 41/42: conditional form fields (`parent` + `conditions`) are neither required nor stored when
hidden; `validation` options; aliases and `leadField` as Mautic's API sets them."""

from tests.api.test_forms_submit import post

COUNTRY = {"label": "Country", "type": "country", "alias": "country", "leadField": "country"}


def conditional_form(api, conditions, name="Submission test form"):
    """A form with a country field and a required `state` shown for some countries (added by PATCH,
    naming its parent by id, as Mautic's test does)."""
    created = api.post("/api/forms/new", {"name": name, "fields": [COUNTRY, {"label": "Submit", "type": "button"}]})
    assert created.status_code == 201, created.json
    form = created.json["form"]
    state = {
        "label": "State",
        "type": "text",
        "alias": "state",
        "leadField": "state",
        "parent": form["fields"][0]["id"],
        "isRequired": True,
        "conditions": conditions,
    }
    patched = api.patch(f"/api/forms/{form['id']}/edit", {"fields": [state]})
    assert patched.status_code == 200, patched.json
    return patched.json["form"]


def results(api, form_id):
    return [s["results"] for s in api.get(f"/api/forms/{form_id}/submissions").json["submissions"]]


def test_a_french_submission_skips_the_us_only_state_and_a_us_one_needs_it(api):
    """Issue 41: `state` required and shown only when `country` is US."""
    form = conditional_form(api, {"expr": "in", "any": 0, "values": ["United States"]})
    french = post(api, form["id"], {"country": "France", "state": "Île-de-France"})
    assert french.status_code == 200, french.body
    assert results(api, form["id"]) == [{"country": "France"}]  # hidden: not stored either
    refused = post(api, form["id"], {"country": "United States", "state": ""})
    assert refused.status_code == 400 and b"state" in refused.body
    accepted = post(api, form["id"], {"country": "United States", "state": "Ohio"})
    assert accepted.status_code == 200
    assert {"country": "United States", "state": "Ohio"} in results(api, form["id"])
    contact = api.get("/api/contacts?search=state:Ohio").json["contacts"]
    assert [c["fields"]["all"]["country"] for c in contact.values()] == ["United States"]


def test_required_conditional_field_if_not_empty(api):
    """SubmissionFunctionalTest::testRequiredConditionalFieldIfNotEmpty: shown for Australia, the state
    is stored with the country."""
    form = conditional_form(api, {"expr": "in", "any": 0, "values": ["Australia"]})
    answer = post(api, form["id"], {"country": "Australia", "state": "Victoria"})
    assert answer.status_code == 200, answer.body
    assert results(api, form["id"]) == [{"country": "Australia", "state": "Victoria"}]


def test_required_conditional_field_if_all_fields_empty(api):
    """SubmissionFunctionalTest::testRequiredConditionalFieldIfAllFieldsEmpty: nothing chosen, the state
    is hidden, the submission passes with empty results."""
    form = conditional_form(api, {"expr": "in", "any": 0, "values": ["Australia"]})
    answer = post(api, form["id"], {"country": "", "state": ""})
    assert answer.status_code == 200, answer.body
    assert results(api, form["id"]) == [{"country": ""}]


def test_required_conditional_field_if_required_state_should_kick_in(api):
    """SubmissionFunctionalTest::testRequiredConditionalFieldIfRequiredStateShouldKickIn: `any` shows the
    state for every country, so an empty one is refused and nothing is stored."""
    form = conditional_form(api, {"expr": "in", "any": 1, "values": []})
    answer = post(api, form["id"], {"country": "Australia", "state": ""})
    assert answer.status_code == 400
    assert results(api, form["id"]) == []


def test_not_in_shows_the_field_for_other_values(api):
    """`expr: notIn`: shown for any value outside `values` (and never for no value)."""
    form = conditional_form(api, {"expr": "notIn", "values": ["France"]})
    assert post(api, form["id"], {"country": "France"}).status_code == 200
    assert post(api, form["id"], {"country": "Spain", "state": ""}).status_code == 400
