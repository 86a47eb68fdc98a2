"""Issue 34, a taken alias is made unique, not refused: assets, categories, forms, pages, segments,
automations (every aliased resource) append 1, 2... as Mautic's models do, in single and batch
creates and edits; usernames are still refused (tests/api/test_users.py)."""

import pytest

from tests.api.payloads import BY_PREFIX

ALIASED = ("assets", "categories", "forms", "pages", "segments", "automations")


def payload(prefix, alias):
    return dict(BY_PREFIX[prefix].create, alias=alias)


@pytest.mark.parametrize("prefix", ALIASED)
def test_a_taken_alias_is_made_unique_not_refused(api, prefix):
    res = BY_PREFIX[prefix]
    made = []
    for _ in range(3):
        r = api.post(f"/api/{prefix}/new", payload(prefix, "spring"))
        assert r.status_code == 201, r.json
        made.append(r.json[res.singular]["alias"])
    assert made == ["spring", "spring1", "spring2"]


@pytest.mark.parametrize("prefix", ALIASED)
def test_a_taken_alias_is_made_unique_not_refused_in_batch_creates(api, prefix):
    res = BY_PREFIX[prefix]
    assert api.post(f"/api/{prefix}/new", payload(prefix, "spring")).status_code == 201
    r = api.post(f"/api/{prefix}/batch/new", [payload(prefix, "spring"), payload(prefix, "spring")])
    assert r.status_code == 201 and r.json["statusCodes"] == [201, 201], r.json
    assert [item["alias"] for item in r.json[res.plural]] == ["spring1", "spring2"]


def test_a_taken_alias_is_made_unique_not_refused_in_an_edit(api):
    first = api.post("/api/pages/new", payload("pages", "spring")).json["page"]
    second = api.post("/api/pages/new", payload("pages", "summer")).json["page"]
    edited = api.patch(f"/api/pages/{second['id']}/edit", {"alias": "spring"})
    assert edited.status_code == 200 and edited.json["page"]["alias"] == "spring1"
    assert api.patch(f"/api/pages/{first['id']}/edit", {"alias": "spring"}).json["page"]["alias"] == "spring"
