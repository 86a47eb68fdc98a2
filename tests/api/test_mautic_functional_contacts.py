"""More of Mautic 5.1's `LeadApiControllerFunctionalTest`, read as HTTP requests with the same assertions
(the lead's first ports are in test_mautic_functional.py)."""

from tests.api.test_mautic_functional import posted


def test_activity_api(api):
    """`LeadApiControllerFunctionalTest::testActivityApi`: every contact's activity has Mautic's keys."""
    answer = api.get("/api/contacts/activity")
    assert answer.status_code == 200, answer.json
    assert {"events", "filters", "order", "types", "total", "page", "limit", "maxPages"} <= set(answer.json)


def test_batch_edit_endpoint(api):
    """`LeadApiControllerFunctionalTest::testBatchEditEndpoint`: a PUT batch edits by id."""
    contact = api.post("/api/contacts/new", {"email": "batcheditcontact1@gmail.com"}).json["contact"]["id"]
    payload = [{"email": "batcheditcontact1-updated@gmail.com", "id": contact}]
    answer = posted(api, "PUT", "/api/contacts/batch/edit", payload)
    assert answer.status_code == 200, answer.json
    assert answer.json["statusCodes"][0] == 200
    assert answer.json["contacts"][0]["id"] == contact
    assert answer.json["contacts"][0]["fields"]["all"]["email"] == "batcheditcontact1-updated@gmail.com"


def test_batch_edit_endpoint_with_rubbish_id(api):
    """`LeadApiControllerFunctionalTest::testBatchEditEndpointWithRubbishId`: a PUT with an id that is no
    id creates the contact (201)."""
    answer = posted(api, "PUT", "/api/contacts/batch/edit", [{"email": "batchemail1@email.com", "id": "rubbish"}])
    assert answer.status_code == 200, answer.json
    assert answer.json["statusCodes"][0] == 201
    assert answer.json["contacts"][0]["id"] >= 1
    assert answer.json["contacts"][0]["fields"]["all"]["email"] == "batchemail1@email.com"


def test_single_new_endpoint_create_and_delete_with_dnc(api):
    """`LeadApiControllerFunctionalTest::testSingleNewEndpointCreateAndDeleteWithDnc`."""
    payload = {
        "email": "apidnc@email.com",
        "firstname": "API",
        "lastname": "DNC test",
        "points": 4,
        "tags": ["apitest", "testapi"],
        "city": "Houston",
        "state": "Texas",
        "country": "United States",
        "preferred_locale": "es_SV",
        "timezone": "America/Chicago",
        "owner": 1,
        "doNotContact": [{"channel": "email", "reason": 2}],
    }
    created = posted(api, "POST", "/api/contacts/new", payload)
    assert created.status_code == 201, created.json
    dnc = created.json["contact"]["doNotContact"]
    assert [(entry["channel"], entry["reason"]) for entry in dnc] == [("email", 2)]
    assert api.delete(f"/api/contacts/{created.json['contact']['id']}/delete").status_code == 200


def test_batch_dnc_add_and_remove(api):
    """`LeadApiControllerFunctionalTest::testBatchDncAddAndRemove`: reason 3 adds, reason 0 removes."""
    contact = posted(api, "POST", "/api/contacts/new", {"id": 80, "email": "dnc@mautic.com"}).json["contact"]["id"]
    entry = {"reason": 3, "comments": "manually", "channel": "email", "channelId": None}
    added = posted(
        api, "PUT", "/api/contacts/batch/edit", [{"id": contact, "email": "dnc@mautic.com", "doNotContact": [entry]}]
    )
    assert added.json["contacts"][0]["doNotContact"][0]["reason"] == 3, added.json
    removed = posted(
        api,
        "PUT",
        "/api/contacts/batch/edit",
        [{"id": contact, "email": "dnc@mautic.com", "doNotContact": [dict(entry, reason=0)]}],
    )
    assert removed.json["contacts"][0]["doNotContact"] == [], removed.json
    assert api.delete(f"/api/contacts/{contact}/delete").status_code == 200


def _all(answer):
    return answer.json["contact"]["fields"]["all"]


def test_single_new_endpoint_create_and_update(api):
    """`LeadApiControllerFunctionalTest::testSingleNewEndpointCreateAndUpdate`: a create matching the email
    updates; blank values are ignored unless `overwriteWithBlank`; the owner stays unless given; a PATCH
    sets points."""
    second_owner = api.post(
        "/api/users/new",
        {
            "username": "sales",
            "firstName": "Sales",
            "lastName": "Person",
            "email": "sales@example.com",
            "role": 1,
            "plainPassword": {"password": "Qwertee@123", "confirm": "Qwertee@123"},
        },
    ).json["user"]["id"]
    payload = {
        "email": "apiemail1@email.com",
        "firstname": "API",
        "lastname": "Update",
        "points": 4,
        "tags": ["apitest", "testapi"],
        "city": "Houston",
        "state": "Texas",
        "country": "United States",
        "preferred_locale": "es_SV",
        "timezone": "America/Chicago",
        "owner": 1,
    }
    created = posted(api, "POST", "/api/contacts/new", payload)
    assert created.status_code == 201, created.json
    contact = created.json["contact"]["id"]
    fields = _all(created)
    for key in ("email", "firstname", "lastname", "city", "state", "country", "preferred_locale", "timezone"):
        assert fields[key] == payload[key], key
    assert (created.json["contact"]["points"], len(created.json["contact"]["tags"])) == (4, 2)
    assert created.json["contact"]["owner"]["id"] == 1
    blank = posted(api, "POST", "/api/contacts/new", dict(payload, lastname=""))
    assert blank.json["contact"]["id"] == contact and _all(blank)["lastname"] == "Update"
    assert (blank.json["contact"]["points"], len(blank.json["contact"]["tags"])) == (4, 2)
    overwrite = posted(api, "POST", "/api/contacts/new", dict(payload, lastname="", overwriteWithBlank=True))
    assert overwrite.json["contact"]["id"] == contact and not _all(overwrite)["lastname"]
    assert (overwrite.json["contact"]["points"], _all(overwrite)["points"]) == (4, 4)
    updated = {"email": "apiemail1@email.com", "lastname": "Update", "city": "Boston", "state": "Massachusetts"}
    merged = posted(api, "POST", "/api/contacts/new", dict(updated, owner=second_owner))
    assert merged.json["contact"]["id"] == contact
    assert (_all(merged)["firstname"], _all(merged)["city"], _all(merged)["country"]) == (
        "API",
        "Boston",
        "United States",
    )
    assert (merged.json["contact"]["points"], merged.json["contact"]["owner"]["id"]) == (4, second_owner)
    kept = posted(api, "POST", "/api/contacts/new", updated)
    assert (kept.json["contact"]["owner"]["id"], kept.json["contact"]["stage"]) == (second_owner, None)
    listed = api.get("/api/contacts").json["contacts"][str(contact)]
    assert (listed["points"], listed["fields"]["all"]["points"], len(listed["tags"])) == (4, 4, 2)
    patched = posted(api, "PATCH", f"/api/contacts/{contact}/edit", dict(updated, owner=second_owner, points=1))
    assert (patched.json["contact"]["points"], _all(patched)["points"]) == (1, 1)
    assert (_all(patched)["city"], patched.json["contact"]["owner"]["id"]) == ("Boston", second_owner)


def test_put_edit_with_inexisting_id_so_it_should_create(api):
    """`DeviceApiControllerFunctionalTest::testPutEditWithInexistingIdSoItShouldCreate`: 201."""
    contact = api.post("/api/contacts/new", {"email": "device@example.com"}).json["contact"]["id"]
    payload = {
        "device": "desktop",
        "deviceOsName": "Ubuntu",
        "deviceOsShortName": "UBT",
        "deviceOsPlatform": "x64",
        "lead": contact,
    }
    answer = posted(api, "PUT", "/api/devices/99999/edit", payload)
    assert answer.status_code == 201, answer.json
    assert answer.json["device"]["deviceOsName"] == "Ubuntu"


def test_batch_new_endpoint_create_and_update(api):
    """`LeadApiControllerFunctionalTest::testBatchNewEndpointCreateAndUpdate`, its blank-value rules: a
    batch create matching the email ignores a blank lastname unless `overwriteWithBlank`; a batch PATCH
    ignores a blank firstname the same way and blanks the lastname with it."""
    payload = [
        {
            "email": "apiemail1@email.com",
            "firstname": "API",
            "lastname": "Update",
            "points": 4,
            "tags": ["apitest", "testapi"],
            "city": "Houston",
            "owner": 1,
        },
        {"email": "apiemail2@email.com", "firstname": "API2", "lastname": "Update2", "points": 3},
    ]
    created = posted(api, "POST", "/api/contacts/batch/new", payload)
    assert created.status_code == 201, created.json
    first = created.json["contacts"][0]
    contact = first["id"]
    assert (first["points"], first["fields"]["all"]["points"], len(first["tags"])) == (4, 4, 2)
    payload[0]["lastname"] = ""
    kept = posted(api, "POST", "/api/contacts/batch/new", payload).json["contacts"][0]
    assert (kept["id"], kept["fields"]["all"]["lastname"]) == (contact, "Update")
    payload[0]["overwriteWithBlank"] = True
    blanked = posted(api, "POST", "/api/contacts/batch/new", payload).json["contacts"][0]
    assert blanked["id"] == contact and not blanked["fields"]["all"]["lastname"]
    assert (blanked["points"], len(blanked["tags"])) == (4, 2)
    edit = [{"id": contact, "email": "apiemail1@email.com", "city": "Boston", "firstname": "", "owner": 1, "points": 1}]
    patched = posted(api, "PATCH", "/api/contacts/batch/edit", edit).json["contacts"][0]
    assert (patched["fields"]["all"]["firstname"], patched["points"], patched["fields"]["all"]["city"]) == (
        "API",
        1,
        "Boston",
    )
    cleared = posted(
        api, "PATCH", "/api/contacts/batch/edit", [{"id": contact, "lastname": "", "overwriteWithBlank": True}]
    ).json["contacts"][0]
    assert cleared["fields"]["all"]["firstname"] == "API" and not cleared["fields"]["all"]["lastname"]
