"""Issue 17: references to other documents come back as Mautic's serializer nests them (the
referenced entity's list properties, its category as an object), are written as ids or objects
with `id`, and a page of documents reads what it references in a constant number of calls."""

import pytest

from tests.api.payloads import make
from tests.bench.conftest import dynamodb_calls

CATEGORY_KEYS = {"id", "title", "alias", "description", "color", "bundle"}


def _world(api):
    category = make(api, "categories", {"title": "News", "bundle": "global"})
    segment = make(
        api,
        "segments",
        {"name": "Prague", "publicName": "Prague people", "description": "d", "category": category["id"]},
    )
    asset = make(
        api,
        "assets",
        {
            "title": "Guide",
            "storageLocation": "remote",
            "file": "https://example.com/g.pdf",
            "description": "The guide",
        },
    )
    form = make(api, "forms", {"name": "Unsubscribe", "category": category["id"]})
    return category, segment, asset, form


def test_an_email_shows_its_segments_attachments_and_form_as_objects(api):
    category, segment, asset, form = _world(api)
    email = make(
        api,
        "emails",
        {
            "name": "News",
            "subject": "Hi",
            "emailType": "list",
            "lists": [segment["id"]],
            "assetAttachments": [asset["id"]],
            "unsubscribeForm": form["id"],
            "category": category["id"],
        },
    )
    shown = api.get(f"/api/emails/{email['id']}").json["email"]
    for email_view in (email, shown):
        (listed,) = email_view["lists"]
        assert set(listed) == {"id", "name", "publicName", "alias", "description", "category"}
        assert (listed["id"], listed["name"], listed["publicName"], listed["alias"]) == (
            segment["id"],
            "Prague",
            "Prague people",
            segment["alias"],
        )
        assert set(listed["category"]) == CATEGORY_KEYS and listed["category"]["id"] == category["id"]
        assert email_view["assetAttachments"] == [
            {"id": asset["id"], "title": "Guide", "alias": asset["alias"], "category": None, "description": "The guide"}
        ]
        assert email_view["unsubscribeForm"]["id"] == form["id"]
        assert email_view["unsubscribeForm"]["category"]["title"] == "News"
        assert email_view["category"]["id"] == category["id"]
    listed = api.get("/api/emails").json["emails"][str(email["id"])]
    assert listed["lists"][0]["id"] == segment["id"]


def test_references_are_written_as_ids_or_objects_with_an_id(api):
    _, segment, _, form = _world(api)
    other = make(api, "segments", {"name": "Brno"})
    email = make(
        api,
        "emails",
        {
            "name": "News",
            "emailType": "list",
            "lists": [{"id": segment["id"], "name": "ignored"}],
            "unsubscribeForm": {"id": form["id"]},
        },
    )
    assert [s["id"] for s in email["lists"]] == [segment["id"]]
    edited = api.patch(f"/api/emails/{email['id']}/edit", {"lists": [other["id"], {"id": segment["id"]}]})
    assert [s["id"] for s in edited.json["email"]["lists"]] == [other["id"], segment["id"]]
    again = api.put(f"/api/emails/{email['id']}/edit", dict(edited.json["email"], name="Resent"))
    assert again.status_code == 200
    assert [s["id"] for s in again.json["email"]["lists"]] == [other["id"], segment["id"]]
    assert again.json["email"]["unsubscribeForm"]["id"] == form["id"]


def test_automations_pages_companies_and_notes_nest_their_references(api):
    category, segment, _, form = _world(api)
    automation = make(api, "automations", {"name": "Flow", "lists": [segment["id"]], "forms": [form["id"]]})
    assert automation["lists"][0]["publicName"] == "Prague people"
    assert automation["forms"] == [
        {
            "id": form["id"],
            "name": "Unsubscribe",
            "alias": form["alias"],
            "category": automation["lists"][0]["category"],
        }
    ]
    parent = make(api, "pages", {"title": "Home", "category": category["id"]})
    child = make(api, "pages", {"title": "Domov", "language": "cs", "translationParent": parent["id"]})
    assert child["translationParent"] == {
        "id": parent["id"],
        "title": "Home",
        "alias": parent["alias"],
        "category": parent["category"],
    }
    company = make(api, "companies", {"companyname": "Acme", "owner": 1})
    assert company["owner"] == {"id": 1, "username": "admin", "firstName": "Admin", "lastName": "User"}
    contact = api.post("/api/contacts/new", {"email": "ann@example.com"}).json["contact"]
    note = api.post("/api/notes/new", {"text": "Called", "lead": contact["id"]}).json["note"]
    assert note["lead"]["id"] == contact["id"] and note["lead"]["fields"]["all"]["email"] == "ann@example.com"


@pytest.mark.aws  # counts DynamoDB calls: over moto
def test_a_page_of_emails_reads_its_references_in_constant_calls(api):
    category, segment, asset, form = _world(api)

    def listing_calls():
        with dynamodb_calls() as calls:
            assert api.get("/api/emails?limit=100").status_code == 200
        return calls["BatchGetItem"]

    make(api, "emails", {"name": "E0", "emailType": "list", "lists": [segment["id"]], "category": category["id"]})
    few = listing_calls()
    segments = [make(api, "segments", {"name": f"S{n}", "category": category["id"]})["id"] for n in range(6)]
    for n in range(8):
        make(
            api,
            "emails",
            {
                "name": f"E{n + 1}",
                "emailType": "list",
                "lists": segments[n % 6 :],
                "assetAttachments": [asset["id"]],
                "unsubscribeForm": form["id"],
                "category": category["id"],
            },
        )
    assert listing_calls() == few  # versions, the referenced documents, their categories
