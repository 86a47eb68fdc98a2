"""Issue 41: a form embedded on a website, used as a visitor would. The site carries Mautic's embed
script (`/form/generate.js?id=N`); the form's `state` field is shown only when `country` is US (a
field condition on its `parent`), and required then. Mautic's DOM ids: the form `mauticform_<form>`,
a field's wrapper `mauticform_<form>_<field>` and input `mauticform_input_<form>_<field>`, the
message `mauticform_<form>_message`."""

import time

import pytest

from tests.e2e.test_local_stack import _call

NAME = "signup"  # the form's name: Mautic's formName, its DOM prefix
COUNTRIES = {"list": {"list": [{"label": "United States", "value": "US"}, {"label": "France", "value": "FR"}]}}


def _form(stack):
    conn = stack.connection()
    fields = [
        {
            "label": "Email",
            "alias": "email",
            "type": "email",
            "isRequired": True,
            "mappedObject": "contact",
            "mappedField": "email",
        },
        {"label": "Country", "alias": "country", "type": "select", "properties": COUNTRIES},
        {"label": "Send", "alias": "submit", "type": "button"},
    ]
    body = {"name": NAME, "postAction": "message", "postActionProperty": "Merci, à bientôt.", "fields": fields}
    status, created, _ = _call(conn, "POST", "/api/forms/new", body)
    assert status == 201, created
    form = created["form"]
    country = next(f for f in form["fields"] if f["alias"] == "country")
    state = {
        "label": "State",
        "alias": "state",
        "type": "text",
        "isRequired": True,
        "validationMessage": "State is required",
        "parent": str(country["id"]),
        "conditions": {"expr": "in", "any": 0, "values": ["US"]},
    }
    kept = [{"id": f["id"]} for f in form["fields"]]
    status, edited, _ = _call(conn, "PATCH", f"/api/forms/{form['id']}/edit", {"fields": kept + [state]})
    assert status == 200, edited
    return edited["form"]


@pytest.fixture
def embedded(stack, site):
    """The form, on a page of the test site, through the service's embed script."""
    form = _form(stack)
    service = f"http://127.0.0.1:{stack.port}"
    site.pages["/signup"] = (
        "<!DOCTYPE html><html><head><title>Sign up</title></head><body><h1>Sign up</h1>"
        f'<script type="text/javascript" src="{service}/form/generate.js?id={form["id"]}"></script>'
        "</body></html>"
    )
    return form


def _submissions(stack, form_id, count, timeout=10):
    deadline = time.monotonic() + timeout
    while True:
        _, found, _ = _call(stack.connection(), "GET", f"/api/forms/{form_id}/submissions")
        if found["total"] >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def test_a_visitor_fills_the_embedded_conditional_form(embedded, site, visitor, stack):
    tab = visitor.new_page()
    tab.goto(f"{site.origin}/signup")
    form = tab.locator(f"#mauticform_{NAME}")
    form.wait_for(timeout=15000)
    state = tab.locator(f"#mauticform_{NAME}_state")
    country = tab.locator(f"#mauticform_input_{NAME}_country")
    assert state.is_hidden()
    country.select_option("US")
    state.wait_for(state="visible", timeout=5000)
    country.select_option("FR")
    state.wait_for(state="hidden", timeout=5000)
    country.select_option("US")
    tab.fill(f"#mauticform_input_{NAME}_email", "ada@example.com")
    form.locator("button[type=submit]").click()
    error = state.locator(".mauticform-errormsg")
    error.wait_for(state="visible", timeout=5000)
    assert "State is required" in error.inner_text()
    assert _call(stack.connection(), "GET", f"/api/forms/{embedded['id']}/submissions")[1]["total"] == 0
    country.select_option("FR")
    form.locator("button[type=submit]").click()
    message = tab.locator(f"#mauticform_{NAME}_message")
    message.wait_for(state="visible", timeout=10000)
    assert "Merci" in message.inner_text()
    (submission,) = _submissions(stack, embedded["id"], 1)["submissions"]
    assert submission["results"]["country"] == "FR" and not submission["results"].get("state")
    assert submission["results"]["email"] == "ada@example.com"
