"""Contact merge (compat 1.5): an edit that gives a contact the email of another merges the two."""

import json

from tests.api.payloads import assert_error
from tests.api.test_contacts_companies import contact, values
from tests.conftest import set_cookies, visitor_cookie


def events(api, contact_id, event_type):
    body = api.get(f"/api/contacts/{contact_id}/activity?filters[includeEvents][]={event_type}").json
    return body["events"]


def moved_points(api, contact_id):
    """The contact's `point.gained` events other than the one of the merge itself."""
    return [e for e in events(api, contact_id, "point.gained") if e["details"].get("action") != "Merge"]


def test_edit_to_email_of_another_contact_merges(api):
    ann = contact(api, email="ann@example.com", firstname="Ann")
    bob = contact(api, email="bob@example.com", lastname="Builder")
    r = api.patch(f"/api/contacts/{bob['id']}/edit", {"email": "ann@example.com"})
    assert r.status_code == 200, r.json
    assert r.json["contact"]["id"] == ann["id"]  # the older contact survives
    listing = api.get("/api/contacts").json
    assert int(listing["total"]) == 1
    (only,) = listing["contacts"].values()
    assert values(only)["email"] == "ann@example.com"
    assert values(only)["firstname"] == "Ann" and values(only)["lastname"] == "Builder"
    assert_error(api.get(f"/api/contacts/{bob['id']}"), 404)


def test_a_put_to_email_of_another_contact_merges_too(api):
    ann = contact(api, email="ann@example.com", firstname="Ann")
    bob = contact(api, email="bob@example.com", lastname="Builder")
    r = api.put(f"/api/contacts/{bob['id']}/edit", {"email": "ann@example.com", "city": "Brno"})
    assert r.status_code == 200 and r.json["contact"]["id"] == ann["id"]
    assert values(r.json["contact"])["city"] == "Brno" and values(r.json["contact"])["firstname"] == "Ann"
    assert int(api.get("/api/contacts").json["total"]) == 1


def test_the_edited_values_win_and_blanks_are_filled(api):
    ann = contact(api, email="ann@example.com", firstname="Ann", city="Prague")
    bob = contact(api, email="bob@example.com", firstname="Bob", lastname="Builder")
    merged = api.patch(f"/api/contacts/{bob['id']}/edit", {"email": "ANN@example.com", "firstname": "Robert"}).json
    fields = values(merged["contact"])
    assert fields["firstname"] == "Robert" and fields["lastname"] == "Builder" and fields["city"] == "Prague"
    assert merged["contact"]["id"] == ann["id"]


def test_an_older_contact_taking_a_newer_ones_email_keeps_its_id_and_the_emails_move(api):
    ann = contact(api, email="ann@example.com", firstname="Ann")
    bob = contact(api, email="bob@example.com", lastname="Builder")
    merged = api.patch(f"/api/contacts/{ann['id']}/edit", {"email": "bob@example.com"}).json["contact"]
    assert merged["id"] == ann["id"] and values(merged)["email"] == "bob@example.com"
    assert values(merged)["lastname"] == "Builder"
    assert_error(api.get(f"/api/contacts/{bob['id']}"), 404)
    again = api.post("/api/contacts/new", {"email": "bob@example.com"})
    assert again.status_code == 200 and again.json["contact"]["id"] == ann["id"]  # bob's email now leads to ann
    assert contact(api, email="ann@example.com")["id"] not in (ann["id"], bob["id"])  # ann's old email is free
    assert int(api.get("/api/contacts?search=email:bob@example.com").json["total"]) == 1


def test_points_tags_ips_and_owner_are_joined(api):
    contact(api, email="ann@example.com", tags=["vip"], ipAddress="10.0.0.1", points=5)
    bob = contact(api, email="bob@example.com", tags=["lead", "VIP"], ipAddress="10.0.0.2", points=7, owner=1)
    merged = api.patch(f"/api/contacts/{bob['id']}/edit", {"email": "ann@example.com"}).json["contact"]
    assert merged["points"] == 12
    assert sorted(t["tag"] for t in merged["tags"]) == ["lead", "vip"]
    assert sorted(ip["ipAddress"] for ip in merged["ipAddresses"]) == ["10.0.0.1", "10.0.0.2"]
    assert merged["owner"]["id"] == 1


def test_timestamps_take_the_latest_activity_and_the_first_identification(api):
    ann = contact(api, email="ann@example.com", lastActive="2026-01-01 10:00:00")
    bob = contact(api, email="bob@example.com", lastActive="2026-03-01 10:00:00")
    merged = api.patch(f"/api/contacts/{bob['id']}/edit", {"email": "ann@example.com"}).json["contact"]
    assert merged["lastActive"].startswith("2026-03-01T10:00:00")
    assert merged["dateIdentified"] == ann["dateIdentified"]


def test_do_not_contact_companies_and_segments_are_joined(api):
    ann = contact(api, email="ann@example.com")
    bob = contact(api, email="bob@example.com")
    acme = api.post("/api/companies/new", {"companyname": "Acme"}).json["company"]
    globex = api.post("/api/companies/new", {"companyname": "Globex"}).json["company"]
    segment = api.post("/api/segments/new", {"name": "Hand picked"}).json["list"]
    api.post(f"/api/companies/{acme['id']}/contact/{ann['id']}/add")
    api.post(f"/api/companies/{globex['id']}/contact/{bob['id']}/add")
    api.post(f"/api/contacts/{bob['id']}/dnc/sms/add")
    api.post(f"/api/segments/{segment['id']}/contact/{bob['id']}/add")
    merged = api.patch(f"/api/contacts/{bob['id']}/edit", {"email": "ann@example.com"}).json["contact"]
    assert [d["channel"] for d in merged["doNotContact"]] == ["sms"]
    companies = api.get(f"/api/contacts/{ann['id']}/companies").json["companies"]
    assert sorted((c["companyname"], c["is_primary"]) for c in companies) == [("Acme", 1), ("Globex", 0)]
    assert list(api.get(f"/api/contacts/{ann['id']}/segments").json["lists"]) == [str(segment["id"])]
    members = api.get(f"/api/contacts?search=segment:{segment['alias']}").json["contacts"]
    assert list(members) == [str(ann["id"])]


def test_the_merge_is_on_the_timeline_and_the_other_contacts_events_move(api, drain):
    ann = contact(api, email="ann@example.com")
    bob = contact(api, email="bob@example.com")
    api.post(f"/api/contacts/{bob['id']}/points/plus/3", {"eventName": "Webinar"})
    note = api.post("/api/notes/new", {"text": "Called", "lead": bob["id"]}).json["note"]
    api.patch(f"/api/contacts/{bob['id']}/edit", {"email": "ann@example.com"})
    (merged,) = events(api, ann["id"], "lead.merged")
    assert merged["details"]["mergedId"] == bob["id"]
    drain()
    assert [n["id"] for n in api.get(f"/api/contacts/{ann['id']}/notes").json["notes"]] == [note["id"]]
    assert api.get(f"/api/notes/{note['id']}").json["note"]["lead"]["id"] == ann["id"]
    assert [e["eventLabel"] for e in events(api, ann["id"], "note")] == ["Called"]
    gained = moved_points(api, ann["id"])
    assert [e["contactId"] for e in gained] == [ann["id"]] and gained[0]["eventLabel"] == "Webinar"
    assert int(api.get(f"/api/contacts/{ann['id']}/activity").json["total"]) >= 4  # both identifications too


def test_a_lost_move_message_is_sent_again_by_the_minute_job(api, drain, frozen):
    from chalicelib.workers import run_jobs
    from tests import installed

    ann = contact(api, email="ann@example.com")
    bob = contact(api, email="bob@example.com")
    api.post(f"/api/contacts/{bob['id']}/points/plus/3")
    api.patch(f"/api/contacts/{bob['id']}/edit", {"email": "ann@example.com"})
    installed.empty_queues()
    run_jobs("minute")
    drain()
    assert moved_points(api, ann["id"]) == []
    frozen.advance(minutes=6)
    run_jobs("minute")
    drain()
    assert len(moved_points(api, ann["id"])) == 1


def test_batch_edits_merge_per_item(api):
    ann = contact(api, email="ann@example.com")
    bob = contact(api, email="bob@example.com")
    carl = contact(api, email="carl@example.com")
    r = api.patch(
        "/api/contacts/batch/edit",
        [{"id": bob["id"], "email": "ann@example.com"}, {"id": carl["id"], "firstname": "Carl"}],
    )
    assert r.json["statusCodes"] == [200, 200]
    assert [c["id"] for c in r.json["contacts"]] == [ann["id"], carl["id"]]
    assert int(api.get("/api/contacts").json["total"]) == 2


def test_a_merge_fires_the_update_and_delete_webhooks(api, drain, receiver):
    api.post(
        "/api/hooks/new",
        {
            "name": "R",
            "webhookUrl": receiver.url,
            "triggers": ["mautic.lead_post_save_update", "mautic.lead_post_delete"],
        },
    )
    ann = contact(api, email="ann@example.com")
    bob = contact(api, email="bob@example.com", lastname="Builder")
    api.patch(f"/api/contacts/{bob['id']}/edit", {"email": "ann@example.com"})
    drain()
    bodies = [json.loads(request.body) for request in receiver.wait(2)]  # one delivery per change
    updated = [c["contact"]["id"] for body in bodies for c in body.get("mautic.lead_post_save_update", [])]
    deleted = [c["id"] for body in bodies for c in body.get("mautic.lead_post_delete", [])]
    assert updated == [ann["id"]] and deleted == [bob["id"]]


def test_an_email_opened_after_the_merge_counts_on_the_survivor(api):
    from tests.api.test_email_send import make_email, sent_messages

    ann = contact(api, email="ann@example.com")
    bob = contact(api, email="bob@example.com")
    mail = make_email(api)
    api.post(f"/api/emails/{mail['id']}/contact/{bob['id']}/send")
    tracking = sent_messages()[-1]["X-Mautic-Tracking"]
    api.patch(f"/api/contacts/{bob['id']}/edit", {"email": "ann@example.com"})
    api.http.request("GET", f"/email/{tracking}.gif", headers={"Accept": "*/*"}, body=b"")
    assert len(events(api, ann["id"], "email.read")) == 1
    assert api.get(f"/api/contacts/{ann['id']}").json["contact"]["lastActive"] is not None


def test_points_brought_by_a_merge_fire_the_triggers_they_cross(api):
    from tests.api.test_point_triggers import make_trigger

    make_trigger(api, points=10, tag="hot")
    ann = contact(api, email="ann@example.com", points=6)
    bob = contact(api, email="bob@example.com", points=5)
    merged = api.patch(f"/api/contacts/{bob['id']}/edit", {"email": "ann@example.com"}).json["contact"]
    assert merged["points"] == 11 and [t["tag"] for t in merged["tags"]] == ["hot"]
    (gained,) = [e for e in events(api, ann["id"], "point.gained") if e["details"].get("action") == "Merge"]
    assert gained["details"]["delta"] == 5 and gained["details"]["newPoints"] == 11


def test_a_cookie_naming_a_merged_contact_tracks_the_survivor(api):
    ann = contact(api, email="ann@example.com")
    bob = contact(api, email="bob@example.com")
    api.post("/api/pages/new", {"title": "Offer", "alias": "offer", "customHtml": "<p>Hi</p>"})
    api.patch(f"/api/contacts/{bob['id']}/edit", {"email": "ann@example.com"})
    page = api.http.request(
        "GET", "/offer", headers={"Cookie": visitor_cookie(bob["id"]), "User-Agent": "Mozilla/5.0"}, body=b""
    )
    assert page.status_code == 200 and set_cookies(page)["mtc_id"] == str(ann["id"])
    assert len(events(api, ann["id"], "page.hit")) == 1
    assert int(api.get("/api/contacts").json["total"]) == 1
