"""Devices (`/api/devices`): the devices recorded on contacts (UTM add, public hits) listed and
read with their ids, written through the API on their contact, and `GET /contacts/<id>/devices`
consistent with them."""

from tests.api.payloads import assert_error

IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.4 Mobile/15E148 Safari/604.1"
)
FIELDS = {
    "clientInfo",
    "device",
    "deviceBrand",
    "deviceModel",
    "deviceOsName",
    "deviceOsShortName",
    "deviceOsVersion",
    "deviceOsPlatform",
    "deviceFingerprint",
    "dateAdded",
}


def _contact(api, email="ann@example.com"):
    return api.post("/api/contacts/new", {"email": email}).json["contact"]


def _of_contact(api, contact_id):
    return api.get(f"/api/contacts/{contact_id}/devices").json["devices"]


def test_recorded_devices_are_listed_and_read_by_id(api):
    contact = _contact(api)
    api.post(f"/api/contacts/{contact['id']}/utm/add", {"useragent": IPHONE})
    listing = api.get("/api/devices").json
    assert int(listing["total"]) == 1 and isinstance(listing["devices"], list)
    device = listing["devices"][0]
    assert set(device) == FIELDS | {"id", "lead"}
    assert device["lead"]["id"] == contact["id"] and "fields" in device["lead"]
    assert (device["device"], device["deviceModel"]) == ("smartphone", "iPhone")
    assert api.get(f"/api/devices/{device['id']}").json["device"] == device
    assert [d["id"] for d in _of_contact(api, contact["id"])] == [device["id"]]
    assert_error(api.get("/api/devices/999"), 404)


def test_create_needs_an_existing_contact_and_writes_nothing_otherwise(api):
    assert_error(api.post("/api/devices/new", {"device": "desktop"}), 400, field="lead")
    assert_error(api.post("/api/devices/new", {"lead": 77, "device": "desktop"}), 400, field="lead")
    assert api.get("/api/devices").json == {"total": 0, "devices": []}
    contact = _contact(api)
    created = api.post("/api/devices/new", {"contact": contact["id"], "device": "desktop", "deviceOsName": "Linux"})
    assert created.status_code == 201, created.json
    device = created.json["device"]
    assert device["lead"]["id"] == contact["id"] and device["deviceOsName"] == "Linux" and device["dateAdded"]
    assert created.headers["Location"].endswith(f"/api/devices/{device['id']}")
    assert _of_contact(api, contact["id"])[0]["deviceOsName"] == "Linux"
    assert int(api.get("/api/devices").json["total"]) == 1


def test_edit_and_move_to_another_contact(api):
    first, second = _contact(api), _contact(api, "bob@example.com")
    device = api.post("/api/devices/new", {"lead": first["id"], "device": "tablet"}).json["device"]
    patched = api.patch(f"/api/devices/{device['id']}/edit", {"deviceBrand": "Apple"}).json["device"]
    assert (patched["device"], patched["deviceBrand"]) == ("tablet", "Apple")
    assert _of_contact(api, first["id"])[0]["deviceBrand"] == "Apple"
    moved = api.patch(f"/api/devices/{device['id']}/edit", {"lead": second["id"]}).json["device"]
    assert moved["lead"]["id"] == second["id"] and moved["id"] == device["id"]
    assert _of_contact(api, first["id"]) == [] and [d["id"] for d in _of_contact(api, second["id"])] == [device["id"]]
    assert int(api.get("/api/devices").json["total"]) == 1
    assert_error(api.patch("/api/devices/999/edit", {"device": "x"}), 404)
    put = api.put("/api/devices/999/edit", {"lead": first["id"], "device": "desktop"})
    assert put.status_code == 201 and put.json["device"]["device"] == "desktop"


def test_delete_and_contact_delete_remove_devices(api):
    contact = _contact(api)
    kept = api.post("/api/devices/new", {"lead": contact["id"], "device": "desktop"}).json["device"]
    dropped = api.post("/api/devices/new", {"lead": contact["id"], "device": "smartphone"}).json["device"]
    gone = api.delete(f"/api/devices/{dropped['id']}/delete")
    assert gone.status_code == 200 and gone.json["device"]["id"] is None
    assert [d["id"] for d in _of_contact(api, contact["id"])] == [kept["id"]]
    assert_error(api.get(f"/api/devices/{dropped['id']}"), 404)
    api.delete(f"/api/contacts/{contact['id']}/delete")
    assert api.get("/api/devices").json == {"total": 0, "devices": []}


def test_batch_and_search(api):
    contact = _contact(api)
    batch = api.post("/api/devices/batch/new", [{"lead": contact["id"], "device": "desktop"}, {"device": "x"}])
    assert batch.status_code == 201 and batch.json["statusCodes"] == [201, 400]
    found = api.get("/api/devices?search=desktop").json
    assert int(found["total"]) == 1 and found["devices"][0]["device"] == "desktop"


def test_merged_contacts_keep_their_devices(api):
    older, newer = _contact(api), _contact(api, "other@example.com")
    api.post("/api/devices/new", {"lead": older["id"], "device": "desktop"})
    moving = api.post("/api/devices/new", {"lead": newer["id"], "device": "smartphone"}).json["device"]
    api.patch(f"/api/contacts/{newer['id']}/edit", {"email": "ann@example.com"})  # merges into the older one
    assert api.get(f"/api/devices/{moving['id']}").json["device"]["lead"]["id"] == older["id"]
    assert int(api.get("/api/devices").json["total"]) == 2
    assert len(_of_contact(api, older["id"])) == 2
