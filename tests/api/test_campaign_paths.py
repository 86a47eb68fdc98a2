"""Issue 34, unmodified clients call `/api/campaigns`: Mautic's campaign paths and keys answer as
aliases of the automation routes (api/campaigns.py); `/api/automations` is unchanged."""

from tests.api.test_automations import tag
from tests.api.test_permissions import _as
from tests.api.test_segments import new_contact


def new_campaign(api, **extra):
    r = api.post("/api/campaigns/new", dict({"name": "Welcome", "events": [tag("new1", "now")]}, **extra))
    assert r.status_code == 201, r.json
    assert r.headers["Location"].endswith(f"/api/campaigns/{r.json['campaign']['id']}")
    return r.json["campaign"]


def test_unmodified_clients_call_api_campaigns_crud_with_campaign_keys(api):
    campaign = new_campaign(api)
    same = api.get(f"/api/automations/{campaign['id']}").json["automation"]
    assert same["name"] == "Welcome" and same["events"][0]["id"] == campaign["events"][0]["id"]
    listed = api.get("/api/campaigns").json
    assert int(listed["total"]) == 1 and list(listed["campaigns"]) == [str(campaign["id"])]
    assert "automations" not in listed and "automations" in api.get("/api/automations").json
    assert api.get(f"/api/campaigns/{campaign['id']}").json["campaign"]["name"] == "Welcome"
    edited = api.patch(f"/api/campaigns/{campaign['id']}/edit", {"name": "Hello"})
    assert edited.status_code == 200 and edited.json["campaign"]["name"] == "Hello"
    deleted = api.delete(f"/api/campaigns/{campaign['id']}/delete").json
    assert deleted["campaign"]["id"] is None and deleted["campaign"]["name"] == "Hello"
    assert api.get(f"/api/campaigns/{campaign['id']}").status_code == 404


def test_unmodified_clients_call_api_campaigns_batch(api):
    created = api.post("/api/campaigns/batch/new", [{"name": "A", "events": [tag("new1", "a")]}])
    assert created.status_code == 201 and created.json["statusCodes"] == [201]
    (campaign,) = created.json["campaigns"]
    edited = api.patch("/api/campaigns/batch/edit", [{"id": campaign["id"], "name": "B"}]).json
    assert edited["campaigns"][0]["name"] == "B"
    deleted = api.delete(f"/api/campaigns/batch/delete?ids={campaign['id']}").json
    assert deleted["campaigns"][0]["name"] == "B"


def test_unmodified_clients_call_api_campaigns_membership(api):
    campaign = new_campaign(api)
    ann = new_contact(api, email="ann@example.com")
    added = api.post(f"/api/campaigns/{campaign['id']}/contact/{ann['id']}/add")
    assert added.status_code == 200 and added.body == b'{"success":1}'
    (row,) = api.get(f"/api/campaigns/{campaign['id']}/contacts").json["contacts"]
    assert row["campaign_id"] == str(campaign["id"]) and row["lead_id"] == str(ann["id"])
    mine = api.get(f"/api/contacts/{ann['id']}/campaigns").json
    assert int(mine["total"]) == 1 and mine["campaigns"][str(campaign["id"])]["manuallyAdded"] is True
    assert "automations" in api.get(f"/api/contacts/{ann['id']}/automations").json
    log = api.get(f"/api/campaigns/{campaign['id']}/events/contact/{ann['id']}").json
    assert log["campaign"]["id"] == campaign["id"] and log["membership"][0]["campaign"] == campaign["id"]
    assert api.post(f"/api/campaigns/{campaign['id']}/contact/{ann['id']}/remove").json == {"success": 1}
    assert api.get(f"/api/campaigns/{campaign['id']}/contacts").json == {"total": 0, "contacts": []}


def test_unmodified_clients_call_api_campaigns_events_and_clone(api):
    campaign = new_campaign(api)
    events = api.get("/api/campaigns/events").json["events"]
    assert events[0]["campaign"]["id"] == campaign["id"] and "automation" not in events[0]
    one = api.get(f"/api/campaigns/events/{events[0]['id']}").json["event"]
    assert one["campaign"]["name"] == "Welcome"
    assert one["properties"] == {"add_tags": ["now"]}  # event properties are answered as stored
    copy = api.post(f"/api/campaigns/clone/{campaign['id']}")
    assert copy.status_code == 201 and copy.json["campaign"]["id"] != campaign["id"]
    assert copy.headers["Location"].endswith(f"/api/campaigns/{copy.json['campaign']['id']}")


def test_api_campaigns_needs_what_api_automations_needs(api):
    campaign = new_campaign(api)
    nobody = _as(api, "nobody", {"lead:leads": ["viewown"]})
    assert nobody.get("/api/campaigns").status_code == 403
    assert nobody.get(f"/api/campaigns/{campaign['id']}").status_code == 403
    assert nobody.post("/api/campaigns/new", {"name": "X"}).status_code == 403


def test_a_new_campaign_answers_its_creator_as_modifier_so_a_patch_as_read_changes_no_audit_field(api):
    """Mautic saves a new campaign twice, so its create answer already names the modifier (the
    api-library's CampaignsTest::testEditPatch PATCHes the campaign as read and compares every key)."""
    campaign = new_campaign(api)
    assert campaign["modifiedBy"] == campaign["createdBy"] is not None
    assert campaign["modifiedByUser"] == campaign["createdByUser"] and campaign["dateModified"] == campaign["dateAdded"]
    read = api.get(f"/api/campaigns/{campaign['id']}").json["campaign"]
    edited = api.patch(f"/api/campaigns/{campaign['id']}/edit", dict(read, name="test2")).json["campaign"]
    assert (edited["modifiedBy"], edited["modifiedByUser"]) == (read["modifiedBy"], read["modifiedByUser"])
    segment = api.post("/api/segments/new", {"name": "Not saved twice"}).json["list"]
    assert segment["modifiedBy"] is None and segment["dateModified"] is None
