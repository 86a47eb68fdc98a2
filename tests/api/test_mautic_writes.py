"""Issue 17 (first half): writes as Mautic 5 takes them: email syntax only, unknown categories,
segment filters echoed as sent, do-not-contact entries in a contact payload, typed field values."""
import pytest

from tests.api.payloads import assert_error


def _contact(api, **body):
    response = api.post("/api/contacts/new", body)
    assert response.status_code == 201, response.json
    return response.json["contact"]


@pytest.mark.parametrize("address", ["ann@example.test", "x@localhost.localdomain", "bob@mail.example",
                                     "eve@host.invalid"])
def test_reserved_domain_names_are_valid_addresses(api, address):
    """Mautic checks email syntax only: special-use names (RFC 2606/6761) are addresses like any other."""
    contact = _contact(api, email=address)
    assert contact["fields"]["all"]["email"] == address
    assert api.get(f"/api/contacts?search=email:{address}").json["total"] == 1


@pytest.mark.parametrize("address", ["ann@", "no-at-sign", "a b@example.com", "x@localhost"])
def test_addresses_that_break_the_syntax_are_refused(api, address):
    response = api.post("/api/contacts/new", {"email": address})
    assert_error(response, 400)
    assert "email" in response.json["errors"][0]["details"]
    assert api.get("/api/contacts").json["total"] == 0


@pytest.mark.parametrize("prefix,payload,key", [
    ("emails", {"name": "Mail", "subject": "Hi"}, "email"),
    ("assets", {"title": "Guide", "storageLocation": "remote", "file": "https://example.com/g.pdf"}, "asset"),
    ("segments", {"name": "Seg"}, "list"),
])
def test_an_unknown_category_is_refused_with_mautics_message(api, prefix, payload, key):
    response = api.post(f"/api/{prefix}/new", dict(payload, category=999))
    assert_error(response, 400)
    error = response.json["errors"][0]
    assert error["message"] == "Category 999 does not exist"
    assert error["details"] == {"category": ["Category 999 does not exist"]}
    assert api.get(f"/api/{prefix}").json["total"] == 0


def test_segment_filters_come_back_as_sent(api):
    """`properties` as sent (no added keys); the top-level `filter` and `display` mirror them."""
    sent = [{"glue": "and", "field": "city", "object": "lead", "type": "text", "operator": "=",
             "properties": {"filter": "Prague"}},
            {"glue": "or", "field": "country", "object": "lead", "type": "country", "operator": "=",
             "properties": {"filter": "Czech Republic", "display": "Czechia"}}]
    created = api.post("/api/segments/new", {"name": "Prague", "filters": sent}).json["list"]
    shown = api.get(f"/api/segments/{created['id']}").json["list"]
    for segment in (created, shown):
        assert [f["properties"] for f in segment["filters"]] == [f["properties"] for f in sent]
        assert [(f["filter"], f["display"]) for f in segment["filters"]] == \
            [("Prague", None), ("Czech Republic", "Czechia")]
        assert [f["glue"] for f in segment["filters"]] == ["and", "or"]
