"""Issue 39 (the fuzzer's contract breaks): `null` sent for an array attribute (an automation's `lists`
or `forms`, an email's `lists` or `assetAttachments`, a report's `columns`...) was stored and answered
as `null` where the OpenAPI document declares an array. Mautic's forms submit null for a collection
as empty (EmailType's `lists`; CampaignApiController reads unset sources as none), so null is the
empty array, on create, PATCH and PUT, in the answer, the GET and the list; a document stored with
null before is answered with the empty array too."""

import pytest

from chalicelib.domain import wiring
from chalicelib.store import port as store
from tests.api.payloads import RESOURCES, create, items

ARRAYS = {
    res.prefix: [
        attr.name
        for resource in wiring.resources()
        if resource.prefix == res.prefix
        for attr in resource.all_attrs
        if attr.writable and not attr.hidden and attr.is_array
    ]
    for res in RESOURCES
}


@pytest.mark.parametrize("res", [r for r in RESOURCES if ARRAYS[r.prefix]], ids=str)
def test_null_for_an_array_is_the_empty_array(api, res):
    nulls = dict.fromkeys(ARRAYS[res.prefix])
    made = api.post(f"{res.base}/new", dict(res.create, **nulls))
    assert made.status_code == 201, made.json
    shown = made.json[res.singular]
    assert {name: shown[name] for name in nulls} == dict.fromkeys(nulls, [])
    url = f"{res.base}/{shown['id']}"
    patched = api.patch(f"{url}/edit", nulls)
    assert patched.status_code == 200, patched.json
    assert {name: patched.json[res.singular][name] for name in nulls} == dict.fromkeys(nulls, [])
    if res.put:
        put = api.put(f"{url}/edit", dict(res.create, **res.put_base, **nulls))
        assert put.status_code == 200, put.json
        assert {name: put.json[res.singular][name] for name in nulls} == dict.fromkeys(nulls, [])
    assert {name: api.get(url).json[res.singular][name] for name in nulls} == dict.fromkeys(nulls, [])
    listed = next(e for e in items(res, api.get(res.base).json) if e["id"] == shown["id"])
    assert {name: listed[name] for name in nulls} == dict.fromkeys(nulls, [])


def test_an_automation_and_an_email_stored_with_null_lists_answer_empty_arrays(api):
    automation = api.post("/api/automations/new", {"name": "Old"}).json["automation"]
    email = create(api, next(r for r in RESOURCES if r.prefix == "emails"))
    for kind, doc_id, names in (
        ("automation", automation["id"], ("lists", "forms")),
        ("email", email["id"], ("lists",)),
    ):
        store.put(kind, dict(store.get(kind, doc_id), **dict.fromkeys(names)))  # as stored before issue 39
    for path, key in (("/api/automations", "automations"), ("/api/campaigns", "campaigns")):
        listed = api.get(path).json[key]
        (shown,) = listed.values() if isinstance(listed, dict) else listed
        assert (shown["lists"], shown["forms"]) == ([], [])
    assert api.get(f"/api/emails/{email['id']}").json["email"]["lists"] == []
