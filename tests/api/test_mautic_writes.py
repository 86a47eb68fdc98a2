"""Issue 17 (first half): writes as Mautic 5 takes them: email syntax only, unknown categories,
segment filters echoed as sent, do-not-contact entries in a contact payload, typed field values."""

import pytest

from tests.api.payloads import assert_error


def _contact(api, **body):
    response = api.post("/api/contacts/new", body)
    assert response.status_code == 201, response.json
    return response.json["contact"]


@pytest.mark.parametrize(
    "address", ["ann@example.test", "x@localhost.localdomain", "bob@mail.example", "eve@host.invalid"]
)
def test_reserved_domain_names_are_valid_addresses(api, address):
    """Mautic checks email syntax only: special-use names (RFC 2606/6761) are addresses like any other."""
    contact = _contact(api, email=address)
    assert contact["fields"]["all"]["email"] == address
    assert int(api.get(f"/api/contacts?search=email:{address}").json["total"]) == 1


@pytest.mark.parametrize("address", ["ann@", "no-at-sign", "a@@example.com", "x@localhost"])
def test_addresses_that_break_the_syntax_are_refused(api, address):
    response = api.post("/api/contacts/new", {"email": address})
    assert_error(response, 400)
    assert "email" in response.json["errors"][0]["details"]
    assert int(api.get("/api/contacts").json["total"]) == 0


@pytest.mark.parametrize("address", ["a b@example.com", "ab@example.com,", "<ab@example.com>"])
def test_characters_an_address_cannot_hold_are_dropped(api, address):
    """As Mautic's `InputHelper::email` (PHP's FILTER_SANITIZE_EMAIL): spaces, commas and brackets go."""
    assert _contact(api, email=address)["fields"]["all"]["email"] == "ab@example.com"


@pytest.mark.parametrize(
    "prefix,payload,key",
    [
        ("emails", {"name": "Mail", "subject": "Hi"}, "email"),
        ("assets", {"title": "Guide", "storageLocation": "remote", "file": "https://example.com/g.pdf"}, "asset"),
        ("segments", {"name": "Seg"}, "list"),
    ],
)
def test_an_unknown_category_is_refused_with_mautics_message(api, prefix, payload, key):
    response = api.post(f"/api/{prefix}/new", dict(payload, category=999))
    assert_error(response, 400)
    error = response.json["errors"][0]
    assert error["message"] == "Category 999 does not exist"
    assert error["details"] == {"category": ["Category 999 does not exist"]}
    assert int(api.get(f"/api/{prefix}").json["total"]) == 0


def test_segment_filters_come_back_as_sent(api):
    """The filters exactly as sent (issue 34): no added keys, `properties` untouched."""
    sent = [
        {
            "glue": "and",
            "field": "city",
            "object": "lead",
            "type": "text",
            "operator": "=",
            "properties": {"filter": "Prague"},
        },
        {
            "glue": "or",
            "field": "country",
            "object": "lead",
            "type": "country",
            "operator": "=",
            "properties": {"filter": "Czech Republic", "display": "Czechia"},
        },
    ]
    created = api.post("/api/segments/new", {"name": "Prague", "filters": sent}).json["list"]
    shown = api.get(f"/api/segments/{created['id']}").json["list"]
    for segment in (created, shown):
        assert segment["filters"] == sent  # issue 34: exactly as sent, no added `filter`/`display`


def _dnc(contact):
    return sorted((e["channel"], e["reason"], e["comments"]) for e in contact["doNotContact"])


def test_do_not_contact_entries_in_a_create_are_applied(api):
    contact = _contact(
        api,
        email="ann@example.com",
        doNotContact=[{"channel": "email", "reason": 1, "comments": "Asked by phone"}, {"channel": "sms", "reason": 2}],
    )
    assert _dnc(contact) == [("email", 1, "Asked by phone"), ("sms", 2, None)]
    entries = api.get(f"/api/contacts/{contact['id']}").json["contact"]["doNotContact"]
    assert all(isinstance(e["id"], int) and e["dateAdded"] for e in entries)
    assert len({e["id"] for e in entries}) == 2
    events = api.get(f"/api/contacts/{contact['id']}/activity").json["events"]
    assert sum(e["event"] == "lead.donotcontact" for e in events) == 2


def test_do_not_contact_defaults_to_manual_email_and_reason_0_removes(api):
    contact = _contact(api, email="ann@example.com", doNotContact=[{}])
    assert _dnc(contact) == [("email", 3, None)]
    edited = api.patch(
        f"/api/contacts/{contact['id']}/edit",
        {"doNotContact": [{"channel": "email", "reason": 0}, {"channel": "sms", "reason": 3, "comments": "no texts"}]},
    ).json["contact"]
    assert _dnc(edited) == [("sms", 3, "no texts")]
    again = api.post(
        "/api/contacts/new", {"email": "ann@example.com", "doNotContact": [{"channel": "sms", "reason": 0}]}
    )
    assert again.status_code == 200 and again.json["contact"]["id"] == contact["id"]
    assert again.json["contact"]["doNotContact"] == []


def test_a_bad_do_not_contact_entry_writes_nothing(api):
    contact = _contact(api, email="ann@example.com", firstname="Ann")
    for bad in ([{"channel": "email", "reason": 7}], ["email"], [{"reason": "often"}]):
        response = api.patch(f"/api/contacts/{contact['id']}/edit", {"firstname": "Anna", "doNotContact": bad})
        assert_error(response, 400, field="doNotContact")
    response = api.post("/api/contacts/new", {"email": "bob@example.com", "doNotContact": [{"reason": 9}]})
    assert_error(response, 400, field="doNotContact")
    shown = api.get(f"/api/contacts/{contact['id']}").json["contact"]
    assert shown["fields"]["all"]["firstname"] == "Ann" and shown["doNotContact"] == []
    assert int(api.get("/api/contacts").json["total"]) == 1


def test_batch_creates_apply_do_not_contact_per_item(api):
    response = api.post(
        "/api/contacts/batch/new",
        [
            {"email": "a@example.com", "doNotContact": [{"channel": "email", "reason": 1}]},
            {"email": "b@example.com"},
            {"email": "c@example.com", "doNotContact": [{"reason": 5}]},
        ],
    )
    assert response.status_code == 201
    first, second = response.json["contacts"][:2]
    assert _dnc(first) == [("email", 1, None)] and second["doNotContact"] == []
    assert "doNotContact" in str(response.json["errors"])
    assert int(api.get("/api/contacts").json["total"]) == 2
    edited = api.patch(
        "/api/contacts/batch/edit",
        [
            {"id": first["id"], "doNotContact": [{"channel": "email", "reason": 0}]},
            {"id": second["id"], "doNotContact": [{"channel": "email", "reason": 3, "comments": "by hand"}]},
        ],
    )
    assert edited.status_code == 200
    assert [_dnc(c) for c in edited.json["contacts"]] == [[], [("email", 3, "by hand")]]


@pytest.mark.parametrize(
    "field,good,bad",
    [
        ("country", "Czech Republic", "not existing country"),
        ("state", "Jihomoravsk\u00fd kraj", "Middle Earth"),
        ("preferred_locale", "cs_CZ", "Czech"),
        ("timezone", "Europe/Prague", "Prague"),
    ],
)
def test_typed_contact_fields_take_mautics_choices_only(api, field, good, bad):
    contact = _contact(api, email="ann@example.com", **{field: good})
    assert contact["fields"]["all"][field] == good
    response = api.patch(f"/api/contacts/{contact['id']}/edit", {field: bad, "firstname": "Anna"})
    assert_error(response, 400, field=field)
    shown = api.get(f"/api/contacts/{contact['id']}").json["contact"]["fields"]["all"]
    assert shown[field] == good and shown["firstname"] is None
    assert_error(api.post("/api/contacts/new", {"email": "bob@example.com", field: bad}), 400, field=field)
    assert int(api.get("/api/contacts").json["total"]) == 1


def test_company_country_and_region_and_select_boolean_fields(api):
    company = api.post(
        "/api/companies/new",
        {"companyname": "Acme", "companycountry": "United Kingdom", "companystate": "Greater London"},
    )
    assert company.status_code == 201
    company_id = company.json["company"]["id"]
    for bad in ({"companycountry": "UK"}, {"companystate": "London Town"}, {"companyindustry": "Piracy"}):
        response = api.patch(f"/api/companies/{company_id}/edit", bad)
        assert_error(response, 400, field=next(iter(bad)))
    assert api.patch(f"/api/companies/{company_id}/edit", {"companyindustry": "Banking"}).status_code == 200
    assert (
        api.post(
            "/api/fields/contact/new",
            {"label": "Subscribed", "alias": "subscribed", "type": "boolean", "properties": {"yes": "Y", "no": "N"}},
        ).status_code
        == 201
    )
    assert_error(
        api.post("/api/contacts/new", {"email": "ann@example.com", "subscribed": "perhaps"}), 400, field="subscribed"
    )


def test_a_lookup_field_is_text_as_in_mautic(api):
    """Mautic's lookup type only suggests its list (LookupType is a text input): any text is kept."""
    contact = _contact(api, email="ann@example.com", title="Dr")
    assert contact["fields"]["all"]["title"] == "Dr"
