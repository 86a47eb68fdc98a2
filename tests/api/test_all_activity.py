"""Issue 17: `GET /contacts/activity` (all contacts' events: Mautic's getAllActivityAction, the
per-contact timeline object of compat 9.1 without a contact) and `GET /contacts/list/segments`
(ListApiController::getListsAction: the published segments by name, indexed by id)."""

import pytest

from tests.bench.conftest import dynamodb_calls


def contact(api, email, **fields):
    return api.post("/api/contacts/new", dict({"email": email}, **fields)).json["contact"]


def test_all_contacts_activity_has_the_timeline_shape_newest_first(api):
    ann, bob = contact(api, "ann@example.com"), contact(api, "bob@example.com")
    api.post(f"/api/contacts/{ann['id']}/points/plus/5")
    api.post(f"/api/contacts/{bob['id']}/points/plus/3")
    answer = api.get("/api/contacts/activity").json
    assert set(answer) == {"events", "filters", "order", "types", "total", "page", "limit", "maxPages"}
    assert answer["order"] == ["timestamp", "DESC"] and answer["page"] == 1 and answer["limit"] == 25
    gained = [e for e in answer["events"] if e["event"] == "point.gained"]
    assert [e["contactId"] for e in gained] == [bob["id"], ann["id"]]
    assert {"event", "eventId", "eventLabel", "eventType", "timestamp", "contactId", "details"} <= set(gained[0])
    assert gained[0]["eventId"].startswith("point.gained")
    per_contact = api.get(f"/api/contacts/{ann['id']}/activity").json["events"]
    assert {e["eventId"] for e in per_contact} <= {e["eventId"] for e in answer["events"]}


def test_all_contacts_activity_filters_and_pages(api):
    people = [contact(api, f"p{i}@example.com") for i in range(4)]
    for person in people:
        api.post(f"/api/contacts/{person['id']}/points/plus/1")
    query = "filters[includeEvents][]=point.gained&limit=3"
    first = api.get(f"/api/contacts/activity?{query}").json
    assert [e["contactId"] for e in first["events"]] == [p["id"] for p in reversed(people)][:3]
    assert first["filters"]["includeEvents"] == ["point.gained"] and first["maxPages"] == 2
    second = api.get(f"/api/contacts/activity?{query}&page=2").json
    assert [e["contactId"] for e in second["events"]] == [people[0]["id"]]
    assert int(second["total"]) == 4 and second["maxPages"] == 2
    oldest = api.get(f"/api/contacts/activity?{query}&order[0]=timestamp&order[1]=ASC").json
    assert [e["contactId"] for e in oldest["events"]] == [p["id"] for p in people][:3]
    none = api.get("/api/contacts/activity?filters[excludeEvents][]=point.gained&filters[search]=point").json
    assert none["events"] == [] and int(none["total"]) == 0
    bad = api.get("/api/contacts/activity?filters[dateFrom]=yesterday-ish")
    assert bad.status_code == 400 and "dateFrom" in str(bad.json["errors"][0]["details"])


@pytest.mark.aws  # counts DynamoDB calls: over moto
def test_all_contacts_activity_reads_the_page_not_every_contact(api):
    """The feed index: a page costs the same with 10 or 60 contacts (no Scan, no read of every timeline)."""

    def page_cost():
        with dynamodb_calls() as calls:
            assert len(api.get("/api/contacts/activity?limit=5").json["events"]) == 5
        return dict(calls)

    for i in range(10):
        contact(api, f"a{i}@example.com")
    few = page_cost()
    for i in range(50):
        contact(api, f"b{i}@example.com")
    assert page_cost() == few and not few.get("Scan")


def test_the_segments_a_user_may_add_contacts_to(api):
    assert api.get("/api/contacts/list/segments").json == []
    zed = api.post("/api/segments/new", {"name": "Zed", "alias": "zed"}).json["list"]
    alpha = api.post("/api/segments/new", {"name": "Alpha", "isGlobal": False}).json["list"]
    api.post("/api/segments/new", {"name": "Hidden", "isPublished": False})
    answer = api.get("/api/contacts/list/segments").json
    assert list(answer) == [str(alpha["id"]), str(zed["id"])]
    assert answer[str(zed["id"])] == {"id": zed["id"], "name": "Zed", "alias": "zed"}
