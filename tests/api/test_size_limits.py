"""Sizes are bounded (issue 39, docs/security.md "Sizes are bounded"): field values by type as Mautic's
columns, a document's stored size, a request body before it is parsed (every write route, public ones
too) and an answer (a list page shrinks to what Lambda may return)."""

import base64
import json
import os
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from chalicelib import config
from tests.api.payloads import assert_error
from tests.api.test_files_assets import multipart
from tests.api.test_forms_submit import make_form, post
from tests.api.test_permissions import _as
from tests.motostate import stored_items

OWN_CONTACTS = {"lead:leads": ["viewown", "editown", "create"]}


def _stored():
    """Everything DynamoDB holds, as text (what "nothing written" compares)."""
    return sorted(json.dumps([table, item], sort_keys=True, default=str) for table, item in stored_items())


def _random_text(size):
    """Text that does not compress (zlib keeps ~3/4 of base64)."""
    return base64.b64encode(os.urandom(size))[:size].decode()


def _field(api, alias, kind):
    response = api.post("/api/fields/contact/new", {"label": alias, "alias": alias, "type": kind})
    assert response.status_code == 201, response.json
    return response.json["field"]


def test_an_anonymous_form_post_of_megabytes_is_refused_before_it_is_read(api):
    form = make_form(api)
    before = _stored()
    response = post(api, form["id"], {"email": "big@example.com", "firstname": "x" * 2_200_000})
    assert_error(_json(response), 413, field="body")
    assert f"at most {config.active().PUBLIC_BODY_MAX_BYTES:,}" in response.json["errors"][0]["message"]
    assert _stored() == before
    assert api.get(f"/api/forms/{form['id']}/submissions").json["total"] == 0


def _json(response):
    response.json = json.loads(response.body)
    return response


def test_a_limited_user_cannot_write_megabytes_into_her_own_contact(api):
    mallory = _as(api, "mallory", OWN_CONTACTS)
    own = mallory.post("/api/contacts/new", {"email": "m@example.com", "firstname": "Mal"}).json["contact"]["id"]
    before = _stored()
    assert_error(mallory.patch(f"/api/contacts/{own}/edit", {"firstname": "x" * 5_000_000}), 413, field="body")
    long_name = mallory.patch(f"/api/contacts/{own}/edit", {"firstname": "x" * 192, "lastname": "ok"})
    assert_error(long_name, 400, field="firstname")
    assert long_name.json["errors"][0]["details"]["firstname"] == [
        "This value is too long. It should have 191 characters or less."
    ]
    assert _stored() == before  # neither the refused body nor the refused field wrote anything
    assert mallory.patch(f"/api/contacts/{own}/edit", {"firstname": "x" * 191}).status_code == 200


def test_field_values_are_capped_by_type_as_mautics_columns(api):
    _field(api, "notes_long", "textarea")
    _field(api, "bio_html", "html")
    _field(api, "site", "url")
    contact = api.post("/api/contacts/new", {"email": "c@example.com"}).json["contact"]["id"]
    cases = [
        ("notes_long", "y" * 65_536, 65_535),
        ("bio_html", "<p>" + "z" * 65_533, 65_535),
        ("site", "https://example.com/" + "p" * 172, 191),
        ("email", "a" * 180 + "@example.com", 191),
    ]
    for alias, value, limit in cases:
        refused = api.patch(f"/api/contacts/{contact}/edit", {alias: value})
        assert_error(refused, 400, field=alias)
        assert f"{limit} characters" in refused.json["errors"][0]["details"][alias][0]
        fitting = value[: limit - 12] + "@example.com" if alias == "email" else value[:limit]
        assert api.patch(f"/api/contacts/{contact}/edit", {alias: fitting}).status_code == 200, alias
    assert api.get(f"/api/contacts/{contact}").json["contact"]["fields"]["all"]["notes_long"] == "y" * 65_535


def test_company_fields_are_capped_too(api):
    refused = api.post("/api/companies/new", {"companyname": "c" * 192})
    assert_error(refused, 400, field="companyname")
    assert int(api.get("/api/companies").json["total"]) == 0


@pytest.mark.parametrize(
    ("path", "body", "field", "limit"),
    [
        ("/api/segments/new", {"name": "n" * 256}, "name", 255),
        ("/api/segments/new", {"name": "ok", "alias": "a" * 192}, "alias", 191),
        ("/api/segments/new", {"name": "ok", "description": "d" * 65_536}, "description", 65_535),
        ("/api/emails/new", {"name": "ok", "subject": "s", "customHtml": "h" * 262_145}, "customHtml", 262_144),
        ("/api/tags/new", {"tag": "t" * 65_536}, "tag", 65_535),
        ("/api/segments/new", {"name": "ok", "filters": [{"x": "f" * 262_144}]}, "filters", 262_144),
    ],
)
def test_every_resources_string_and_json_attributes_are_capped_by_kind(api, path, body, field, limit):
    before = _stored()
    refused = api.post(path, body)
    assert_error(refused, 400, field=field)
    assert f"{limit} characters" in refused.json["errors"][0]["details"][field][0]
    assert _stored() == before


def test_a_document_over_what_an_item_may_hold_is_a_413_and_nothing_is_written(api, configure):
    for n in range(3):
        _field(api, f"notes_{n}", "textarea")
    contact = api.post("/api/contacts/new", {"email": "d@example.com"}).json["contact"]["id"]
    configure(DOCUMENT_STORED_MAX_BYTES=100_000)  # three 60 KB texts compress to ~135 KB
    before = _stored()
    values = {f"notes_{n}": _random_text(60_000) for n in range(3)}
    refused = api.patch(f"/api/contacts/{contact}/edit", values)
    assert_error(refused, 413)
    assert "over the 100,000 bytes an item may hold" in refused.json["errors"][0]["details"]["body"][0]
    assert _stored() == before
    batch = api.post("/api/contacts/batch/new", [dict(values, email="e@example.com"), {"email": "f@example.com"}])
    assert [e["code"] for e in batch.json["errors"]] == [413], batch.json
    assert int(api.get("/api/contacts?search=email:e@example.com").json["total"]) == 0
    assert int(api.get("/api/contacts?search=email:f@example.com").json["total"]) == 1


def _page_ids(response):
    contacts = response.json["contacts"]
    return [int(i) for i in (contacts if isinstance(contacts, dict) else [c["id"] for c in contacts])]


def _next(response):
    link = response.headers.get("Link") or response.headers.get("link")
    if not link:
        return None
    url = re.match(r"<([^>]+)>", link).group(1)
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}", parse_qs(parts.query)


def test_a_list_page_larger_than_lambda_may_answer_shrinks_and_links_the_rest(api, configure):
    _field(api, "notes_long", "textarea")
    ids = [
        api.post("/api/contacts/new", {"email": f"l{n}@example.com", "notes_long": "w" * 20_000}).json["contact"]["id"]
        for n in range(8)
    ]
    configure(ANSWER_MAX_BYTES=64 * 1024 + 150_000)  # ~3 of these contacts a page
    for query, positions in (("limit=30", {"after", "start"}), ("limit=30&orderBy=email", {"start"})):
        response, seen = api.get(f"/api/contacts?{query}"), []
        while True:
            assert response.status_code == 200, response.json
            assert int(response.json["total"]) == 8
            seen += _page_ids(response)
            assert len(_page_ids(response)) < 8
            following = _next(response)
            if following is None:
                break
            assert set(following[1]) & positions, following
            response = api.get(following[0])
        assert sorted(seen) == sorted(ids), query  # every contact once, none skipped


def test_any_other_answer_larger_than_lambda_may_answer_is_a_clear_400(api, configure):
    _field(api, "notes_long", "textarea")
    contact = api.post("/api/contacts/new", {"email": "g@example.com", "notes_long": "w" * 30_000}).json["contact"]
    configure(ANSWER_MAX_BYTES=50_000)
    refused = api.get(f"/api/contacts/{contact['id']}")
    assert_error(refused, 400, field="limit")
    assert "over the 50,000 an answer may have" in refused.json["errors"][0]["message"]


def test_an_upload_up_to_its_limit_still_works_and_a_larger_body_is_a_413(api, configure):
    configure(UPLOAD_MAX_BYTES=300_000)
    body, headers = multipart("fits.pdf", b"%PDF" + b"0" * 299_000)
    assert api.call("POST", "/api/files/assets/new", headers=headers, raw=body).status_code == 200
    body, headers = multipart("big.pdf", b"%PDF" + b"0" * (300_000 + config.active().MULTIPART_EXTRA_BYTES))
    assert_error(api.call("POST", "/api/files/assets/new", headers=headers, raw=body), 413, field="body")


def _write_routes():
    """(method, path) of every write of every route table of the app (the registry's routes included)."""
    from chalicelib.api.blueprints import TABLES

    for prefix, routes in TABLES:
        for path, handlers in routes.table.items():
            for method in sorted(set(handlers) & {"POST", "PUT", "PATCH", "DELETE"}):
                yield method, prefix + re.sub(r"\{[^}]+\}", "1", path), prefix == "/api"


def test_every_write_route_refuses_an_oversized_body_with_a_json_413_and_writes_nothing(api):
    routes = list(_write_routes())
    assert len(routes) > 250 and any(not under_api for _, _, under_api in routes)  # every table, public ones too
    oversized = {
        True: json.dumps({"name": "x" * config.active().BODY_MAX_BYTES}).encode(),
        False: json.dumps({"name": "x" * config.active().PUBLIC_BODY_MAX_BYTES}).encode(),
    }
    before = _stored()
    for method, path, under_api in routes:
        response = api.call(method, path, headers={"Content-Type": "application/json"}, raw=oversized[under_api])
        assert response.status_code == 413, (method, path, response.status_code, response.body[:200])
        assert_error(response, 413, field="body")
    assert _stored() == before
