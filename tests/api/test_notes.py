"""Notes: /notes CRUD about a contact, the contact's notes list, notes on the timeline."""

from contextlib import contextmanager
from unittest import mock

import botocore.client
import pytest

from tests.bench.conftest import dynamodb_calls


@pytest.fixture
def contact(api):
    return api.post("/api/contacts/new", {"email": "ann@example.com"}).json["contact"]


def note(api, contact_id, text, **extra):
    r = api.post("/api/notes/new", dict({"text": text, "lead": contact_id}, **extra))
    assert r.status_code == 201, r.json
    return r.json["note"]


def test_note_crud(api, contact):
    created = note(api, contact["id"], "Called, wants a demo", type="call", dateTime="2026-05-01 10:00:00")
    assert created["lead"]["id"] == contact["id"] and created["type"] == "call"
    assert created["dateTime"] == "2026-05-01T10:00:00+00:00"
    r = api.patch(f"/api/notes/{created['id']}/edit", {"text": "Demo booked"})
    assert r.json["note"]["text"] == "Demo booked" and r.json["note"]["type"] == "call"
    assert int(api.get("/api/notes").json["total"]) == 1
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
    assert r.status_code == 200 and int(r.json["total"]) == 3
    assert [n["text"] for n in r.json["notes"]] == ["alpha call", "beta meeting", "gamma call"]
    r = api.get(f"/api/contacts/{contact['id']}/notes?search=call&orderBy=text&orderByDir=desc&limit=1")
    assert int(r.json["total"]) == 2 and [n["text"] for n in r.json["notes"]] == ["gamma call"]
    r = api.get(f"/api/contacts/{contact['id']}/notes?search=alpha OR beta")
    assert int(r.json["total"]) == 2
    assert api.get("/api/contacts/999/notes").status_code == 404


def test_notes_are_on_the_contact_timeline(api, contact):
    note(api, contact["id"], "Met at the fair", type="meeting")
    timeline = api.get(f"/api/contacts/{contact['id']}/activity?filters[includeEvents][]=note").json
    assert int(timeline["total"]) == 1 and timeline["events"][0]["eventLabel"] == "Met at the fair"


def test_editing_a_note_adds_no_second_event(api, contact):
    created = note(api, contact["id"], "First")
    api.patch(f"/api/notes/{created['id']}/edit", {"text": "Second"})
    assert int(api.get(f"/api/contacts/{contact['id']}/activity?filters[includeEvents][]=note").json["total"]) == 1


def texts(api, contact_id, query=""):
    r = api.get(f"/api/contacts/{contact_id}/notes{query}")
    assert r.status_code == 200, r.json
    return r.json["total"], [n["text"] for n in r.json["notes"]]


def test_contact_notes_follow_the_note_when_its_contact_changes(api, contact):
    other = api.post("/api/contacts/new", {"email": "bob@example.com"}).json["contact"]
    moved = note(api, contact["id"], "moved")
    note(api, contact["id"], "stays")
    r = api.patch(f"/api/notes/{moved['id']}/edit", {"lead": other["id"]})
    assert r.status_code == 200, r.json
    assert texts(api, contact["id"]) == (1, ["stays"])
    assert texts(api, other["id"]) == (1, ["moved"])
    api.put(f"/api/notes/{moved['id']}/edit", {"text": "moved back", "lead": contact["id"]})
    assert texts(api, contact["id"]) == (2, ["moved back", "stays"])
    assert texts(api, other["id"]) == (0, [])


def test_a_deleted_note_leaves_the_contact_notes(api, contact):
    gone = note(api, contact["id"], "gone")
    note(api, contact["id"], "kept")
    assert api.delete(f"/api/notes/{gone['id']}/delete").status_code == 200
    assert texts(api, contact["id"]) == (1, ["kept"])


def test_contact_notes_paging_order_and_search(api, contact):
    for n, kind in enumerate(("call", "meeting", "call", "email", "call")):
        note(api, contact["id"], f"note {n} {kind}", type=kind, dateTime=f"2026-05-0{5 - n} 10:00:00")
    assert texts(api, contact["id"], "?limit=2&start=1") == (5, ["note 1 meeting", "note 2 call"])
    assert texts(api, contact["id"], "?orderBy=dateTime&limit=2")[1] == ["note 4 call", "note 3 email"]
    assert texts(api, contact["id"], "?search=call&orderBy=id&orderByDir=DESC&start=1") == (
        3,
        ["note 2 call", "note 0 call"],
    )
    assert texts(api, contact["id"], "?search=!call") == (2, ["note 1 meeting", "note 3 email"])


@contextmanager
def queried_items():
    """The API function's DynamoDB calls, by operation, and the number of items each Query returned."""
    counts = []
    with dynamodb_calls() as calls:
        counting = botocore.client.BaseClient._make_api_call

        def with_counts(self, operation, params):
            response = counting(self, operation, params)
            if self.meta.service_model.service_name == "dynamodb" and operation == "Query":
                counts.append(response["Count"])
            return response

        with mock.patch.object(botocore.client.BaseClient, "_make_api_call", with_counts):
            yield calls, counts


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_contact_notes_cost_does_not_grow_with_other_contacts_notes(api, contact):
    note(api, contact["id"], "mine")

    def cost_of_listing():
        with queried_items() as (calls, counts):
            assert texts(api, contact["id"]) == (1, ["mine"])
        return dict(calls), counts

    before = cost_of_listing()
    others = [api.post("/api/contacts/new", {"email": f"o{n}@example.com"}).json["contact"] for n in range(3)]
    for n in range(12):
        note(api, others[n % 3]["id"], f"other {n}")
    assert cost_of_listing() == before
    assert before == ({"BatchGetItem": 1, "GetItem": 2, "Query": 1}, [1])  # versions, contact, its index, its notes


def test_notes_have_the_batch_endpoints(api, contact):
    """Mautic's NoteApiController is a CommonApiController: batch/new (201), batch/edit (200) and
    batch/delete answer `{"notes": [...], "statusCodes": [...]}` by input index."""
    r = api.post(
        "/api/notes/batch/new",
        [{"text": "First", "lead": contact["id"]}, {"text": "Second", "lead": contact["id"], "type": "call"}],
    )
    assert r.status_code == 201 and r.json["statusCodes"] == [201, 201]
    first, second = r.json["notes"]
    assert (first["text"], second["type"], second["lead"]["id"]) == ("First", "call", contact["id"])
    r = api.patch("/api/notes/batch/edit", [{"id": first["id"], "text": "First, edited"}, {"id": 999, "text": "x"}])
    assert r.status_code == 200 and r.json["statusCodes"] == [200, 404]
    assert r.json["notes"][0]["text"] == "First, edited" and r.json["errors"]["1"]["code"] == 404
    r = api.delete(f"/api/notes/batch/delete?ids={first['id']},{second['id']}")
    assert r.status_code == 200 and [n["id"] for n in r.json["notes"]] == [first["id"], second["id"]]
    assert int(api.get("/api/notes").json["total"]) == 0
