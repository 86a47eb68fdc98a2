"""Side doors into others' contacts (issue 27, critical): a create that finds a duplicate, an edit
that merges, an owner given or changed, a PUT that creates, a note written on another's contact.
Each is an attack reproduced over the API by `mallory` (role "Sales": `lead:leads` viewown,
editown, create) against `victim`'s contact; each must answer 403, echo nothing of the victim's
contact and write nothing."""

import json

import pytest

from tests.api.payloads import assert_error
from tests.api.test_permissions import FORBIDDEN, _as

SALES = {"lead:leads": ["viewown", "editown", "create"]}
SECRET = ("victim@example.com", "Victoria", "+420 777 000 111")


@pytest.fixture
def victim(api):
    """Victim's contact, owned by the user `victim`; returns (Api as victim, contact)."""
    user = _as(api, "victim", SALES)
    contact = api.post(
        "/api/contacts/new", {"email": SECRET[0], "firstname": SECRET[1], "phone": SECRET[2], "owner": user.user_id}
    )
    assert contact.status_code == 201, contact.json
    return user, contact.json["contact"]


@pytest.fixture
def mallory(api):
    return _as(api, "mallory", SALES)


def _reveals_nothing(response):
    text = json.dumps(response.json)
    assert not any(secret in text for secret in SECRET), text


def _unchanged(api, contact):
    stored = api.get(f"/api/contacts/{contact['id']}")
    assert stored.status_code == 200, "the victim's contact is gone"
    fields = stored.json["contact"]["fields"]["all"]
    assert (fields["email"], fields["firstname"], fields["phone"]) == SECRET
    assert stored.json["contact"]["owner"]["id"] == contact["owner"]["id"]
    return stored.json["contact"]


def test_a_create_matching_a_strangers_email_is_refused_and_echoes_nothing(api, victim, mallory):
    owner, contact = victim
    r = mallory.post("/api/contacts/new", {"email": SECRET[0], "firstname": "Mallory", "owner": mallory.user_id})
    assert_error(r, 403, message=FORBIDDEN)
    _reveals_nothing(r)
    _unchanged(api, contact)
    assert owner.get(f"/api/contacts/{contact['id']}").status_code == 200  # still the owner's


def test_a_batch_create_matching_a_strangers_email_refuses_that_item(api, victim, mallory):
    _, contact = victim
    r = mallory.post(
        "/api/contacts/batch/new", [{"email": "own@example.com"}, {"email": SECRET[0], "firstname": "Mallory"}]
    )
    assert r.status_code == 201, r.json
    assert r.json["statusCodes"] == [201, 403]
    assert r.json["errors"] == {"1": {"message": FORBIDDEN, "code": 403, "type": "api"}}
    _reveals_nothing(r)
    _unchanged(api, contact)


def test_a_put_to_a_missing_id_matching_a_strangers_email_is_refused(api, victim, mallory):
    _, contact = victim
    r = mallory.put("/api/contacts/99999/edit", {"email": SECRET[0], "firstname": "Mallory"})
    assert_error(r, 400, field="email")  # a PUT creates: the email is taken, as for any create of a resource
    _reveals_nothing(r)
    _unchanged(api, contact)


def test_a_duplicate_the_caller_may_edit_is_updated(mallory):
    mine = mallory.post("/api/contacts/new", {"email": "mine@example.com", "firstname": "A"})
    again = mallory.post("/api/contacts/new", {"email": "mine@example.com", "firstname": "B"})
    assert again.status_code == 200, again.json
    assert again.json["contact"]["id"] == mine.json["contact"]["id"]
    assert again.json["contact"]["fields"]["all"]["firstname"] == "B"


def test_a_put_creating_a_contact_needs_create(api):
    editor = _as(api, "editor", {"lead:leads": ["viewother", "editother"]})
    before = int(api.get("/api/contacts").json["total"])
    assert_error(editor.put("/api/contacts/99999/edit", {"email": "new@example.com"}), 403, message=FORBIDDEN)
    assert int(api.get("/api/contacts").json["total"]) == before


def test_an_edit_merging_into_a_strangers_contact_is_refused(api, victim, mallory):
    """Mallory's contact is the newer: a merge would move the victim's data into hers (older wins
    the id, so she would get the victim's contact); had hers been older, the victim's would go."""
    _, contact = victim
    mine = mallory.post("/api/contacts/new", {"email": "mine@example.com", "firstname": "Mal"}).json["contact"]
    r = mallory.patch(f"/api/contacts/{mine['id']}/edit", {"email": SECRET[0]})
    assert_error(r, 403, message=FORBIDDEN)
    _reveals_nothing(r)
    _unchanged(api, contact)
    assert mallory.get(f"/api/contacts/{mine['id']}").json["contact"]["fields"]["all"]["email"] == "mine@example.com"


def test_an_older_contact_of_the_caller_cannot_swallow_a_strangers(api, mallory):
    mine = mallory.post("/api/contacts/new", {"email": "mine@example.com"}).json["contact"]
    victim = _as(api, "victim", SALES)
    theirs = victim.post("/api/contacts/new", {"email": "theirs@example.com", "firstname": "T"}).json["contact"]
    assert_error(mallory.patch(f"/api/contacts/{mine['id']}/edit", {"email": "theirs@example.com"}), 403)
    assert victim.get(f"/api/contacts/{theirs['id']}").status_code == 200  # not deleted


def test_a_merge_needs_edit_on_both_and_delete_on_the_one_that_goes(api, victim):
    _, contact = victim
    editor = _as(api, "editor", {"lead:leads": ["viewown", "viewother", "editown", "editother", "create"]})
    mine = editor.post("/api/contacts/new", {"email": "mine@example.com"}).json["contact"]
    assert_error(editor.patch(f"/api/contacts/{mine['id']}/edit", {"email": SECRET[0]}), 403)
    _unchanged(api, contact)
    merger = _as(api, "merger", {"lead:leads": ["full"]})
    merged = merger.patch(f"/api/contacts/{mine['id']}/edit", {"email": SECRET[0]})
    assert merged.status_code == 200, merged.json
    assert merged.json["contact"]["id"] == contact["id"]  # the older survives
    assert_error(api.get(f"/api/contacts/{mine['id']}"), 404)


def test_giving_or_changing_an_owner_needs_editother(api, victim, mallory):
    owner, contact = victim
    assert_error(mallory.post("/api/contacts/new", {"email": "gift@example.com", "owner": owner.user_id}), 403)
    assert int(api.get("/api/contacts?search=email:gift@example.com").json["total"]) == 0
    mine = mallory.post("/api/contacts/new", {"email": "mine@example.com"}).json["contact"]
    assert_error(mallory.patch(f"/api/contacts/{mine['id']}/edit", {"owner": owner.user_id}), 403)
    assert_error(mallory.patch(f"/api/contacts/{contact['id']}/edit", {"owner": mallory.user_id}), 403)
    _unchanged(api, contact)
    manager = _as(api, "manager", {"lead:leads": ["viewother", "editown", "editother", "create"]})
    moved = manager.patch(f"/api/contacts/{mine['id']}/edit", {"owner": owner.user_id})
    assert moved.status_code == 200 and moved.json["contact"]["owner"]["id"] == owner.user_id


def test_a_note_on_a_strangers_contact_is_refused_and_echoes_nothing(api, victim, mallory):
    _, contact = victim
    r = mallory.post("/api/notes/new", {"lead": contact["id"], "text": "hi", "type": "general"})
    assert_error(r, 403, message=FORBIDDEN)
    _reveals_nothing(r)
    assert int(api.get(f"/api/contacts/{contact['id']}/notes").json["total"]) == 0
    mine = mallory.post("/api/contacts/new", {"email": "mine@example.com"}).json["contact"]
    note = mallory.post("/api/notes/new", {"lead": mine["id"], "text": "hi", "type": "general"})
    assert note.status_code == 201, note.json
    moved = mallory.patch(f"/api/notes/{note.json['note']['id']}/edit", {"lead": contact["id"]})
    assert_error(moved, 403)
    _reveals_nothing(moved)


def test_tags_and_addresses_have_no_owner_and_follow_the_plain_permission(api, mallory):
    """Documents without a creator are nobody's: any variant of the permission will do (Mautic)."""
    tag = api.post("/api/tags/new", {"tag": "vip"}).json["tag"]
    address = api.post("/api/addresses/new", {"company_name": "Acme", "city": "Brno"}).json["address"]
    assert mallory.get(f"/api/tags/{tag['id']}").status_code == 200
    assert mallory.get(f"/api/addresses/{address['id']}").status_code == 200
    assert str(tag["id"]) in mallory.get("/api/tags").json["tags"]  # keyed by id
    reader = _as(api, "reader", {"report:reports": ["viewown"]})
    assert_error(reader.get(f"/api/tags/{tag['id']}"), 403)
