"""Issue 41/42: what websites embed of a form (`/form/{id}`, `/form/generate.js?id=N`, `/form/embed/{id}`,
`/media/js/mautic-form.js`), Mautic's DOM ids and attributes, progressive profiling, autofill, GET
parameters, kiosk mode, and the CORS rules of an ajax post from another site."""

import json
import re

from tests.api.test_form_conditions import conditional_form
from tests.api.test_forms_submit import post
from tests.api.test_permissions import FORBIDDEN, _as
from tests.conftest import set_cookies, visitor_cookie


def get(api, path, headers=None):
    return api.http.request("GET", path, headers=headers or {})


def make(api, **body):
    body.setdefault("name", "Submission test form")
    created = api.post("/api/forms/new", body)
    assert created.status_code == 201, created.json
    return created.json["form"]


def test_the_form_page_has_mautics_dom_ids_attributes_and_conditional_rows(api):
    """SubmissionFunctionalTest::testRequiredConditionalFieldIfNotEmpty (the page part): the form is
    `form[id=mauticform_submissiontestform]`, carries `formAttributes`, and the state row waits for its country."""
    form = conditional_form(api, {"expr": "in", "any": 0, "values": ["United States"]})
    api.patch(f"/api/forms/{form['id']}/edit", {"formAttributes": 'class="foobar" onclick="evil()"'})
    page = get(api, f"/form/{form['id']}")
    html = page.body.decode()
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert '<form class="foobar"' in html and 'id="mauticform_submissiontestform"' in html and "evil" not in html
    assert (
        'id="mauticform_submissiontestform_state"' in html and 'id="mauticform_input_submissiontestform_state"' in html
    )
    assert 'data-mautic-form-show-on="country:United States"' in html and 'data-mautic-form-expr="in"' in html
    row = re.search(r'<div[^>]*id="mauticform_submissiontestform_state"[^>]*>', html).group()
    assert "mauticform-field-hidden" in row and 'data-validate="state"' in row
    assert '<meta name="robots" content="index">' in html and "/media/js/mautic-form.js" in html
    assert html.index('id="mauticform_submissiontestform_country"') < html.index(
        'id="mauticform_submissiontestform_state"'
    )


def test_label_input_and_container_attributes_are_rendered_escaped(api):
    field = {
        "label": "Name",
        "type": "text",
        "labelAttributes": 'class="big" title="Your name"',
        "inputAttributes": 'placeholder="Ann" data-x=\'1"><script>\'',
        "containerAttributes": 'class="half" style="width:50%"',
    }
    html = make(api, fields=[field])["cachedHtml"]
    assert 'class="big mauticform-label"' in html and 'title="Your name"' in html
    assert 'placeholder="Ann"' in html and 'data-x="1&quot;&gt;&lt;script&gt;"' in html and "<script>" not in html
    assert 'class="half mauticform-row mauticform-text mauticform-field-1"' in html and 'style="width:50%"' in html


def test_generate_js_writes_the_form_after_its_script_tag_and_an_unknown_form_is_empty(api):
    form = make(api, fields=[{"label": "Email", "type": "email", "isRequired": True}])
    script = get(api, f"/form/generate.js?id={form['id']}")
    assert script.status_code == 200 and script.headers["Content-Type"].startswith("text/javascript")
    text = script.body.decode()
    written = json.loads(re.search(r"var html = (.*);\n", text).group(1))
    assert 'id="mauticform_submissiontestform"' in written and "insertAdjacentHTML('afterend', html)" in text
    assert "/media/js/mautic-form.js" in text
    for unknown in ("999", "x", ""):
        empty = get(api, f"/form/generate.js?id={unknown}")
        assert empty.status_code == 200 and empty.body == b""
    api.patch(f"/api/forms/{form['id']}/edit", {"isPublished": False})
    assert get(api, f"/form/generate.js?id={form['id']}").body == b""
    assert get(api, f"/form/{form['id']}").status_code == 404
    assert get(api, "/form/999").status_code == 404 and get(api, f"/form/embed/{form['id']}").status_code == 404


def test_the_form_script_is_served(api):
    script = get(api, "/media/js/mautic-form.js")
    text = script.body.decode()
    assert script.status_code == 200 and script.headers["Content-Type"].startswith("text/javascript")
    assert "data-mautic-form-show-on" in text and "MauticSDK" in text and "max-age" in script.headers["Cache-Control"]


def test_progressive_forms_show_at_most_their_number_of_fields(api):
    """SubmissionFunctionalTest::testProgressiveFormsWithMaximumFieldsDisplayedAtTime: a limit of 2 shows
    the email and one text field; the button does not count."""
    fields = [
        {"label": "Email", "type": "email", "alias": "email", "leadField": "email", "isAutoFill": True},
        {"label": "Firstname", "type": "text", "alias": "firstname", "leadField": "firstname"},
        {"label": "Lastname", "type": "text", "alias": "lastname", "leadField": "lastname"},
        {"label": "Submit", "type": "button"},
    ]
    form = make(api, progressiveProfilingLimit=2, fields=fields, postAction="return")
    html = get(api, f"/form/{form['id']}").body.decode()
    assert len(re.findall(r'class="[^"]*mauticform-row mauticform-text ', html)) == 1
    assert "mauticform[email]" in html and "mauticform[lastname]" not in html and "mauticform-button" in html
    # the hidden field is not required of this visitor: its error is dropped as Mautic drops it
    kiosk = make(api, name="Kiosk", inKioskMode=True, progressiveProfilingLimit=1, fields=fields)
    assert "mauticform[lastname]" in get(api, f"/form/{kiosk['id']}").body.decode()  # kiosk shows all


def test_a_known_visitor_is_autofilled_and_a_known_value_is_not_asked_again(api):
    """Issue 41: `isAutoFill` shows a known visitor's value; `showWhenValueExists: false` hides a known one
    (as a hidden input carrying it when it autofills); `showAfterXSubmissions` waits for submissions."""
    contact = api.post("/api/contacts/new", {"email": "ann@example.com", "firstname": "Ann", "city": "Lyon"}).json
    fields = [
        {"label": "Email", "type": "email", "alias": "email", "mappedField": "email", "isAutoFill": True},
        {"label": "First", "type": "text", "alias": "first", "mappedField": "firstname", "showWhenValueExists": False},
        {
            "label": "City",
            "type": "text",
            "alias": "city",
            "mappedField": "city",
            "isAutoFill": True,
            "showWhenValueExists": False,
        },
        {"label": "Why", "type": "text", "alias": "why", "showAfterXSubmissions": 1},
    ]
    form = make(api, fields=fields)
    cookie = {"Cookie": visitor_cookie(contact["contact"]["id"])}
    known = get(api, f"/form/{form['id']}", cookie).body.decode()
    assert 'name="mauticform[email]" class="mauticform-input" value="ann@example.com"' in known
    assert "mauticform[first]" not in known and "mauticform[why]" not in known
    assert (
        '<input type="hidden" id="mauticform_input_submissiontestform_city" name="mauticform[city]"'
        ' class="mauticform-hidden" value="Lyon">' in known
    )
    stranger = get(api, f"/form/{form['id']}").body.decode()
    assert "ann@example.com" not in stranger and "mauticform[first]" in stranger and "mauticform[why]" in stranger
    assert post(api, form["id"], {"email": "ann@example.com"}, headers=cookie).status_code == 200
    again = get(api, f"/form/{form['id']}", cookie).body.decode()
    assert "mauticform[why]" in again  # one submission now


def test_get_parameters_fill_the_form_page_and_a_landing_pages_form(api):
    """FormModelFunctionalTest::testPopulateValuesWithGetParameters: on the form page and through `{form=N}`."""
    fields = [
        {"label": "firstname", "alias": "firstname", "type": "text"},
        {"label": "email", "alias": "email", "type": "email", "leadField": "email"},
        {"label": "description", "alias": "description", "type": "textarea"},
        {
            "label": "checkbox",
            "alias": "checkbox",
            "type": "checkboxgrp",
            "properties": {
                "optionlist": {
                    "list": [
                        {"label": "val1", "value": "val1"},
                        {"label": "val2", "value": "val2"},
                        {"label": "val3", "value": "val3"},
                    ]
                }
            },
        },
    ]
    form = make(api, name="Test Form", fields=fields)
    html = get(
        api, f"/form/{form['id']}?email=testform@test.com&firstname=test&description=test-test&checkbox=val1|val3"
    ).body.decode()
    assert (
        'type="email" id="mauticform_input_testform_email" name="mauticform[email]" class="mauticform-input"'
        ' value="testform@test.com"' in html
    )
    assert 'value="test"' in html and ">test-test</textarea>" in html
    assert 'value="val1" checked>' in html and 'value="val2">' in html and 'value="val3" checked>' in html
    page = api.post(
        "/api/pages/new",
        {"title": "Test page", "alias": "test-page", "customHtml": f"<html><body>{{form={form['id']}}}</body></html>"},
    )
    assert page.status_code == 201, page.json
    served = get(api, "/test-page?email=test%2Bpage@test.com&firstname=test").body.decode()
    assert 'id="mauticform_testform"' in served and 'value="test+page@test.com"' in served and 'value="test"' in served


def test_kiosk_mode_does_not_take_over_the_tracked_visitor(api):
    """Issue 41: in kiosk mode each submission makes or finds its own contact; the browser stays its own."""
    form = make(
        api, name="Kiosk", inKioskMode=True, fields=[{"label": "Email", "type": "email", "mappedField": "email"}]
    )
    mine = api.post("/api/contacts/new", {"firstname": "Desk"}).json["contact"]
    cookie = {"Cookie": visitor_cookie(mine["id"])}
    answer = post(api, form["id"], {"email": "visitor1@example.com"}, headers=cookie)
    assert answer.status_code == 200
    assert set_cookies(answer).get("mtc_id") in (None, str(mine["id"]))
    desk = api.get(f"/api/contacts/{mine['id']}").json["contact"]
    assert desk["fields"]["all"]["email"] in (None, "")  # the tracked contact got no email
    (made,) = api.get("/api/contacts?search=email:visitor1@example.com").json["contacts"].values()
    assert made["id"] != mine["id"]
    normal = make(api, name="Normal", fields=[{"label": "Email", "type": "email", "mappedField": "email"}])
    post(api, normal["id"], {"email": "desk@example.com"}, headers=cookie)
    assert api.get(f"/api/contacts/{mine['id']}").json["contact"]["fields"]["all"]["email"] == "desk@example.com"


def test_an_ajax_post_from_another_site_gets_cors_headers_with_its_errors(api):
    form = make(api, fields=[{"label": "Email", "type": "email", "alias": "email", "isRequired": True}])
    origin = {"Origin": "https://shop.example.net"}
    good = post(api, form["id"], {"email": "cors@example.com"}, query="&ajax=1", headers=origin)
    assert good.status_code == 200 and good.headers["Access-Control-Allow-Origin"] == "https://shop.example.net"
    assert good.headers["Access-Control-Allow-Credentials"] == "true"
    body = json.loads(good.body)
    assert body["success"] == 1 and body["successMessage"] and body["formName"] == "submissiontestform"
    bad = post(api, form["id"], {"email": ""}, query="&ajax=1", headers=origin)
    assert bad.status_code == 400 and bad.headers["Access-Control-Allow-Origin"] == "https://shop.example.net"
    assert "email" in json.loads(bad.body)["errors"][0]["details"]


def test_a_limited_user_cannot_turn_anothers_form_into_a_kiosk_nor_limit_it(api):
    form = make(api, fields=[{"label": "Email", "type": "email"}])
    dora = _as(api, "dora", {"form:forms": ["viewown", "editown", "create"]})
    for change in (
        {"inKioskMode": True},
        {"progressiveProfilingLimit": 1},
        {"fields": [{"label": "X", "type": "text", "parent": form["fields"][0]["id"]}]},
    ):
        refused = dora.patch(f"/api/forms/{form['id']}/edit", change)
        assert refused.status_code == 403 and refused.json["errors"][0]["message"] == FORBIDDEN
    stored = api.get(f"/api/forms/{form['id']}").json["form"]
    assert stored["inKioskMode"] is False and stored["progressiveProfilingLimit"] is None and len(stored["fields"]) == 1
    own = dora.post("/api/forms/new", {"name": "Mine", "inKioskMode": True, "progressiveProfilingLimit": 1}).json[
        "form"
    ]
    assert own["inKioskMode"] is True and own["progressiveProfilingLimit"] == 1
