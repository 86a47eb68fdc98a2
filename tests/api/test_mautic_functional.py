"""Mautic 5.1's own API functional tests (`app/bundles/*/Tests/Controller/Api/*`), read as HTTP
requests with the same assertions. Each test names the Mautic test it comes from; Mautic's test
client posts form parameters, so most requests here are form-encoded as PHP's
`http_build_query` writes them (`a[0]=x&a[1]=y`)."""

from urllib.parse import urlencode

from tests.api.payloads import assert_error

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def _form(value, prefix=""):
    """(key, value) pairs of `value` as `http_build_query` writes them: lists with indices."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return [(prefix, "" if value is None else str(value))]
    pairs = []
    for key, item in items:
        pairs += _form(item, f"{prefix}[{key}]" if prefix else str(key))
    return pairs


def posted(api, method, path, params):
    """A request with `params` form-encoded, as Mautic's functional tests send them."""
    return api.call(method, path, headers=FORM, raw=urlencode(_form(params)).encode())


def test_form_encoded_indexed_lists_are_lists(api):
    """`http_build_query` lists (`rawPermissions[lead:leads][0]=viewown`) read as lists, as PHP
    reads them (`UserApiControllerFunctionalTest` roles, `ListApiControllerFunctionalTest` filters)."""
    role = posted(
        api, "POST", "/api/roles/new", {"name": "Sales", "rawPermissions": {"lead:leads": ["viewown", "editown"]}}
    )
    assert role.status_code == 201, role.json
    assert role.json["role"]["rawPermissions"] == {"lead:leads": ["viewown", "editown"]}
    segment = posted(
        api,
        "POST",
        "/api/segments/new",
        {
            "name": "Countries",
            "filters": [
                {
                    "glue": "and",
                    "field": "country",
                    "object": "lead",
                    "type": "country",
                    "operator": "in",
                    "properties": {"filter": ["France", "Spain"]},
                }
            ],
        },
    )
    assert segment.status_code == 201, segment.json
    assert segment.json["list"]["filters"][0]["properties"]["filter"] == ["France", "Spain"]


def test_tag_workflow(api):
    """`TagApiControllerFunctionalTest::testTagWorkflow`: posting an existing tag answers 200 with it."""
    first = posted(api, "POST", "/api/tags/new", {"tag": "test_tag"})
    assert first.status_code == 201
    tag_id = first.json["tag"]["id"]
    again = posted(api, "POST", "/api/tags/new", {"tag": "test_tag"})
    assert again.status_code == 200
    assert again.json["tag"] == first.json["tag"]
    renamed = posted(api, "PATCH", f"/api/tags/{tag_id}/edit", {"tag": "tag_renamed"})
    assert (renamed.status_code, renamed.json["tag"]["id"], renamed.json["tag"]["tag"]) == (200, tag_id, "tag_renamed")
    assert api.get(f"/api/tags/{tag_id}").json["tag"]["tag"] == "tag_renamed"
    assert api.delete(f"/api/tags/{tag_id}/delete").status_code == 200
    assert_error(api.get(f"/api/tags/{tag_id}"), 404)


def test_whitespace_before_and_after_name_not_creating_duplicates(api):
    """`TagApiControllerFunctionalTest::testWhitespaceBeforeAndAfterNameNotCreatingDuplicates`."""
    answers = [
        posted(api, "POST", "/api/tags/new", {"tag": name}).json["tag"]
        for name in ("test", "test ", " test", "test\t", "\ttest")
    ]
    assert {(tag["id"], tag["tag"]) for tag in answers} == {(answers[0]["id"], "test")}


def test_encoded_characters_not_creating_duplicates(api):
    """`TagApiControllerFunctionalTest::testEncodedCharactersNotCreatingDuplicates`."""
    first = posted(api, "POST", "/api/tags/new", {"tag": 'hello" world'}).json["tag"]
    assert first["tag"] == 'hello" world'
    assert posted(api, "POST", "/api/tags/new", {"tag": 'hello" world'}).json["tag"]["id"] == first["id"]
    assert api.get("/api/tags").json["total"] in (1, "1")


def _batch_fields(answer, index, name):
    return answer.json["contacts"][index]["fields"]["all"][name]


def test_batch_new_endpoint_does_not_create_duplicates(api):
    """`LeadApiControllerFunctionalTest::testBatchNewEndpointDoesNotCreateDuplicates`: a second
    batch with an unsanitised email (`x@y.com,`) and a null first name updates, never duplicates."""
    company_a = api.post("/api/companies/new", {"companyname": "CompanyA corp"}).json["company"]["id"]
    company_b = api.post("/api/companies/new", {"companyname": "CompanyB corp"}).json["company"]["id"]
    payload = [
        {
            "email": "batchemail1@email.com",
            "firstname": "BatchUpdate",
            "points": 4,
            "tags": ["batchtest", "testbatch"],
            "city": "Houston",
            "timezone": "America/Chicago",
            "owner": 1,
            "company": company_a,
        },
        {
            "email": "batchemail2@email.com",
            "firstname": "BatchUpdate2",
            "tags": ["batchtest", "testbatch", "batchremovetest"],
            "city": "Boston",
        },
        {"email": "batchemail3@email.com", "firstname": "BatchUpdate3"},
    ]
    first = posted(api, "POST", "/api/contacts/batch/new", payload)
    assert first.status_code == 201, first.json
    assert first.json["statusCodes"] == [201, 201, 201]
    ids = [contact["id"] for contact in first.json["contacts"]]
    assert [len(contact["tags"]) for contact in first.json["contacts"]] == [2, 3, 0]
    assert (first.json["contacts"][0]["points"], _batch_fields(first, 0, "points")) == (4, 4)
    assert int(_batch_fields(first, 0, "company")) == company_a
    payload[0].update(email="batchemail1@email.com,", firstname=None, city="Sunnyvale", owner=None, company=company_b)
    del payload[0]["tags"]
    payload[1].update(owner=1, tags=["testbatch1", "testbatch2", "-batchremovetest"], points=3)
    second = posted(api, "POST", "/api/contacts/batch/new", payload)
    assert second.status_code == 201, second.json
    assert second.json["statusCodes"] == [200, 200, 200]
    assert [contact["id"] for contact in second.json["contacts"]] == ids
    assert _batch_fields(second, 0, "email") == "batchemail1@email.com"
    assert _batch_fields(second, 0, "firstname") == "BatchUpdate"
    assert _batch_fields(second, 0, "city") == "Sunnyvale"
    assert [contact["points"] for contact in second.json["contacts"]] == [4, 3, 0]
    assert [len(contact["tags"]) for contact in second.json["contacts"]] == [2, 4, 0]
    assert second.json["contacts"][0]["owner"] is None
    assert second.json["contacts"][1]["owner"]["id"] == 1
    assert int(_batch_fields(second, 0, "company")) == company_b
    assert api.get("/api/contacts").json["total"] in (3, "3")


def test_empty_response_returns_json_object(api):
    """`LeadApiControllerFunctionalTest::testEmptyResponseReturnsJsonObject`: the exact body."""
    answer = api.get("/api/contacts?where[0][val]=unicorn&where[0][col]=email&where[0][expr]=eq")
    assert answer.status_code == 200
    assert answer.body == b'{"total":"0","contacts":{}}'


def test_add_and_remove_dnc_to_existing_contact(api):
    """`LeadApiControllerFunctionalTest::testAddAndRemoveDncToExistingContact`: reason 0 is a 400,
    the default is manual (3) on email; the activity's event is labelled `Email` with the reason's text."""
    contact = posted(api, "POST", "/api/contacts/new", {"email": "addDncDemo@mautic.org"}).json["contact"]
    assert contact["doNotContact"] == []
    path = f"/api/contacts/{contact['id']}/dnc/email"
    assert posted(api, "POST", f"{path}/add", {"reason": 0}).status_code == 400
    added = api.post(f"{path}/add", headers=FORM, raw=b"").json["contact"]["doNotContact"][0]
    assert (added["reason"], added["channel"]) == (3, "email")
    events = api.get(f"/api/contacts/{contact['id']}/activity").json["events"]
    dnc = [event for event in events if event["event"] == "lead.donotcontact"]
    assert len(events) == 2 and len(dnc) == 1
    assert dnc[0]["eventLabel"] == "Email"
    assert dnc[0]["details"]["dnc"]["reason"] == "Contact was manually set as do not contact for this channel."
    removed = api.post(f"{path}/remove", headers=FORM, raw=b"")
    assert (removed.status_code, removed.json["contact"]["doNotContact"]) == (200, [])
    assert api.delete(f"/api/contacts/{contact['id']}/delete").status_code == 200


def _field_payload(alias):
    return {
        "isPublished": True,
        "label": "New Field",
        "alias": alias,
        "type": "text",
        "group": "core",
        "object": "lead",
        "defaultValue": "foobar",
        "isRequired": True,
        "isPubliclyUpdatable": True,
        "isUniqueIdentifier": True,
        "isVisible": False,
        "isListable": False,
        "properties": [],
    }


def test_field_api_endpoints_with_background_processing_disabled(api):
    """`FieldApiControllerFunctionalTest::testFieldApiEndpointsWithBackgroundProcessingDisabled`: a
    PATCH keeps the field's alias, object and type whatever it sends; the delete answers the field."""
    payload = _field_payload("fieldabc")
    created = posted(api, "POST", "/api/fields/contact/new", payload)
    assert created.status_code == 201, created.json
    field_id = created.json["field"]["id"]
    for key, value in payload.items():
        assert created.json["field"][key] == (value or created.json["field"][key])
    edit = dict(
        _field_payload("should_not_change"),
        id=field_id,
        label="Foo Bar",
        object="company",
        isRequired=False,
        isPubliclyUpdatable=False,
        isUniqueIdentifier=False,
        isVisible=True,
        isListable=True,
    )
    del edit["isPublished"]
    patched = posted(api, "PATCH", f"/api/fields/contact/{field_id}/edit", edit)
    assert patched.status_code == 200, patched.json
    expected = dict(edit, alias="fieldabc", object="lead", type="text", properties=patched.json["field"]["properties"])
    assert {key: patched.json["field"][key] for key in edit} == expected
    deleted = api.delete(f"/api/fields/contact/{field_id}/delete")
    assert deleted.status_code == 200
    assert (deleted.json["field"]["id"], deleted.json["field"]["alias"], deleted.json["field"]["object"]) == (
        None,
        "fieldabc",
        "lead",
    )


def test_creating_new_boolean_field_api_endpoint(api):
    """`FieldApiControllerFunctionalTest::testCreatingNewBooleanFieldApiEndpoint` (Mautic after 5.1):
    a boolean field needs its positive and negative labels; nothing is created without them."""
    base = {"label": "Request a meeting", "alias": "meeting", "type": "boolean", "isPubliclyUpdatable": True}
    cases = [
        ({}, "A 'positive' label is required."),
        ({"yes": "Yes"}, "A 'negative' label is required."),
        ({"no": "No"}, "A 'positive' label is required."),
    ]
    for properties, message in cases:
        answer = posted(
            api, "POST", "/api/fields/contact/new", dict(base, properties=properties) if properties else base
        )
        assert answer.status_code == 400
        assert (answer.json["errors"][0]["code"], answer.json["errors"][0]["message"]) == (400, message)
    assert api.get("/api/fields/contact?search=meeting").json["total"] in (0, "0")
    good = posted(api, "POST", "/api/fields/contact/new", dict(base, properties={"yes": "Yes", "no": "No"}))
    assert good.status_code == 201
    assert good.json["field"]["properties"] == {"yes": "Yes", "no": "No"}
