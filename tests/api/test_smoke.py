def test_create_and_get_email(api):
    r = api.post("/api/emails/new", {"name": "Hello", "subject": "Hi"})
    assert r.status_code == 201, r.json
    email = r.json["email"]
    assert r.headers["Location"].endswith(f"/api/emails/{email['id']}")
    r = api.get(f"/api/emails/{email['id']}")
    assert r.status_code == 200 and r.json["email"]["subject"] == "Hi"
    r = api.get("/api/emails")
    assert int(r.json["total"]) == 1 and str(email["id"]) in r.json["emails"]


def test_contact_fields(api):
    r = api.post("/api/contacts/new", {"email": "a@b.co", "firstname": "Ann"})
    assert r.status_code == 201, r.json
    c = r.json["contact"]
    assert c["fields"]["all"]["email"] == "a@b.co"
    assert c["fields"]["core"]["firstname"]["value"] == "Ann"
    assert c["fields"]["personal"] == []
