"""Mautic 5.1's segment API functional tests (`ListApiControllerFunctionalTest`,
`SegmentFilterFunctionalTest`), read as HTTP requests with the same assertions."""

from tests.api.payloads import assert_error
from tests.api.test_mautic_functional import posted

LEGACY_CITY = {
    "object": "lead",
    "glue": "and",
    "field": "city",
    "type": "text",
    "filter": "Prague",
    "display": None,
    "operator": "=",
}
CURRENT_CITY = {
    "object": "lead",
    "glue": "and",
    "field": "city",
    "type": "text",
    "properties": {"filter": "Prague"},
    "operator": "=",
}
ANSWERED_CITY = {
    "object": "lead",
    "glue": "and",
    "field": "city",
    "type": "text",
    "operator": "=",
    "properties": {"filter": "Prague"},
}
OWNER = {"object": "lead", "glue": "and", "field": "owner_id", "type": "lookup_id", "operator": "="}
EMAIL_FILLED = {"glue": "and", "field": "email", "object": "lead", "type": "email", "operator": "!empty", "display": ""}


def test_single_segment_workflow(api):
    """`ListApiControllerFunctionalTest::testSingleSegmentWorkflow`: legacy `filter`/`display` move into
    `properties` (a current `properties.display` wins over an outdated top-level one; an empty display
    is dropped, a missing filter is null); rename, read, delete (answering the segment without id), 404."""
    payload = {
        "name": "API segment",
        "description": "Segment created via API test",
        "filters": [
            LEGACY_CITY,
            dict(OWNER, display="John Doe", filter="4"),
            CURRENT_CITY,
            dict(
                OWNER, display="outdated name", filter="outdated_id", properties={"display": "John Doe", "filter": "4"}
            ),
            EMAIL_FILLED,
        ],
    }
    created = posted(api, "POST", "/api/segments/new", payload)
    assert created.status_code == 201, created.json
    segment = created.json["list"]
    owner = dict(OWNER, properties={"display": "John Doe", "filter": "4"})
    email = {key: value for key, value in EMAIL_FILLED.items() if key != "display"}
    assert segment["filters"] == [ANSWERED_CITY, owner, ANSWERED_CITY, owner, dict(email, properties={"filter": None})]
    assert [list(item) for item in segment["filters"]][0] == list(ANSWERED_CITY)
    assert (segment["name"], segment["description"]) == (payload["name"], payload["description"])
    renamed = posted(api, "PATCH", f"/api/segments/{segment['id']}/edit", {"name": "API segment renamed"})
    assert renamed.status_code == 200
    assert (renamed.json["list"]["id"], renamed.json["list"]["name"]) == (segment["id"], "API segment renamed")
    assert renamed.json["list"]["description"] == payload["description"]
    assert api.get(f"/api/segments/{segment['id']}").json["list"]["name"] == "API segment renamed"
    deleted = api.delete(f"/api/segments/{segment['id']}/delete")
    assert deleted.status_code == 200
    assert (deleted.json["list"]["id"], deleted.json["list"]["name"]) == (None, "API segment renamed")
    assert_error(api.get(f"/api/segments/{segment['id']}"), 404)


def test_batch_segment_workflow(api):
    """`ListApiControllerFunctionalTest::testBatchSegmentWorkflow`: a batch PATCH of the segments as
    created answers each filter with Mautic's key order and the legacy `filter`/`display` mirrored
    back from `properties` (its form starts from `LeadList::getFilters`)."""
    payload = [
        {
            "name": "API batch segment 1",
            "description": "Segment created via API test",
            "filters": [LEGACY_CITY, CURRENT_CITY],
        },
        {"name": "API batch segment 2", "description": "Segment created via API test"},
    ]
    created = posted(api, "POST", "/api/segments/batch/new", payload)
    assert created.status_code == 201, created.json
    assert created.json["statusCodes"] == [201, 201]
    lists = created.json["lists"]
    for sent, segment in zip(payload, lists, strict=True):
        assert (segment["isPublished"], segment["isGlobal"], segment["isPreferenceCenter"]) == (True, True, False)
        assert (segment["name"], segment["description"]) == (sent["name"], sent["description"])
        assert isinstance(segment["filters"], list)
        segment["isPublished"] = False
    edited = posted(api, "PATCH", "/api/segments/batch/edit", lists)
    assert edited.json["statusCodes"] == [200, 200], edited.json
    for sent, segment in zip(payload, edited.json["lists"], strict=True):
        assert (segment["isPublished"], segment["isGlobal"], segment["isPreferenceCenter"]) == (False, True, False)
        assert segment["name"] == sent["name"]
    expected = dict(ANSWERED_CITY, filter="Prague", display=None)
    assert edited.json["lists"][0]["filters"] == [expected, expected]
    assert [list(item) for item in edited.json["lists"][0]["filters"]] == [list(expected)] * 2
    assert edited.json["lists"][1]["filters"] == []


def _depending_pair(api):
    """`saveSegment('s1')` with an email filter and `s2` filtering on membership of s1."""
    first = posted(api, "POST", "/api/segments/new", {"name": "s1", "alias": "s1", "filters": [EMAIL_FILLED]})
    leadlist = {
        "object": "lead",
        "glue": "and",
        "field": "leadlist",
        "type": "leadlist",
        "operator": "in",
        "properties": {"filter": [first.json["list"]["id"]]},
        "display": "",
    }
    second = posted(api, "POST", "/api/segments/new", {"name": "s2", "alias": "s2", "filters": [leadlist]})
    assert second.status_code == 201, second.json
    return first.json["list"]["id"], second.json["list"]["id"]


IN_USE = "leadlist: This segment is used in s2, please go back and check segments before unpublishing"


def test_unpublish_used_single_segment(api):
    """`ListApiControllerFunctionalTest::testUnpublishUsedSingleSegment`: 422, nothing changed."""
    first, _ = _depending_pair(api)
    answer = posted(api, "PATCH", f"/api/segments/{first}/edit", {"name": "API segment renamed", "isPublished": False})
    assert answer.status_code == 422
    assert answer.json["errors"][0]["message"] == IN_USE
    kept = api.get(f"/api/segments/{first}").json["list"]
    assert (kept["name"], kept["isPublished"]) == ("s1", True)


def test_unpublish_used_batch_segment(api):
    """`ListApiControllerFunctionalTest::testUnpublishUsedBatchSegment`: the used one 422, the other 200."""
    first, second = _depending_pair(api)
    answer = posted(
        api,
        "PATCH",
        "/api/segments/batch/edit",
        [{"id": first, "isPublished": False}, {"id": second, "isPublished": False}],
    )
    assert answer.json["statusCodes"] == [422, 200]
    assert answer.json["errors"][0]["message"] == IN_USE


def test_used_segment_cannot_be_deleted(api):
    """Mautic's segment list refuses to delete a segment others need (`mautic.lead.list.error.cannot.delete`);
    the API does the same (a choice: Mautic's API deletes it and leaves the dependent's filter dangling)."""
    first, second = _depending_pair(api)
    answer = api.delete(f"/api/segments/{first}/delete")
    assert answer.status_code == 422
    assert answer.json["errors"][0]["message"] == "Segment cannot be deleted, it is required by s2."
    assert api.get(f"/api/segments/{first}").status_code == 200
    assert api.delete(f"/api/segments/{second}/delete").status_code == 200
    assert api.delete(f"/api/segments/{first}/delete").status_code == 200


def test_we_get_422_response_code_if_segment_is_being_used_in_some_campaign_and_we_unpublish_it(api):
    """`ListApiControllerFunctionalTest::testWeGet422ResponseCodeIfSegmentIsBeingUsedInSomeCampaignAndWeUnpublishIt`
    and `testWeGet200ResponseCodeIfSegmentIsNotUsedInCampaignsAndWeUnpublishIt`; a delete is refused too."""
    used = api.post("/api/segments/new", {"name": "Segment1"}).json["list"]["id"]
    free = api.post("/api/segments/new", {"name": "Segment2"}).json["list"]["id"]
    campaign = api.post("/api/campaigns/new", {"name": "Campaign1", "lists": [used]})
    assert campaign.status_code == 201, campaign.json
    answer = posted(api, "PATCH", f"/api/segments/{used}/edit", {"isPublished": 0})
    assert answer.status_code == 422
    message = answer.json["errors"][0]["message"]
    assert 'This segment is used in "Campaign1" campaign. Please check it before unpublishing.' in message
    assert api.get(f"/api/segments/{used}").json["list"]["isPublished"] is True
    deleted = api.delete(f"/api/segments/{used}/delete")
    assert deleted.status_code == 422 and "Campaign1" in deleted.json["errors"][0]["message"]
    ok = posted(api, "PATCH", f"/api/segments/{free}/edit", {"isPublished": 0})
    assert ok.status_code == 200 and "errors" not in ok.json


def _build(api, drain, contacts, filters):
    """Contacts first, then the segment (built in the background): the members' emails."""
    for values in contacts:
        assert api.post("/api/contacts/new", values).status_code == 201
    filters = [
        {
            "object": "lead",
            "glue": "and",
            "field": item["field"],
            "type": item["type"],
            "properties": {"filter": item["value"]},
            "operator": item["operator"],
        }
        for item in filters
    ]
    created = posted(
        api, "POST", "/api/segments/new", {"name": "API segment", "alias": "api_segment_test", "filters": filters}
    )
    assert created.status_code == 201, created.json
    drain()
    alias = created.json["list"]["alias"]
    found = api.get(f"/api/contacts?search=segment:{alias}&limit=100").json["contacts"]
    return sorted(contact["fields"]["all"]["email"] for contact in found.values())


def test_segments_starts_with(api, drain):
    """`SegmentFilterFunctionalTest::testSegments`, case 1: `startsWith` on text."""
    contacts = [
        {"email": "lukas@mautic.com", "city": "Prague"},
        {"email": "lukas2@mautic.com", "city": "Prague 11"},
        {"email": "lukas3@mautic.com", "city": "Praha"},
    ]
    filters = [{"field": "city", "operator": "startsWith", "value": "Prague", "type": "text"}]
    assert _build(api, drain, contacts, filters) == ["lukas2@mautic.com", "lukas@mautic.com"]


def test_segments_gte_on_a_text_typed_number(api, drain):
    """`SegmentFilterFunctionalTest::testSegments`, case 2: `points gte 20` typed `text` compares numbers."""
    contacts = [
        {"email": "lukas@mautic.com", "points": 20},
        {"email": "lukas2@mautic.com", "points": 10},
        {"email": "lukas3@mautic.com", "points": 25},
        {"email": "lukas4@mautic.com", "points": 100},
    ]
    filters = [{"field": "points", "operator": "gte", "value": 20, "type": "text"}]
    assert _build(api, drain, contacts, filters) == ["lukas3@mautic.com", "lukas4@mautic.com", "lukas@mautic.com"]


def test_segments_ordered_comparisons_on_text(api, drain):
    """Mautic's query builder compares a text column with gt/gte/lt/lte in its case-insensitive collation."""
    contacts = [{"email": f"{city.lower()}@mautic.com", "city": city} for city in ("Berlin", "brno", "Praha", "Wien")]
    filters = [{"field": "city", "operator": "gte", "value": "BRNO", "type": "text"}]
    assert _build(api, drain, contacts, filters) == ["brno@mautic.com", "praha@mautic.com", "wien@mautic.com"]


def test_segments_not_in_on_an_empty_multiselect(api, drain):
    """`SegmentFilterFunctionalTest::testSegments`, case 3: `!in` holds for a contact without a value."""
    field = api.post(
        "/api/fields/contact/new",
        {
            "label": "Multiselect",
            "alias": "multiselect",
            "type": "multiselect",
            "properties": {"list": [{"label": x, "value": x} for x in "fst"]},
        },
    )
    assert field.status_code == 201, field.json
    filters = [{"field": "multiselect", "operator": "!in", "value": ["s"], "type": "multiselect"}]
    assert _build(api, drain, [{"email": "lukas@mautic.com"}], filters) == ["lukas@mautic.com"]
