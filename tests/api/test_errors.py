"""Errors and request handling (compat 2): error bodies, statuses, body encodings, auth, categories."""

import base64
import json

import pytest

from tests.api.payloads import BY_PREFIX, CATEGORY_AS_TITLE, CATEGORY_PREFIXES, assert_error, create, make

JSON = {"Content-Type": "application/json"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


# --- body parsing ----------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [b"{", b"{'name': 'x'}", b'{"name": "x",}', b"not json"])
def test_invalid_json_is_400(api, raw):
    error = assert_error(api.post("/api/emails/new", raw=raw, headers=JSON), 400)
    assert error["type"] is None
    assert int(api.get("/api/emails").json["total"]) == 0


def test_error_body_shape(api):
    r = api.post("/api/emails/new", raw=b"{", headers=JSON)
    assert list(r.json) == ["errors"]
    assert set(r.json["errors"][0]) == {"code", "message", "details", "type"}


@pytest.mark.parametrize("raw", [b'"a string"', b"42", b"[1, 2]", b'[{"name": "x"}]', b"null"])
def test_body_that_is_not_an_object(api, raw):
    r = api.post("/api/emails/new", raw=raw, headers=JSON)
    assert r.status_code == 400, r.json
    assert_error(r, 400)
    assert int(api.get("/api/emails").json["total"]) == 0


def test_json_array_body_is_an_empty_object(api):
    tag = make(api, "tags", {"tag": "vip"})
    r = api.patch(f"/api/tags/{tag['id']}/edit", raw=b"[]", headers=JSON)
    assert r.status_code == 200, r.json
    assert r.json["tag"] == tag
    # an empty create is a validation error about the missing field, not about the body
    assert_error(api.post("/api/tags/new", raw=b"[]", headers=JSON), 400, field="tag")


def test_empty_body_is_an_empty_object(api):
    tag = make(api, "tags", {"tag": "vip"})
    r = api.patch(f"/api/tags/{tag['id']}/edit", raw=b"", headers=JSON)
    assert r.status_code == 200 and r.json["tag"] == tag


@pytest.mark.parametrize("content_type", ["text/plain", "application/xml", "text/html"])
def test_unsupported_content_type_is_415(api, content_type):
    r = api.post("/api/emails/new", raw=b'{"name": "x"}', headers={"Content-Type": content_type})
    assert_error(r, 415)
    assert r.headers["Mautic-Version"]
    assert int(api.get("/api/emails").json["total"]) == 0


def test_json_with_charset(api):
    r = api.post(
        "/api/emails/new",
        raw=json.dumps({"name": "Zoë"}).encode(),
        headers={"Content-Type": "application/json; charset=utf-8"},
    )
    assert r.status_code == 201, r.json
    assert r.json["email"]["name"] == "Zoë"


def test_json_without_content_type(api):
    r = api.post("/api/emails/new", raw=b'{"name": "x"}')
    assert r.status_code == 201, r.json


def test_form_encoded_body(api):
    r = api.post("/api/emails/new", raw=b"name=Hello+there&subject=Hi%21&isPublished=0", headers=FORM)
    assert r.status_code == 201, r.json
    email = r.json["email"]
    assert email["name"] == "Hello there" and email["subject"] == "Hi!" and email["isPublished"] is False


def test_form_encoded_php_brackets(api):
    raw = (
        b"name=Signup&fields[0][label]=x&fields[0][type]=text&fields[1][label]=Email&fields[1][type]=email"
        b"&fields[1][isRequired]=1&actions[0][name]=Mail&actions[0][type]=form.email"
        b"&actions[0][properties][to]=sales%40example.com"
    )
    r = api.post("/api/forms/new", raw=raw, headers=FORM)
    assert r.status_code == 201, r.json
    form = r.json["form"]
    assert [(f["label"], f["type"], f["isRequired"]) for f in form["fields"]] == [
        ("x", "text", False),
        ("Email", "email", True),
    ]
    assert [a["type"] for a in form["actions"]] == ["form.email"]


def test_form_encoded_brackets_url_encoded(api):
    raw = b"name=S&fields%5B0%5D%5Blabel%5D=x&fields%5B0%5D%5Btype%5D=text"
    r = api.post("/api/forms/new", raw=raw, headers=FORM)
    assert r.status_code == 201, r.json
    assert r.json["form"]["fields"][0]["label"] == "x"


def test_form_encoded_list_brackets(api):
    segment = make(api, "segments", {"name": "S"})
    r = api.post("/api/emails/new", raw=f"name=E&emailType=list&lists[]={segment['id']}".encode(), headers=FORM)
    assert r.status_code == 201, r.json
    assert [s["id"] for s in r.json["email"]["lists"]] == [segment["id"]]


def test_form_encoded_contact(api):
    r = api.post("/api/contacts/new", raw=b"email=ann%40example.com&firstname=Ann", headers=FORM)
    assert r.status_code == 201, r.json
    assert r.json["contact"]["fields"]["all"]["email"] == "ann@example.com"


def test_form_encoded_edit(api):
    email = make(api, "emails", {"name": "E", "subject": "S"})
    r = api.patch(f"/api/emails/{email['id']}/edit", raw=b"subject=New", headers=FORM)
    assert r.status_code == 200 and r.json["email"]["subject"] == "New" and r.json["email"]["name"] == "E"


# --- validation ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prefix, body, field",
    [
        ("emails", {"name": "x", "isPublished": "maybe"}, "isPublished"),
        ("emails", {"name": "x", "isPublished": None}, "isPublished"),
        ("emails", {"name": "x", "publishUp": "not a date"}, "publishUp"),
        ("emails", {"name": "x", "emailType": "spam"}, "emailType"),
        ("emails", {"name": "x", "lists": "nope"}, "lists"),
        ("emails", {"name": "x", "category": "abc"}, "category"),
        ("emails", {"name": {"nested": 1}}, "name"),
        ("fields/contact", {"label": "x", "order": "x"}, "order"),
        ("fields/contact", {"label": "x", "type": "hologram"}, "type"),
        ("fields/contact", {"label": "x", "group": "secret"}, "group"),
        ("points", {"name": "x", "type": "email.open", "delta": "lots"}, "delta"),
        ("points/triggers", {"name": "x", "points": 1.5}, "points"),
        ("segments", {"name": "x", "isGlobal": "sometimes"}, "isGlobal"),
        ("segments", {"name": "x", "filters": [{"glue": "and"}]}, "filters[0][field]"),
        ("pages", {"title": "x", "redirectType": "permanent"}, "redirectType"),
        ("assets", {"title": "x", "storageLocation": "cloud", "file": "a.pdf"}, "storageLocation"),
        ("assets", {"title": "x", "storageLocation": "remote", "file": "a.pdf"}, "remotePath"),  # Mautic's field
        ("addresses", {"is_default": "perhaps"}, "is_default"),
        ("contacts", {"owner": 987654}, "owner"),
    ],
)
def test_wrong_types_are_400(api, prefix, body, field):
    res = BY_PREFIX[prefix]
    before = int(api.get(res.base).json["total"])
    assert_error(api.post(f"{res.base}/new", body), 400, field=field)
    assert int(api.get(res.base).json["total"]) == before  # nothing written


@pytest.mark.parametrize(
    "prefix, field",
    [
        ("emails", "name"),
        ("hooks", "name"),
        ("automations", "name"),
        ("forms", "name"),
        ("segments", "name"),
        ("dynamiccontents", "name"),
        ("points/triggers", "name"),
        ("points", "name"),
        ("notifications", "name"),
        ("pages", "title"),
        ("smses", "name"),
        ("tweets", "name"),
        ("assets", "title"),
        ("tags", "tag"),
        ("categories", "title"),
        ("categories", "bundle"),
        ("fields/contact", "label"),
        ("fields/company", "label"),
        ("companies", "companyname"),
        ("assets", "file"),
        ("hooks", "webhookUrl"),
    ],
)
def test_missing_required_field_is_400(api, prefix, field):
    res = BY_PREFIX[prefix]
    body = {k: v for k, v in res.create.items() if k != field}
    error = assert_error(api.post(f"{res.base}/new", body), 400, field=field)
    assert error["type"] is None
    assert isinstance(error["details"], dict)
    assert error["message"].startswith(f"{field}: ")


def test_missing_required_message_exact(api):
    error = assert_error(api.post("/api/emails/new", {"subject": "x"}), 400)
    assert error["message"] == "name: A value is required."
    assert error["details"] == {"name": ["A value is required."]}


def test_blank_required_field_is_400(api):
    assert_error(api.post("/api/emails/new", {"name": ""}), 400, field="name")
    email = make(api, "emails", {"name": "x"})
    assert_error(api.patch(f"/api/emails/{email['id']}/edit", {"name": ""}), 400, field="name")
    assert api.get(f"/api/emails/{email['id']}").json["email"]["name"] == "x"


def test_several_errors_in_one_response(api):
    error = assert_error(api.post("/api/emails/new", {"isPublished": "maybe", "emailType": "spam"}), 400)
    assert set(error["details"]) == {"isPublished", "emailType", "name"}
    for field, messages in error["details"].items():
        for message in messages:
            assert f"{field}: {message}" in error["message"]
    assert error["message"].count(", ") >= 2


def test_a_tag_posted_again_in_other_case_is_the_same_tag(api):
    """Mautic finds a tag by name in a case-insensitive column (`getTagByNameOrCreateNewOne`): the
    create answers 200 with the stored tag, never a second one."""
    vip = make(api, "tags", {"tag": "vip"})
    again = api.post("/api/tags/new", {"tag": "VIP"})
    assert (again.status_code, again.json["tag"]["id"]) == (200, vip["id"])
    assert int(api.get("/api/tags").json["total"]) == 1


def test_failed_create_writes_nothing(api):
    make(api, "emails", {"name": "kept"})
    assert_error(api.post("/api/emails/new", {"name": "bad", "isPublished": "maybe"}), 400, field="isPublished")
    listing = api.get("/api/emails").json
    assert int(listing["total"]) == 1
    assert [e["name"] for e in listing["emails"].values()] == ["kept"]
    assert int(api.get("/api/emails?search=bad").json["total"]) == 0


def test_failed_patch_writes_nothing(api):
    email = make(api, "emails", {"name": "E", "subject": "S"})
    r = api.patch(f"/api/emails/{email['id']}/edit", {"subject": "changed", "publishUp": "never"})
    assert_error(r, 400, field="publishUp")
    assert api.get(f"/api/emails/{email['id']}").json["email"] == email


def test_failed_put_with_bad_nested_item_leaves_entity_unchanged(api):
    form = make(
        api,
        "forms",
        {
            "name": "F",
            "description": "d",
            "fields": [{"label": "Email", "type": "email"}, {"label": "Name", "type": "text"}],
        },
    )
    r = api.put(
        f"/api/forms/{form['id']}/edit",
        {
            "name": "G",
            "fields": [
                {"id": form["fields"][0]["id"], "label": "Mail", "type": "email"},
                {"label": "Bad", "type": "hologram"},
            ],
        },
    )
    assert_error(r, 400, field="fields[1][type]")
    assert api.get(f"/api/forms/{form['id']}").json["form"] == form


def test_failed_put_create_writes_nothing(api):
    assert_error(api.put("/api/emails/987654/edit", {"subject": "no name"}), 400, field="name")
    assert int(api.get("/api/emails").json["total"]) == 0


# --- not found, unknown paths, wrong methods -------------------------------------------------------


@pytest.mark.parametrize(
    "method, path",
    [
        ("GET", "/api/emails/987654"),
        ("PATCH", "/api/emails/987654/edit"),
        ("DELETE", "/api/emails/987654/delete"),
        ("GET", "/api/emails/abc"),
        ("PATCH", "/api/emails/abc/edit"),
        ("DELETE", "/api/emails/abc/delete"),
        ("GET", "/api/emails/0"),
        ("GET", "/api/emails/-1"),
        ("GET", "/api/emails/1.5"),
    ],
)
def test_unknown_or_non_numeric_id_is_404(api, method, path):
    make(api, "emails", {"name": "x"})
    r = api.call(method, path, body={"name": "y"} if method == "PATCH" else None)
    error = assert_error(r, 404, message="Item was not found.")
    assert error["details"] == [] and error["type"] is None


@pytest.mark.parametrize("path", ["/api/nope", "/whatever", "/api/emails/1/nope", "/api", "/api/contacts/1/x/y", "/"])
def test_unknown_path_is_404_json(api, path):
    r = api.get(path)
    assert_error(r, 404)
    assert r.headers["Content-Type"].startswith("application/json")
    assert r.headers["Mautic-Version"]


def test_unknown_path_without_credentials_is_404(api):
    assert_error(api.get("/api/nope", auth=False), 404)


@pytest.mark.parametrize(
    "method, path, allow",
    [
        ("DELETE", "/api/emails", "GET"),
        ("POST", "/api/emails", "GET"),
        ("GET", "/api/emails/new", "POST"),
        ("PUT", "/api/emails/new", "POST"),
        ("POST", "/api/emails/1", "GET"),
        ("GET", "/api/emails/1/edit", "PATCH, PUT"),
        ("POST", "/api/emails/1/edit", "PATCH, PUT"),
        ("GET", "/api/emails/1/delete", "DELETE"),
        ("POST", "/api/hooks/triggers", "GET"),
        ("POST", "/api/points/actions/types", "GET"),
        ("PATCH", "/api/addresses/1/delete", "DELETE"),
        ("HEAD", "/api/emails/1/delete", "DELETE"),
    ],
)
def test_wrong_method_is_405_with_allow(api, method, path, allow):
    r = api.call(method, path)
    assert_error(r, 405)
    assert r.headers["Allow"] == allow
    assert r.headers["Mautic-Version"]


# --- Mautic-Version everywhere ---------------------------------------------------------------------


def test_every_response_carries_mautic_version(api):
    email = make(api, "emails", {"name": "x"})
    responses = [
        api.get("/api/emails"),
        api.get(f"/api/emails/{email['id']}"),
        api.post("/api/emails/new", {"name": "y"}),
        api.patch(f"/api/emails/{email['id']}/edit", {"name": "z"}),
        api.put("/api/emails/987/edit", {"name": "q"}),
        api.delete(f"/api/emails/{email['id']}/delete"),
        api.get("/api/hooks/triggers"),
        api.get("/api/emails/987654"),
        api.post("/api/emails/new", {}),
        api.get("/api/nope"),
        api.get("/whatever"),
        api.call("DELETE", "/api/emails"),
        api.get("/api/emails", auth=False),
        api.post("/api/emails/new", raw=b"x", headers={"Content-Type": "text/plain"}),
        api.post("/api/emails/new", raw=b"{", headers=JSON),
    ]
    statuses = [r.status_code for r in responses]
    assert statuses == [200, 200, 201, 200, 201, 200, 200, 404, 400, 404, 404, 405, 401, 415, 400]
    for r in responses:
        assert r.headers.get("Mautic-Version") == "5.1.0", r.status_code


# --- authentication --------------------------------------------------------------------------------


def _basic(user, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


@pytest.mark.parametrize(
    "method, path",
    [
        ("GET", "/api/emails"),
        ("POST", "/api/emails/new"),
        ("GET", "/api/emails/1"),
        ("DELETE", "/api/emails/1/delete"),
        ("GET", "/api/hooks/triggers"),
    ],
)
def test_no_credentials_is_401(api, method, path):
    r = api.call(method, path, auth=False, body={"name": "x"} if method == "POST" else None)
    assert r.status_code == 401
    assert r.json == {"errors": [{"code": 401, "message": "API authorization denied.", "type": "access_denied"}]}
    assert r.headers["Mautic-Version"]
    assert int(api.get("/api/emails").json["total"]) == 0


@pytest.mark.parametrize(
    "headers",
    [
        _basic("admin", "wrong"),
        _basic("nobody", "admin-secret"),
        _basic("admin", ""),
        _basic("", ""),
        {"Authorization": "Basic !!!not-base64"},
        {"Authorization": "basic " + base64.b64encode(b"admin:x").decode()},
    ],
)
def test_bad_basic_credentials_are_401(api, headers):
    r = api.get("/api/emails", auth=False, headers=headers)
    assert r.status_code == 401
    assert r.json == {
        "errors": [{"code": 401, "message": "Authorization denied, invalid credentials.", "type": "access_denied"}]
    }


def test_bad_credentials_write_nothing(api):
    r = api.post("/api/emails/new", {"name": "x"}, auth=False, headers=_basic("admin", "wrong"))
    assert r.status_code == 401
    assert int(api.get("/api/emails").json["total"]) == 0


def test_lowercase_basic_scheme_accepted(api):
    token = base64.b64encode(b"admin:admin-secret").decode()
    assert api.get("/api/emails", auth=False, headers={"Authorization": f"basic {token}"}).status_code == 200


def test_unknown_bearer_token_is_401(api):
    r = api.get("/api/emails", auth=False, headers={"Authorization": "Bearer abc"})
    assert r.status_code == 401
    assert r.json["errors"][0]["message"] == "The access token provided is invalid."
    assert r.json["errors"][0]["type"] == "invalid_grant"


# --- categories ------------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", CATEGORY_PREFIXES)
def test_unknown_category_is_400(api, prefix):
    res, mautic = BY_PREFIX[prefix], "Category 987654 does not exist"
    error = assert_error(api.post(f"{res.base}/new", {**res.create, "category": 987654}), 400, message=mautic)
    assert error["details"] == {"category": [mautic]}
    assert int(api.get(res.base).json["total"]) == 0
    entity = create(api, res)
    assert_error(api.patch(f"{res.base}/{entity['id']}/edit", {"category": 987654}), 400, message=mautic)
    assert api.get(f"{res.base}/{entity['id']}").json[res.singular]["category"] is None


@pytest.mark.parametrize("prefix", CATEGORY_PREFIXES)
def test_category_in_response(api, prefix):
    res = BY_PREFIX[prefix]
    category = make(
        api, "categories", {"title": "Company News", "bundle": "global", "color": "ff0000", "description": "d"}
    )
    entity = create(api, res, category=category["id"])
    if prefix in CATEGORY_AS_TITLE:
        expected = "Company News"  # spec: the category name
    else:
        expected = {
            "id": category["id"],
            "title": "Company News",
            "alias": "company-news",
            "description": "d",
            "color": "ff0000",
            "bundle": "global",
        }
    assert entity["category"] == expected
    assert api.get(f"{res.base}/{entity['id']}").json[res.singular]["category"] == expected
    listed = api.get(res.base).json[res.plural]
    listed = listed[str(entity["id"])] if isinstance(listed, dict) else listed[0]
    assert listed["category"] == expected
    r = api.patch(f"{res.base}/{entity['id']}/edit", {"category": None})
    assert r.status_code == 200, r.json
    assert r.json[res.singular]["category"] is None


@pytest.mark.parametrize("prefix", ["tags", "addresses", "contacts", "fields/contact"])
def test_category_on_entity_without_categories_is_ignored(api, prefix):
    """Keys a resource does not know are ignored (Mautic's API forms allow extra fields)."""
    res = BY_PREFIX[prefix]
    category = make(api, "categories", {"title": "C", "bundle": "global"})
    entity = create(api, res, category=category["id"])
    assert "category" not in entity


def test_category_object_with_id_accepted(api):
    category = make(api, "categories", {"title": "C", "bundle": "email"})
    email = make(api, "emails", {"name": "e", "category": {"id": category["id"]}})
    assert email["category"]["id"] == category["id"]


def test_category_rename_shows_in_entities(api):
    category = make(api, "categories", {"title": "Old", "bundle": "email"})
    email = make(api, "emails", {"name": "e", "category": category["id"]})
    api.patch(f"/api/categories/{category['id']}/edit", {"title": "New"})
    assert api.get(f"/api/emails/{email['id']}").json["email"]["category"]["title"] == "New"
