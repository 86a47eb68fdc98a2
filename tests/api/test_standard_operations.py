"""The six standard operations (spec "Standard operations", compat 1) on all 20 resource prefixes."""

import re

import pytest

from tests.api.payloads import ISO_UTC, RESOURCES, assert_error, create, ids, items

AUDITED = [r for r in RESOURCES if "isPublished" in r.audit]
PUTTABLE = [r for r in RESOURCES if r.put]


def _second(api, res):
    """A second entity of the resource (a different name, and email for contacts)."""
    body = {**res.create, res.name: "Second"}
    if res.prefix == "contacts":
        body["email"] = "second@example.com"
    r = api.post(f"{res.base}/new", body)
    assert r.status_code == 201, r.json
    return r.json[res.singular]


def _location(res, entity_id):
    return re.compile(rf"https?://[^/]+/api/{re.escape(res.prefix)}/{entity_id}")


def test_twenty_prefixes_are_covered():
    assert len({r.prefix for r in RESOURCES}) == 20


# --- create ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("res", RESOURCES, ids=str)
def test_create(api, res):
    r = api.post(f"{res.base}/new", res.create)
    assert r.status_code == 201, r.json
    assert list(r.json) == [res.singular]
    entity = r.json[res.singular]
    assert type(entity["id"]) is int and entity["id"] > 0
    assert _location(res, entity["id"]).fullmatch(r.headers["Location"]), r.headers["Location"]
    for key, value in res.create.items():
        if key not in ("file", "storageLocation"):
            assert res.value(entity, key) == value, key
    assert r.headers["Mautic-Version"]
    assert r.headers["Content-Type"].startswith("application/json")
    second = _second(api, res)
    assert second["id"] != entity["id"]


# --- get -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("res", RESOURCES, ids=str)
def test_get(api, res):
    entity = create(api, res)
    r = api.get(f"{res.base}/{entity['id']}")
    assert r.status_code == 200
    assert list(r.json) == [res.singular]
    assert r.json[res.singular] == entity
    missing = [f for f in res.audit + res.spec_fields if f not in r.json[res.singular]]
    assert missing == [], "fields of the spec table missing from Get"
    assert_error(api.get(f"{res.base}/987654"), 404, message="Item was not found.")


@pytest.mark.parametrize("res", AUDITED, ids=str)
def test_audit_fields(api, res):
    entity = create(api, res)
    assert entity["isPublished"] is True
    assert ISO_UTC.match(entity["dateAdded"]), entity["dateAdded"]
    assert entity["createdBy"] == 1
    assert entity["createdByUser"] == "Admin User"
    if res.base.endswith("/automations"):  # saved twice by Mautic: test_campaign_paths.py
        assert (entity["modifiedBy"], entity["dateModified"]) == (1, entity["dateAdded"])
    else:
        assert entity["dateModified"] is None
        assert entity["modifiedBy"] is None and entity["modifiedByUser"] is None
    r = api.patch(f"{res.base}/{entity['id']}/edit", {res.name: "Edited"})
    assert r.status_code == 200, r.json
    edited = r.json[res.singular]
    assert ISO_UTC.match(edited["dateModified"]), edited["dateModified"]
    assert edited["modifiedBy"] == 1 and edited["modifiedByUser"] == "Admin User"
    assert edited["dateAdded"] == entity["dateAdded"]
    assert edited["createdBy"] == 1 and edited["createdByUser"] == "Admin User"


@pytest.mark.parametrize("res", [r for r in RESOURCES if "publishUp" in r.audit], ids=str)
def test_publish_dates_are_iso_utc(api, res):
    entity = create(api, res, publishUp="2031-05-06 07:08:09", publishDown="2032-01-01T12:00:00+02:00")
    assert entity["publishUp"] == "2031-05-06T07:08:09+00:00"
    assert entity["publishDown"] == "2032-01-01T10:00:00+00:00"
    again = api.get(f"{res.base}/{entity['id']}").json[res.singular]
    assert again["publishUp"] == "2031-05-06T07:08:09+00:00"
    assert again["publishDown"] == "2032-01-01T10:00:00+00:00"


# --- list ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("res", RESOURCES, ids=str)
def test_list(api, res):
    baseline = int(api.get(res.base).json["total"])  # default custom fields exist from the first start
    first, second = create(api, res), _second(api, res)
    r = api.get(res.base)
    assert r.status_code == 200
    assert set(r.json) == {"total", res.plural}
    as_text = res.plural in ("contacts", "companies")  # Mautic's raw SQL count: a string of digits
    assert type(r.json["total"]) is (str if as_text else int) and int(r.json["total"]) == baseline + 2
    collection = r.json[res.plural]
    if res.keyed:
        assert isinstance(collection, dict)
        assert collection[str(first["id"])] == first
        assert collection[str(second["id"])]["id"] == second["id"]
        assert all(key == str(value["id"]) for key, value in collection.items())
    else:
        assert isinstance(collection, list)
        assert [e["id"] for e in collection][-2:] == [first["id"], second["id"]]
        assert collection[-2] == first
    page = api.get(f"{res.base}?limit=1&start=1")
    assert int(page.json["total"]) == int(baseline) + 2  # total counts all matches, not the page
    assert len(items(res, page.json)) == 1


@pytest.mark.parametrize("res", RESOURCES, ids=str)
def test_empty_list_shape(api, res):
    # custom fields are never empty (default fields), so their empty list comes from a search
    r = api.get(f"{res.base}?search=zzznomatch") if res.prefix.startswith("fields/") else api.get(res.base)
    assert r.status_code == 200
    expected = res.empty_list if res.empty_list != () else []
    total = "0" if res.plural in ("contacts", "companies") else 0  # Mautic's raw SQL count for these two
    assert r.json == {"total": total, res.plural: expected}


# --- PATCH -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("res", RESOURCES, ids=str)
def test_patch(api, res):
    entity = create(api, res)
    r = api.patch(f"{res.base}/{entity['id']}/edit", {"id": entity["id"] + 100, res.name: "Changed"})
    assert r.status_code == 200, r.json
    assert list(r.json) == [res.singular]
    edited = r.json[res.singular]
    assert edited["id"] == entity["id"]  # an id in the body is ignored
    assert res.value(edited, res.name) == "Changed"
    assert res.value(edited, res.optional) == res.create[res.optional]
    stored = api.get(f"{res.base}/{entity['id']}").json[res.singular]
    assert stored == edited
    assert api.get(f"{res.base}/{entity['id'] + 100}").status_code == 404


@pytest.mark.parametrize("res", RESOURCES, ids=str)
def test_patch_unknown_id_is_404_and_creates_nothing(api, res):
    before = int(api.get(res.base).json["total"])
    assert_error(api.patch(f"{res.base}/987654/edit", res.create), 404, message="Item was not found.")
    assert int(api.get(res.base).json["total"]) == int(before)


# --- PUT -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("res", PUTTABLE, ids=str)
def test_put_existing_clears_unsent_fields(api, res):
    published = {"isPublished": False} if "isPublished" in res.audit else {}
    entity = create(api, res, **published)
    r = api.put(f"{res.base}/{entity['id']}/edit", {**res.put_base, res.name: "Replaced"})
    assert r.status_code == 200, r.json
    assert list(r.json) == [res.singular]
    edited = r.json[res.singular]
    assert edited["id"] == entity["id"]
    assert res.value(edited, res.name) == "Replaced"
    assert res.value(edited, res.optional) == res.optional_default
    if published:
        assert edited["isPublished"] is True  # back to its default
        assert edited["dateAdded"] == entity["dateAdded"]
    assert api.get(f"{res.base}/{entity['id']}").json[res.singular] == edited


@pytest.mark.parametrize("res", PUTTABLE, ids=str)
def test_put_missing_id_creates_with_new_id(api, res):
    before = int(api.get(res.base).json["total"])
    r = api.put(f"{res.base}/987654/edit", res.create)
    assert r.status_code == 201, r.json
    assert list(r.json) == [res.singular]
    entity = r.json[res.singular]
    assert entity["id"] != 987654
    assert _location(res, entity["id"]).fullmatch(r.headers["Location"]), r.headers["Location"]
    assert api.get(f"{res.base}/{entity['id']}").json[res.singular] == entity
    assert api.get(f"{res.base}/987654").status_code == 404
    assert int(api.get(res.base).json["total"]) == int(before) + 1


@pytest.mark.parametrize("res", [r for r in PUTTABLE if r.prefix != "contacts"], ids=str)
def test_put_without_required_field_is_400_and_changes_nothing(api, res):
    entity = create(api, res)
    required = next(iter(res.put_base))
    body = {k: v for k, v in res.put_base.items() if k != required}
    assert_error(api.put(f"{res.base}/{entity['id']}/edit", body), 400, field=required)
    assert api.get(f"{res.base}/{entity['id']}").json[res.singular] == entity


def test_addresses_have_no_put(api):
    res = next(r for r in RESOURCES if r.prefix == "addresses")
    entity = create(api, res)
    r = api.put(f"/api/addresses/{entity['id']}/edit", {"city": "Brno"})
    assert_error(r, 405)
    assert r.headers["Allow"] == "PATCH"
    assert api.get(f"/api/addresses/{entity['id']}").json["address"]["city"] == "Prague"
    assert api.put("/api/addresses/987654/edit", {"city": "Brno"}).status_code == 405
    assert api.get("/api/addresses").json["total"] == 1


# --- delete ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("res", RESOURCES, ids=str)
def test_delete(api, res):
    entity = create(api, res)
    before = int(api.get(res.base).json["total"])
    r = api.delete(f"{res.base}/{entity['id']}/delete")
    assert r.status_code == 200, r.json
    assert list(r.json) == [res.singular]
    deleted = r.json[res.singular]
    assert deleted["id"] is None
    assert {k: v for k, v in deleted.items() if k != "id"} == {k: v for k, v in entity.items() if k != "id"}
    assert_error(api.get(f"{res.base}/{entity['id']}"), 404, message="Item was not found.")
    listing = api.get(res.base).json
    assert int(listing["total"]) == int(before) - 1
    assert entity["id"] not in ids(res, listing)
    assert_error(api.delete(f"{res.base}/{entity['id']}/delete"), 404, message="Item was not found.")
    assert_error(api.delete(f"{res.base}/987654/delete"), 404, message="Item was not found.")


@pytest.mark.parametrize(
    "res",
    [r for r in RESOURCES if r.prefix in ("tags", "categories", "pages", "assets", "segments", "forms", "automations")],
    ids=str,
)
def test_delete_releases_unique_values(api, res):
    """After a delete, the same tag/alias can be created again (and keeps its plain alias)."""
    entity = create(api, res)
    assert api.delete(f"{res.base}/{entity['id']}/delete").status_code == 200
    again = create(api, res)
    for key in ("alias", "tag"):
        if key in entity:
            assert again[key] == entity[key]
