"""Contacts and companies: grouped custom field values, dedupe, blanks, field types, default fields."""

import pytest

from tests.api.payloads import assert_error, make

GROUPS = ("core", "social", "personal", "professional")

CONTACT_DEFAULTS = [
    ("title", "lookup", "core"),
    ("firstname", "text", "core"),
    ("lastname", "text", "core"),
    ("company", "text", "core"),
    ("position", "text", "core"),
    ("email", "email", "core"),
    ("mobile", "tel", "core"),
    ("phone", "tel", "core"),
    ("points", "number", "core"),
    ("fax", "tel", "core"),
    ("address1", "text", "core"),
    ("address2", "text", "core"),
    ("city", "text", "core"),
    ("state", "region", "core"),
    ("zipcode", "text", "core"),
    ("country", "country", "core"),
    ("preferred_locale", "locale", "core"),
    ("timezone", "timezone", "core"),
    ("last_active", "datetime", "core"),
    ("attribution_date", "datetime", "core"),
    ("attribution", "number", "core"),
    ("website", "url", "core"),
    ("facebook", "text", "social"),
    ("foursquare", "text", "social"),
    ("instagram", "text", "social"),
    ("linkedin", "text", "social"),
    ("skype", "text", "social"),
    ("twitter", "text", "social"),
]
COMPANY_DEFAULTS = [
    ("companyaddress1", "text", "core"),
    ("companyaddress2", "text", "core"),
    ("companyemail", "email", "core"),
    ("companyphone", "tel", "core"),
    ("companycity", "text", "core"),
    ("companystate", "region", "core"),
    ("companyzipcode", "text", "core"),
    ("companycountry", "country", "core"),
    ("companyname", "text", "core"),
    ("companywebsite", "url", "core"),
    ("companynumber_of_employees", "number", "professional"),
    ("companyfax", "tel", "professional"),
    ("companyannual_revenue", "number", "professional"),
    ("companyindustry", "select", "professional"),
    ("companydescription", "text", "professional"),
]
NOT_FIXED = {"fax", "website", "facebook", "foursquare", "instagram", "linkedin", "skype", "twitter"}


def contact(api, **body):
    r = api.post("/api/contacts/new", body)
    assert r.status_code == 201, r.json
    return r.json["contact"]


def values(entity):
    return entity["fields"]["all"]


def fields_by_alias(api, obj):
    r = api.get(f"/api/fields/{obj}?limit=0")
    assert r.status_code == 200
    return {f["alias"]: f for f in r.json["fields"].values()}


# --- the grouped `fields` view ---------------------------------------------------------------------


def test_contact_fields_grouped(api):
    c = contact(api, email="ann@example.com", firstname="Ann", twitter="@ann")
    fields = c["fields"]
    assert list(fields) == [*GROUPS, "all"]
    assert fields["personal"] == [] and fields["professional"] == []
    assert fields["core"]["firstname"]["value"] == "Ann"
    assert fields["core"]["email"]["value"] == "ann@example.com"
    assert fields["social"]["twitter"]["value"] == "@ann"
    assert set(fields["social"]) == {"facebook", "foursquare", "instagram", "linkedin", "skype", "twitter"}
    assert set(fields["core"]) == {a for a, _, g in CONTACT_DEFAULTS if g == "core"}
    entry = fields["core"]["email"]
    assert {"id", "label", "alias", "type", "group", "value"} <= set(entry)
    assert (entry["label"], entry["alias"], entry["type"], entry["group"]) == ("Email", "email", "email", "core")
    assert entry["normalizedValue"] == "ann@example.com"


def test_contact_fields_all_is_flat_alias_map(api):
    c = contact(api, email="ann@example.com", firstname="Ann")
    every = values(c)
    assert every["id"] == c["id"]
    assert set(every) == {"id"} | {a for a, _, _ in CONTACT_DEFAULTS}
    assert every["firstname"] == "Ann" and every["lastname"] is None
    assert every["points"] == 0 and type(every["points"]) is int
    assert c["points"] == 0


def test_contact_top_level_properties(api):
    c = contact(api, email="ann@example.com")
    assert c["owner"] is None and c["color"] is None
    assert c["ipAddresses"] == [] and c["tags"] == [] and c["utmtags"] == [] and c["doNotContact"] == []
    assert c["lastActive"] is None
    assert c["dateIdentified"] is not None  # an email identifies the contact


def test_anonymous_contact_not_identified(api):
    c = contact(api, city="Prague")
    assert c["dateIdentified"] is None


def test_contact_owner(api):
    c = contact(api, email="ann@example.com", owner=1)
    assert c["owner"]["id"] == 1
    assert c["owner"]["firstName"] == "Admin" and c["owner"]["lastName"] == "User"
    r = api.patch(f"/api/contacts/{c['id']}/edit", {"owner": None})
    assert r.json["contact"]["owner"] is None


def test_contact_last_active(api):
    c = contact(api, email="ann@example.com", lastActive="2024-05-06 07:08:09")
    assert c["lastActive"] == "2024-05-06T07:08:09+00:00"


def test_company_fields_grouped(api):
    r = api.post(
        "/api/companies/new", {"companyname": "Acme", "companyindustry": "Banking", "companynumber_of_employees": "12"}
    )
    assert r.status_code == 201, r.json
    fields = r.json["company"]["fields"]
    assert list(fields) == [*GROUPS, "all"]
    assert fields["social"] == [] and fields["personal"] == []
    assert fields["core"]["companyname"]["value"] == "Acme"
    assert fields["professional"]["companyindustry"]["value"] == "Banking"
    assert fields["all"]["companynumber_of_employees"] == 12
    assert fields["all"]["id"] == r.json["company"]["id"]


# --- dedupe on email -------------------------------------------------------------------------------


def test_create_with_existing_email_updates_and_returns_200(api):
    first = contact(api, email="ann@example.com", firstname="Ann", city="Prague")
    r = api.post("/api/contacts/new", {"email": "ann@example.com", "lastname": "Smith"})
    assert r.status_code == 200, r.json
    again = r.json["contact"]
    assert again["id"] == first["id"]
    assert values(again)["lastname"] == "Smith"
    assert values(again)["firstname"] == "Ann" and values(again)["city"] == "Prague"  # kept
    assert int(api.get("/api/contacts").json["total"]) == 1


def test_email_dedupe_ignores_case(api):
    first = contact(api, email="ann@example.com")
    r = api.post("/api/contacts/new", {"email": "ANN@Example.com"})
    assert r.status_code == 200 and r.json["contact"]["id"] == first["id"]
    assert int(api.get("/api/contacts").json["total"]) == 1


def test_contacts_without_email_are_not_merged(api):
    a = contact(api, firstname="Ann")
    b = contact(api, firstname="Ann")
    assert a["id"] != b["id"]
    assert int(api.get("/api/contacts").json["total"]) == 2


def test_email_freed_by_edit_can_be_reused(api):
    ann = contact(api, email="ann@example.com")
    api.patch(f"/api/contacts/{ann['id']}/edit", {"email": "ann2@example.com"})
    assert contact(api, email="ann@example.com")["id"] != ann["id"]


def test_email_freed_by_delete_can_be_reused(api):
    ann = contact(api, email="ann@example.com")
    api.delete(f"/api/contacts/{ann['id']}/delete")
    assert contact(api, email="ann@example.com")["id"] != ann["id"]


# --- blanks ----------------------------------------------------------------------------------------


def test_patch_blank_skipped_without_overwrite_with_blank(api):
    c = contact(api, email="ann@example.com", firstname="Ann")
    r = api.patch(f"/api/contacts/{c['id']}/edit", {"firstname": "", "lastname": "Smith"})
    assert r.status_code == 200
    assert values(r.json["contact"])["firstname"] == "Ann"
    assert values(r.json["contact"])["lastname"] == "Smith"


@pytest.mark.parametrize("flag", [True, 1, "1", "true"])
def test_patch_overwrite_with_blank(api, flag):
    c = contact(api, email="ann@example.com", firstname="Ann", city="Prague")
    r = api.patch(f"/api/contacts/{c['id']}/edit", {"firstname": "", "overwriteWithBlank": flag})
    assert r.status_code == 200, r.json
    assert values(r.json["contact"])["firstname"] in (None, "")
    assert values(r.json["contact"])["city"] == "Prague"  # unsent fields untouched
    assert values(api.get(f"/api/contacts/{c['id']}").json["contact"])["firstname"] in (None, "")


def test_overwrite_with_blank_false(api):
    c = contact(api, email="ann@example.com", firstname="Ann")
    r = api.patch(f"/api/contacts/{c['id']}/edit", {"firstname": "", "overwriteWithBlank": False})
    assert values(r.json["contact"])["firstname"] == "Ann"


def test_overwrite_with_blank_bad_value_is_400(api):
    c = contact(api, email="ann@example.com", firstname="Ann")
    assert_error(
        api.patch(f"/api/contacts/{c['id']}/edit", {"firstname": "", "overwriteWithBlank": "maybe"}),
        400,
        field="overwriteWithBlank",
    )


def test_zero_does_not_overwrite_on_patch(api):
    """Compat 8.5: on POST and PATCH, empty values and numeric 0 do not overwrite existing values."""
    make(api, "fields/contact", {"label": "Shoe size", "type": "number"})
    c = contact(api, email="ann@example.com", shoe_size=42)
    r = api.patch(f"/api/contacts/{c['id']}/edit", {"shoe_size": 0, "overwriteWithBlank": True})
    assert values(r.json["contact"])["shoe_size"] == 0  # ... unless overwriteWithBlank


def test_zero_is_skipped_on_patch(api):
    make(api, "fields/contact", {"label": "Shoe size", "type": "number"})
    c = contact(api, email="ann@example.com", shoe_size=42, points=5)
    r = api.patch(f"/api/contacts/{c['id']}/edit", {"shoe_size": 0, "points": 0})
    assert values(r.json["contact"])["shoe_size"] == 42
    assert r.json["contact"]["points"] == 5


def test_zero_is_skipped_on_duplicate_create(api):
    make(api, "fields/contact", {"label": "Shoe size", "type": "number"})
    contact(api, email="ann@example.com", shoe_size=42)
    r = api.post("/api/contacts/new", {"email": "ann@example.com", "shoe_size": 0})
    assert r.status_code == 200
    assert values(r.json["contact"])["shoe_size"] == 42


def test_missing_fields_get_default_value(api):
    make(api, "fields/contact", {"label": "Colour", "defaultValue": "blue"})
    c = contact(api, email="ann@example.com")
    assert values(c)["colour"] == "blue"
    r = api.patch(f"/api/contacts/{c['id']}/edit", {"colour": "red"})
    assert values(r.json["contact"])["colour"] == "red"
    r = api.put(f"/api/contacts/{c['id']}/edit", {"email": "ann@example.com"})
    assert values(r.json["contact"])["colour"] == "blue"


def test_put_blank_overwrites(api):
    c = contact(api, email="ann@example.com", firstname="Ann", city="Prague")
    r = api.put(f"/api/contacts/{c['id']}/edit", {"email": "ann@example.com", "firstname": ""})
    assert r.status_code == 200
    assert values(r.json["contact"])["firstname"] in (None, "")
    assert values(r.json["contact"])["city"] is None


def test_company_overwrite_with_blank(api):
    company = make(api, "companies", {"companyname": "Acme", "companycity": "Prague"})
    r = api.patch(f"/api/companies/{company['id']}/edit", {"companycity": ""})
    assert values(r.json["company"])["companycity"] == "Prague"
    r = api.patch(f"/api/companies/{company['id']}/edit", {"companycity": "", "overwriteWithBlank": True})
    assert values(r.json["company"])["companycity"] in (None, "")


# --- field types -----------------------------------------------------------------------------------


def test_bad_email_is_400(api):
    error = assert_error(
        api.post("/api/contacts/new", {"email": "not-an-email", "firstname": "Ann"}), 400, field="email"
    )
    assert error["message"] == "email: A valid email is required."
    assert error["details"] == {"email": ["A valid email is required."]}
    assert int(api.get("/api/contacts").json["total"]) == 0


def test_bad_email_on_edit_changes_nothing(api):
    c = contact(api, email="ann@example.com", firstname="Ann")
    assert_error(api.patch(f"/api/contacts/{c['id']}/edit", {"email": "nope", "firstname": "Bob"}), 400, field="email")
    assert values(api.get(f"/api/contacts/{c['id']}").json["contact"])["firstname"] == "Ann"


def test_bad_company_email_is_400(api):
    assert_error(
        api.post("/api/companies/new", {"companyname": "Acme", "companyemail": "x"}), 400, field="companyemail"
    )


def test_number_fields(api):
    c = contact(api, email="ann@example.com", points="7", attribution="12.345")
    assert values(c)["points"] == 7 and c["points"] == 7
    assert values(c)["attribution"] == 12.35  # scale 2
    assert_error(api.post("/api/contacts/new", {"email": "b@example.com", "points": "many"}), 400, field="points")


def test_custom_number_field(api):
    field = make(api, "fields/contact", {"label": "Shoe size", "type": "number"})
    assert field["alias"] == "shoe_size"
    c = contact(api, email="ann@example.com", shoe_size="42")
    assert values(c)["shoe_size"] == 42
    assert_error(
        api.post("/api/contacts/new", {"email": "bob@example.com", "shoe_size": "big"}), 400, field="shoe_size"
    )
    assert int(api.get("/api/contacts").json["total"]) == 1


@pytest.mark.parametrize(
    "field_type, good, stored, bad",
    [
        ("url", "https://example.com", "https://example.com", "not a url"),
        ("date", "2024-02-03", "2024-02-03", "tomorrowish"),
        ("boolean", "yes", 1, "perhaps"),
    ],
)
def test_custom_field_types(api, field_type, good, stored, bad):
    labels = {"properties": {"yes": "Yes", "no": "No"}} if field_type == "boolean" else {}
    make(api, "fields/contact", {"label": "Custom", "type": field_type, **labels})
    assert values(contact(api, email="a@example.com", custom=good))["custom"] == stored
    assert_error(api.post("/api/contacts/new", {"email": "b@example.com", "custom": bad}), 400, field="custom")


def test_select_field_options(api):
    make(
        api,
        "fields/contact",
        {
            "label": "Size",
            "type": "select",
            "properties": {"list": [{"label": "Small", "value": "s"}, {"label": "Large", "value": "l"}]},
        },
    )
    c = contact(api, email="a@example.com", size="l")
    assert values(c)["size"] == "l"
    assert c["fields"]["core"]["size"]["normalizedValue"] == "Large"
    assert_error(api.post("/api/contacts/new", {"email": "b@example.com", "size": "xl"}), 400, field="size")


# --- custom fields become writable and visible at once ---------------------------------------------


def test_new_custom_field_is_writable_and_visible_at_once(api):
    r = api.post("/api/fields/contact/new", {"label": "Favourite colour", "group": "personal"})
    assert r.status_code == 201, r.json
    field = r.json["field"]
    assert field["alias"] == "favourite_colour"
    assert field["object"] == "lead" and field["type"] == "text" and field["group"] == "personal"
    c = contact(api, email="ann@example.com", favourite_colour="green")
    assert values(c)["favourite_colour"] == "green"
    assert c["fields"]["personal"]["favourite_colour"]["value"] == "green"
    assert c["fields"]["professional"] == []
    other = contact(api, email="bob@example.com")
    assert values(other)["favourite_colour"] is None
    assert "favourite_colour" in other["fields"]["personal"]


def test_new_custom_field_searchable(api):
    make(api, "fields/contact", {"label": "Team", "group": "professional"})
    ann = contact(api, email="ann@example.com", team="Red")
    contact(api, email="bob@example.com", team="Blue")
    r = api.get("/api/contacts?search=team:red")
    assert int(r.json["total"]) == 1 and list(r.json["contacts"]) == [str(ann["id"])]


def test_new_company_field(api):
    field = make(api, "fields/company", {"label": "Stock ticker", "alias": "ticker"})
    assert field["alias"] == "ticker" and field["object"] == "company"
    company = make(api, "companies", {"companyname": "Acme", "ticker": "ACME"})
    assert values(company)["ticker"] == "ACME"
    assert company["fields"]["core"]["ticker"]["value"] == "ACME"
    assert "ticker" not in values(contact(api, email="a@example.com"))


def test_deleted_custom_field_disappears(api):
    field = make(api, "fields/contact", {"label": "Temp"})
    contact(api, email="ann@example.com", temp="x")
    assert api.delete(f"/api/fields/contact/{field['id']}/delete").status_code == 200
    c = api.get("/api/contacts").json["contacts"]
    assert "temp" not in list(c.values())[0]["fields"]["all"]


def test_field_alias_unique_per_object(api):
    field = make(api, "fields/contact", {"label": "Email"})  # label collides with an existing alias
    assert field["alias"] != "email" and field["alias"].startswith("email")
    assert make(api, "fields/company", {"label": "Email"})["alias"] == "email"  # other object: free


def test_field_alias_cannot_change(api):
    """As Mautic's form: an edit ignores a new alias (and type) rather than refusing it."""
    field = make(api, "fields/contact", {"label": "Team"})
    ignored = api.patch(f"/api/fields/contact/{field['id']}/edit", {"alias": "squad", "type": "number"})
    assert (ignored.status_code, ignored.json["field"]["alias"], ignored.json["field"]["type"]) == (200, "team", "text")
    r = api.patch(f"/api/fields/contact/{field['id']}/edit", {"label": "Squad"})
    assert r.json["field"]["alias"] == "team" and r.json["field"]["label"] == "Squad"


# --- companies -------------------------------------------------------------------------------------


def test_companyname_required(api):
    assert_error(api.post("/api/companies/new", {"companycity": "Prague"}), 400, field="companyname")
    assert_error(api.post("/api/companies/new", {"companyname": ""}), 400, field="companyname")
    assert int(api.get("/api/companies").json["total"]) == 0


def test_companyname_required_on_put(api):
    company = make(api, "companies", {"companyname": "Acme"})
    assert_error(api.put(f"/api/companies/{company['id']}/edit", {"companycity": "Brno"}), 400, field="companyname")
    assert api.get(f"/api/companies/{company['id']}").json["company"] == company


def test_company_patch_without_companyname(api):
    company = make(api, "companies", {"companyname": "Acme"})
    r = api.patch(f"/api/companies/{company['id']}/edit", {"companycity": "Brno"})
    assert r.status_code == 200
    assert values(r.json["company"])["companyname"] == "Acme"
    assert values(r.json["company"])["companycity"] == "Brno"


def test_companies_search_and_order(api):
    b = make(api, "companies", {"companyname": "Beta"})["id"]
    a = make(api, "companies", {"companyname": "Alpha"})["id"]
    r = api.get("/api/companies?orderBy=companyname")
    assert [int(k) for k in r.json["companies"]] == [a, b]
    assert int(api.get("/api/companies?search=companyname:alp").json["total"]) == 1


# --- default fields from the first start -----------------------------------------------------------


def test_default_contact_fields(api):
    r = api.get("/api/fields/contact?limit=0")
    assert int(r.json["total"]) == len(CONTACT_DEFAULTS)
    fields = {f["alias"]: f for f in r.json["fields"].values()}
    assert [(a, f["type"], f["group"]) for a, f in fields.items()] == CONTACT_DEFAULTS  # in `order`
    assert [f["order"] for f in fields.values()] == list(range(1, len(CONTACT_DEFAULTS) + 1))
    assert fields["email"]["label"] == "Email" and fields["email"]["isUniqueIdentifier"] is True
    assert fields["firstname"]["label"] == "First Name"
    assert all(f["object"] == "lead" for f in fields.values())
    assert all(f["isPublished"] is True for f in fields.values())


def test_default_company_fields(api):
    r = api.get("/api/fields/company?limit=0")
    assert int(r.json["total"]) == len(COMPANY_DEFAULTS)
    fields = {f["alias"]: f for f in r.json["fields"].values()}
    assert [(a, f["type"], f["group"]) for a, f in fields.items()] == COMPANY_DEFAULTS
    assert fields["companyname"]["label"] == "Company Name"
    assert fields["companyname"]["isRequired"] is True
    assert all(f["object"] == "company" for f in fields.values())


def test_default_contact_fields_fit_the_default_page(api):
    r = api.get("/api/fields/contact")
    assert int(r.json["total"]) == 28 and len(r.json["fields"]) == 28


@pytest.mark.parametrize("alias", ["email", "firstname", "lastname", "points", "city", "last_active"])
def test_fixed_contact_field_cannot_be_deleted(api, alias):
    field = fields_by_alias(api, "contact")[alias]
    assert_error(api.delete(f"/api/fields/contact/{field['id']}/delete"), 400)
    assert api.get(f"/api/fields/contact/{field['id']}").status_code == 200
    assert alias in values(contact(api, email="a@example.com"))


def test_fixed_company_field_cannot_be_deleted(api):
    field = fields_by_alias(api, "company")["companyname"]
    assert_error(api.delete(f"/api/fields/company/{field['id']}/delete"), 400)
    assert api.get(f"/api/fields/company/{field['id']}").status_code == 200


@pytest.mark.parametrize("alias", sorted(NOT_FIXED))
def test_non_fixed_default_field_can_be_deleted(api, alias):
    field = fields_by_alias(api, "contact")[alias]
    assert api.delete(f"/api/fields/contact/{field['id']}/delete").status_code == 200
    assert alias not in fields_by_alias(api, "contact")


def test_fields_paths_are_separate(api):
    email = fields_by_alias(api, "contact")["email"]
    companyname = fields_by_alias(api, "company")["companyname"]
    r = api.get(f"/api/fields/company/{email['id']}")
    assert r.status_code == 404 or (r.json["field"]["object"] == "company" and r.json["field"]["alias"] != "email")
    r = api.get(f"/api/fields/contact/{companyname['id']}")
    assert r.status_code == 404 or (r.json["field"]["object"] == "lead" and r.json["field"]["alias"] != "companyname")
