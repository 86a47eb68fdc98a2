"""Notes: /notes CRUD about a contact, the contact's notes list, notes on the timeline."""
import pytest


@pytest.fixture
def contact(api):
    return api.post("/api/contacts/new", {"email": "ann@example.com"}).json["contact"]


def note(api, contact_id, text, **extra):
    r = api.post("/api/notes/new", dict({"text": text, "lead": contact_id}, **extra))
    assert r.status_code == 201, r.json
    return r.json["note"]


def test_note_crud(api, contact):
    created = note(api, contact["id"], "Called, wants a demo", type="call", dateTime="2026-05-01 10:00:00")
    assert created["lead"] == contact["id"] and created["type"] == "call"
    assert created["dateTime"] == "2026-05-01T10:00:00+00:00"
    r = api.patch(f"/api/notes/{created['id']}/edit", {"text": "Demo booked"})
    assert r.json["note"]["text"] == "Demo booked" and r.json["note"]["type"] == "call"
    assert api.get("/api/notes").json["total"] == 1
    assert api.delete(f"/api/notes/{created['id']}/delete").json["note"]["id"] is None


def test_note_validation(api, contact):
    r = api.post("/api/notes/new", {"text": "x", "lead": 999})
    assert r.status_code == 400 and "lead" in r.json["errors"][0]["details"]
    r = api.post("/api/notes/new", {"text": "x", "lead": contact["id"], "type": "fax"})
    assert r.status_code == 400 and "type" in r.json["errors"][0]["details"]
    assert api.post("/api/notes/new", {"lead": contact["id"]}).status_code == 400


def test_contact_notes_list_with_parameters(api, contact):
    other = api.post("/api/contacts/new", {"email": "bob@example.com"}).json["contact"]
    for text in ("alpha call", "beta meeting", "gamma call"):
        note(api, contact["id"], text)
    note(api, other["id"], "not mine")
    r = api.get(f"/api/contacts/{contact['id']}/notes")
    assert r.status_code == 200 and r.json["total"] == 3
    assert [n["text"] for n in r.json["notes"]] == ["alpha call", "beta meeting", "gamma call"]
    r = api.get(f"/api/contacts/{contact['id']}/notes?search=call&orderBy=text&orderByDir=desc&limit=1")
    assert r.json["total"] == 2 and [n["text"] for n in r.json["notes"]] == ["gamma call"]
    r = api.get(f"/api/contacts/{contact['id']}/notes?search=alpha OR beta")
    assert r.json["total"] == 2
    assert api.get("/api/contacts/999/notes").status_code == 404


def test_notes_are_on_the_contact_timeline(api, contact):
    note(api, contact["id"], "Met at the fair", type="meeting")
    timeline = api.get(f"/api/contacts/{contact['id']}/activity?filters[includeEvents][]=note").json
    assert timeline["total"] == 1 and timeline["events"][0]["eventLabel"] == "Met at the fair"


def test_editing_a_note_adds_no_second_event(api, contact):
    created = note(api, contact["id"], "First")
    api.patch(f"/api/notes/{created['id']}/edit", {"text": "Second"})
    assert api.get(f"/api/contacts/{contact['id']}/activity?filters[includeEvents][]=note").json["total"] == 1
