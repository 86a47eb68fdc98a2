"""Issue 42: Mautic's own form tests (FormApiControllerFunctionalTest, SubmissionFunctionalTest) as
HTTP requests with their assertions."""

import re

from tests.api.test_automations import memberships, new_automation, tag, tags
from tests.api.test_form_embed import get, make
from tests.api.test_forms_submit import post

TEST_PAYLOAD = {
    "name": "API form",
    "description": "Form created via API test",
    "formType": "standalone",
    "isPublished": True,
    "fields": [
        {
            "label": "Email",
            "type": "text",
            "alias": "email",
            "mappedObject": "contact",
            "mappedField": "email",
            "showLabel": True,
            "isRequired": True,
        },
        {"label": "Number", "type": "number", "alias": "number", "leadField": "points"},
        {"label": "Company", "type": "text", "alias": "company", "leadField": "company"},
        {"label": "Company Phone", "type": "tel", "alias": "phone", "leadField": "companyphone"},
        {
            "label": "Country",
            "type": "country",
            "alias": "country",
            "mappedObject": "contact",
            "mappedField": "country",
        },
        {"label": "Submit", "type": "button"},
    ],
    "postAction": "return",
}


def test_single_form_workflow_keeps_lead_field_and_mapped_field_as_one(api):
    """FormApiControllerFunctionalTest::testSingleFormWorkflow: `leadField` alone sets `mappedField` and
    `mappedObject` (company for `company…` fields but `company`), `mappedField` alone sets `leadField`;
    a PATCH adds a conditional field under the country; the form page is `mauticform_apiform`."""
    form = make(api, **TEST_PAYLOAD)
    fields = form["fields"]
    assert [(f["mappedObject"], f["mappedField"], f["leadField"]) for f in fields[:5]] == [
        ("contact", "email", "email"),
        ("contact", "points", "points"),
        ("contact", "company", "company"),
        ("company", "companyphone", "companyphone"),
        ("contact", "country", "country"),
    ]
    assert fields[0]["showLabel"] is True and fields[0]["isRequired"] is True and fields[1]["isRequired"] is False
    state = {
        "label": "State",
        "type": "text",
        "alias": "state",
        "mappedObject": "contact",
        "mappedField": "state",
        "parent": fields[4]["id"],
        "conditions": {"expr": "in", "any": 1, "values": []},
    }
    patched = api.patch(f"/api/forms/{form['id']}/edit", {"name": "API form renamed", "fields": [state]})
    assert patched.status_code == 200 and len(patched.json["form"]["fields"]) == 7
    assert patched.json["form"]["fields"][6]["leadField"] == "state" and patched.json["form"]["cachedHtml"]
    html = get(api, f"/form/{form['id']}").body.decode()
    assert 'id="mauticform_apiformrenamed"' in html and 'data-mautic-form-show-on="country:*"' in html
    answer = post(
        api,
        form["id"],
        {
            "email": "john@doe.test",
            "number": "123",
            "company": "Doe Corp",
            "country": "Czech Republic",
            "state": "Plzeňský kraj",
        },
    )
    assert answer.status_code == 200, answer.body
    (john,) = api.get("/api/contacts?search=email:john@doe.test").json["contacts"].values()
    assert john["fields"]["all"]["state"] == "Plzeňský kraj" and john["fields"]["all"]["company"] == "Doe Corp"
    assert john["points"] == 123


def test_form_with_change_tags_action_answers_tag_names(api):
    """FormApiControllerFunctionalTest::testFormWithChangeTagsAction."""
    add = api.post("/api/tags/new", {"tag": "add this"}).json["tag"]["id"]
    remove = api.post("/api/tags/new", {"tag": "remove this"}).json["tag"]["id"]
    action = {
        "name": "Add tags to contact",
        "description": "action description",
        "type": "lead.changetags",
        "order": 1,
        "properties": {"add_tags": [add], "remove_tags": [remove]},
    }
    fields = [{"label": "lab", "alias": "email", "type": "text", "leadField": "email"}]
    form = make(api, name="Form API test", fields=fields, actions=[action], postAction="return")
    saved = form["actions"][0]
    assert (saved["name"], saved["description"], saved["type"], saved["order"]) == (
        "Add tags to contact",
        "action description",
        "lead.changetags",
        1,
    )
    assert saved["properties"]["add_tags"] == ["add this"] and saved["properties"]["remove_tags"] == ["remove this"]
    assert form["fields"][0]["alias"] == "email" and form["fields"][0]["leadField"] == "email"
    assert post(api, form["id"], {"email": "tagged@example.com"}).status_code == 200
    (contact,) = api.get("/api/contacts?search=email:tagged@example.com").json["contacts"].values()
    assert tags(api, contact["id"]) == ["add this"]
    unknown = dict(action, properties={"add_tags": [9999]})
    refused = api.post("/api/forms/new", {"name": "Bad tags", "actions": [unknown]})
    assert refused.status_code == 400 and "9999" in refused.json["errors"][0]["message"]


def test_form_with_duplicate_field_aliases(api):
    """FormApiControllerFunctionalTest::testFormWithDuplicateFieldAliases: aliases are cut at 25
    characters; two that end equal are refused with Mautic's message, and nothing is created by the PUT."""
    base = make(
        api, name="Form API test", fields=[{"label": "Email", "alias": "email", "type": "text", "leadField": "email"}]
    )
    assert api.get(f"/api/forms/{base['id']}").json["form"]["id"] == base["id"]
    payload = {
        "name": "Form API test",
        "formType": "standalone",
        "isPublished": True,
        "fields": [
            {"label": "test1", "alias": "very_long_field_alias_12345", "type": "text"},
            {"label": "test2", "alias": "very_long_field_alias_123456", "type": "text"},
        ],
    }
    refused = api.put("/api/forms/123/edit", payload)
    assert refused.status_code == 400 and refused.json["errors"][0]["code"] == 400
    assert refused.json["errors"][0]["message"] == (
        "Another field is already using this alias: very_long_field_alias_123. "
        "Please choose another or leave blank to have it autogenerated."
    )
    assert api.get("/api/forms/123").status_code == 404
    one = make(api, name="Long", fields=[{"label": "A very long label for a field, longer than 25", "type": "text"}])
    assert one["fields"][0]["alias"] == "a_very_long_label_for_a_f"
    twins = make(api, name="Twins", fields=[{"label": "Email", "type": "text"}, {"label": "Email", "type": "text"}])
    assert [f["alias"] for f in twins["fields"]] == ["email", "email1"]


def test_form_with_invalid_field(api):
    """FormApiControllerFunctionalTest::testFormWithInvalidField: a field id the form does not hold is a 404
    naming it, before any other check."""
    payload = {
        "name": "Form API test",
        "fields": [
            {"label": "test1", "alias": "test1", "type": "text"},
            {"label": "test2", "id": 123, "alias": "test2", "type": "invalidField"},
        ],
    }
    answer = api.put("/api/forms/123/edit", payload)
    assert answer.status_code == 404 and answer.json["errors"][0]["message"] == "Form Field ID 123 not found"
    form = make(api, fields=[{"label": "A", "type": "text"}])
    assert api.patch(f"/api/forms/{form['id']}/edit", {"fields": [{"id": 77777, "label": "B"}]}).status_code == 404
    kept = api.patch(f"/api/forms/{form['id']}/edit", {"fields": [{"id": form["fields"][0]["id"], "label": "B"}]})
    assert kept.status_code == 200 and kept.json["form"]["fields"][0]["label"] == "B"


def test_send_submission_when_field_have_mysql_reserved_words(api):
    """SubmissionFunctionalTest::testSendSubmissionWhenFieldHaveMysqlReservedWords: alias `all` becomes `f_all`."""
    fields = [
        {"label": "All", "type": "text", "alias": "all", "leadField": "firstname"},
        {"label": "Submit", "type": "button"},
    ]
    form = make(api, fields=fields, postAction="return")
    assert form["fields"][0]["alias"] == "f_all"
    assert 'name="mauticform[f_all]"' in get(api, f"/form/{form['id']}").body.decode()
    assert post(api, form["id"], {"f_all": "test"}).status_code in (200, 302)
    (submission,) = api.get(f"/api/forms/{form['id']}/submissions").json["submissions"]
    assert submission["results"] == {"f_all": "test"}
    contact = api.get(f"/api/contacts/{submission['lead']['id']}").json["contact"]
    assert contact["fields"]["all"]["firstname"] == "test"


def test_redirect_post_action_replaces_form_and_contact_tokens(api):
    """TestRedirectPostAction (Mautic's PublicController::replacePostSubmitTokens): `{formfield=..}`,
    `{contactfield=..|default}` and `{pagelink=N}` in the redirect URL, values URL-encoded."""
    page = api.post("/api/pages/new", {"title": "Thanks", "alias": "thanks", "customHtml": "<p>ok</p>"}).json["page"]
    target = (
        f"{{pagelink={page['id']}}}?who={{formfield=full_name}}"
        "&mail={contactfield=email}&city={contactfield=city|none}"
    )
    fields = [{"label": "Full name", "type": "text"}, {"label": "Email", "type": "email", "mappedField": "email"}]
    form = make(api, fields=fields, postAction="redirect", postActionProperty=target)
    answer = post(api, form["id"], {"full_name": "Ann & Bob", "email": "ann@example.com"})
    assert answer.status_code == 302
    assert answer.headers["Location"] == "http://127.0.0.1/thanks?who=Ann%20%26%20Bob&mail=ann@example.com&city=none"
    ajax = post(api, form["id"], {"full_name": "Cy", "email": "cy@example.com"}, query="&ajax=1")
    assert ajax.status_code == 200 and re.search(r'"redirect":"http://127.0.0.1/thanks\?who=Cy&', ajax.body.decode())


def test_company_lookup_field_submission_links_the_contact(api):
    """testCompanyLookupFieldSubmission: a `companyLookup` field mapped to the company's name links the
    contact to that company (made when missing)."""
    fields = [
        {"label": "Email", "type": "email", "mappedField": "email"},
        {
            "label": "Company",
            "type": "companyLookup",
            "alias": "company",
            "mappedObject": "company",
            "mappedField": "companyname",
        },
    ]
    form = make(api, fields=fields)
    assert post(api, form["id"], {"email": "lookup@example.com", "company": "Acme Ltd"}).status_code == 200
    (contact,) = api.get("/api/contacts?search=email:lookup@example.com").json["contacts"].values()
    companies = api.get(f"/api/contacts/{contact['id']}/companies").json["companies"]
    assert [c["companyname"] for c in companies] == ["Acme Ltd"]


def test_add_contact_to_campaign_by_form(api, drain):
    """SubmissionFunctionalTest::testAddContactToCampaignByForm: a published automation whose source is the
    form takes the submitting contact; an unpublished one does not."""
    form = make(
        api, formType="campaign", fields=[{"label": "Email", "type": "email", "alias": "email", "leadField": "email"}]
    )
    published = new_automation(api, [tag("new1", "from-form")], forms=[form["id"]])
    unpublished = new_automation(api, [tag("new1", "never")], forms=[form["id"]], isPublished=False)
    page = get(api, f"/form/{form['id']}").body.decode()
    assert 'id="mauticform_submissiontestform"' in page
    assert post(api, form["id"], {"email": "xx@xx.com"}).status_code == 200
    drain()
    (contact,) = api.get("/api/contacts?search=email:xx@xx.com").json["contacts"].values()
    entered = memberships(api, contact["id"])["automations"]
    assert str(published["id"]) in entered and str(unpublished["id"]) not in entered
    assert tags(api, contact["id"]) == ["from-form"]


def test_validation_options_international_phone_and_do_not_submit_emails(api, configure):
    """Mautic's FormValidationSubscriber: `international` tel numbers, `donotsubmit` email patterns."""
    configure(DO_NOT_SUBMIT_EMAILS=("*@gmail.com", "*@*.ru"))
    fields = [
        {
            "label": "Phone",
            "type": "tel",
            "validation": {"international": 1, "international_validationmsg": "Use +<code>"},
        },
        {"label": "Email", "type": "email", "validation": {"donotsubmit": 1}},
        {"label": "Other", "type": "email"},
    ]
    form = make(api, fields=fields)
    bad_phone = post(api, form["id"], {"phone": "0444 555 666", "email": "a@work.com"})
    assert bad_phone.status_code == 400 and b"Use +<code>" in bad_phone.body
    refused = post(api, form["id"], {"phone": "+420444555666", "email": "Someone@GMAIL.com"})
    assert refused.status_code == 400 and b"Cannot be sent with this email" in refused.body
    fine = post(
        api, form["id"], {"phone": "+420 444 555 666", "email": "a@mail.example.ru.com", "other": "b@gmail.com"}
    )
    assert fine.status_code == 200, fine.body
