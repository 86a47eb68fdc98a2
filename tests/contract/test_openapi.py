"""The OpenAPI document: served without authentication, valid OpenAPI 3.1, and covering every route."""

import re

from openapi_spec_validator import validate

from chalicelib.api import blueprints, openapi
from chalicelib.api.routing import Routes

DOC = "/api/openapi.json"


def _document(api):
    r = api.get(DOC, auth=False)
    assert r.status_code == 200, r.json
    return r.json


def _template(path):
    """A document path as a regular expression over concrete paths."""
    return re.compile("^" + re.sub(r"\\{\w+\\}", "[^/]+", re.escape(path)) + "$")


def test_served_without_credentials_and_valid(api):
    doc = _document(api)
    validate(doc)
    assert doc["openapi"] == "3.1.0"
    assert doc["servers"][0]["url"].startswith("http")


def test_every_route_of_every_table_is_documented(api):
    paths = _document(api)["paths"]
    missing = []
    for prefix, routes in blueprints.TABLES + (("/api", blueprints.CONTRACT_ROUTES),):
        for path, handlers in routes.table.items():
            contract = routes.contracts.get(path)
            if contract is not None and contract.operation == "batch":
                expected = [
                    (f"{prefix}{path}".replace("{action}", action), m) for action, ms in contract.actions for m in ms
                ]
            else:
                expected = [(prefix + path, m) for m in handlers if m != "HEAD"]
            missing += [f"{m} {p}" for p, m in expected if m.lower() not in paths.get(p, {})]
    assert missing == []


def test_every_chalice_route_matches_a_documented_path(api, chalice_app):
    documented = [_template(p) for p in _document(api)["paths"]]
    concrete = [re.sub(r"{action}", "new", path) for path in chalice_app.routes]
    assert [p for p in concrete if not any(t.match(p) for t in documented)] == []
    assert len(chalice_app.routes) > 150


def test_a_route_added_to_a_table_appears():
    extra = Routes("extra")

    @extra.route("/widgets/{id}/spin", "POST", "DELETE", access=())
    def spin(request, ctx, id):
        """Spin a widget."""

    doc = openapi.document((("/api", extra),), "http://x")
    assert set(doc["paths"]["/api/widgets/{id}/spin"]) == {"post", "delete"}
    assert doc["paths"]["/api/widgets/{id}/spin"]["post"]["summary"] == "Spin a widget."


def test_standard_operations_carry_envelopes_and_parameters(api):
    doc = _document(api)
    listing = doc["paths"]["/api/contacts"]["get"]
    names = {p["$ref"].rsplit("/", 1)[1] for p in listing["parameters"]}
    assert {"search", "start", "limit", "orderBy", "orderByDir", "where", "after"} <= names
    schema = listing["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["required"] == ["total", "contacts"]
    assert (
        schema["properties"]["total"]["type"] == "string"
    )  # Mautic's raw SQL count (testEmptyResponseReturnsJsonObject)
    emails = doc["paths"]["/api/emails"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert emails["properties"]["total"] == {"type": "integer"}
    get = doc["paths"]["/api/emails/{id}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert get["properties"]["email"] == {"$ref": "#/components/schemas/Email"}
    create = doc["paths"]["/api/emails/new"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert "name" in doc["components"]["schemas"]["EmailCreate"]["required"] and create["$ref"].endswith("EmailCreate")
    assert set(doc["paths"]["/api/contacts/batch/edit"]) == {"patch", "put"}
    assert doc["paths"]["/api/contacts/batch/delete"]["delete"]["responses"]["4XX"]["content"]


def test_security_schemes_and_public_operations(api):
    doc = _document(api)
    assert set(doc["components"]["securitySchemes"]) == {"basicAuth", "oauth2", "oauth1a"}
    assert doc["paths"]["/oauth/v2/token"]["post"]["security"] == []
    assert doc["paths"]["/form/submit"]["post"]["security"] == []
    assert "security" not in doc["paths"]["/api/contacts"]["get"]


def test_file_answers_are_described_as_files_not_json(api):
    """A theme download, a submission's file and the tracking pixels answer files: the document says so."""
    paths = _document(api)["paths"]
    theme = paths["/api/themes/{theme}"]["get"]["responses"]["200"]
    assert list(theme["content"]) == ["application/zip"] and "Content-Disposition" in theme["headers"]
    upload = paths["/api/forms/{id}/submissions/{submission_id}/files/{field}"]["get"]["responses"]["200"]
    assert list(upload["content"]) == ["*/*"]
    for pixel in ("/mtracking.gif", "/email/{name}", "/focus/{id}/viewpixel.gif"):
        assert list(paths[pixel]["get"]["responses"]["200"]["content"]) == ["image/gif"], pixel
    assert list(paths["/api/contacts/{id}/export"]["get"]["responses"]["200"]["content"]) == ["application/json"]
