"""Contact actions and what they leave on the timeline: points, do-not-contact, UTM, tags, IPs."""

import pytest


@pytest.fixture
def contact(api):
    r = api.post("/api/contacts/new", {"email": "ann@example.com", "firstname": "Ann"})
    assert r.status_code == 201
    return r.json["contact"]


def get(api, contact_id):
    return api.get(f"/api/contacts/{contact_id}").json["contact"]


def events(api, contact_id, query=""):
    r = api.get(f"/api/contacts/{contact_id}/activity{query}")
    assert r.status_code == 200, r.json
    return r.json


@pytest.mark.parametrize(
    "operator, delta, expected", [("plus", 5, 15), ("minus", 3, 7), ("times", 3, 30), ("divide", 3, 3)]
)
def test_points_operators(api, contact, operator, delta, expected):
    api.post(f"/api/contacts/{contact['id']}/points/plus/10")
    r = api.post(f"/api/contacts/{contact['id']}/points/{operator}/{delta}", {"eventName": "Webinar"})
    assert r.status_code == 200 and r.json == {"success": 1}
    assert get(api, contact["id"])["points"] == expected
    assert get(api, contact["id"])["fields"]["all"]["points"] == expected


def test_points_errors_and_no_op(api, contact):
    assert api.post("/api/contacts/999/points/plus/5").status_code == 404
    r = api.post(f"/api/contacts/{contact['id']}/points/set/5")
    assert r.status_code == 400 and "Invalid operator" in r.json["errors"][0]["message"]
    assert api.post(f"/api/contacts/{contact['id']}/points/plus/x").status_code == 400
    assert api.post(f"/api/contacts/{contact['id']}/points/plus/0").status_code == 200
    assert int(events(api, contact["id"], "?filters[includeEvents][]=point.gained")["total"]) == 0


def test_points_leave_a_point_gained_event(api, contact):
    api.post(f"/api/contacts/{contact['id']}/points/plus/7", {"eventName": "Webinar", "actionName": "Attended"})
    timeline = events(api, contact["id"], "?filters[includeEvents][]=point.gained")
    assert int(timeline["total"]) == 1
    event = timeline["events"][0]
    assert event["event"] == "point.gained" and event["eventLabel"] == "Webinar"
    assert event["eventId"].startswith("point.gained") and event["contactId"] == contact["id"]
    assert event["details"]["delta"] == 7 and event["details"]["newPoints"] == 7
    assert event["details"]["action"] == "Attended"


def test_do_not_contact_add_and_remove(api, contact):
    r = api.post(f"/api/contacts/{contact['id']}/dnc/email/add", {"reason": 1, "comments": "asked"})
    assert r.status_code == 200
    entries = r.json["contact"]["doNotContact"]
    assert len(entries) == 1 and entries[0]["channel"] == "email" and entries[0]["reason"] == 1
    assert entries[0]["comments"] == "asked" and entries[0]["id"] and entries[0]["dateAdded"]
    r = api.post(f"/api/contacts/{contact['id']}/dnc/sms/add")
    assert {e["channel"]: e["reason"] for e in r.json["contact"]["doNotContact"]} == {"email": 1, "sms": 3}
    r = api.post(f"/api/contacts/{contact['id']}/dnc/email/remove")
    assert [e["channel"] for e in r.json["contact"]["doNotContact"]] == ["sms"]
    assert int(events(api, contact["id"], "?filters[includeEvents][]=lead.donotcontact")["total"]) == 3
    assert api.post(f"/api/contacts/{contact['id']}/dnc/email/add", {"reason": 9}).status_code == 400
    assert api.post("/api/contacts/999/dnc/email/add").status_code == 404


def test_utm_add_and_remove(api, contact):
    r = api.post(
        f"/api/contacts/{contact['id']}/utm/add",
        {
            "utm_campaign": "spring",
            "utm_source": "news",
            "query": "a=1&b=2",
            "useragent": "Firefox",
            "lastActive": "2026-03-01T10:00:00+02:00",
        },
    )
    assert r.status_code == 200
    tag = r.json["contact"]["utmtags"][0]
    assert tag["utmCampaign"] == "spring" and tag["utmSource"] == "news" and tag["userAgent"] == "Firefox"
    assert tag["query"] == {"a": "1", "b": "2"}
    assert r.json["contact"]["lastActive"] == "2026-03-01T08:00:00+00:00"
    assert int(events(api, contact["id"], "?filters[includeEvents][]=lead.utmtagsadded")["total"]) == 1
    r = api.post(f"/api/contacts/{contact['id']}/utm/{tag['id']}/remove")
    assert r.status_code == 200 and r.json["contact"]["utmtags"] == []
    assert api.post(f"/api/contacts/{contact['id']}/utm/{tag['id']}/remove").status_code == 404


IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.4 Mobile/15E148 Safari/604.1"
)
WINDOWS_CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
)
WINDOWS_FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0"
IPAD = (
    "Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 "
    "Mobile/15E148 Safari/604.1"
)


def devices(api, contact_id):
    r = api.get(f"/api/contacts/{contact_id}/devices")
    assert r.status_code == 200, r.json
    assert int(r.json["total"]) == len(r.json["devices"])
    return r.json["devices"]


def test_utm_user_agents_record_each_device_once(api, contact):
    assert devices(api, contact["id"]) == []
    for agent, when in (
        (IPHONE, "2026-03-01T10:00:00+00:00"),
        (WINDOWS_CHROME, None),
        (IPHONE, None),
        (WINDOWS_FIREFOX, None),
        (IPAD, None),
    ):
        r = api.post(
            f"/api/contacts/{contact['id']}/utm/add",
            dict({"utm_campaign": "spring", "useragent": agent}, **({"lastActive": when} if when else {})),
        )
        assert r.status_code == 200, r.json
    phone, desktop, tablet = devices(api, contact["id"])
    assert phone == {
        "id": phone["id"],
        "lead": contact["id"],
        "clientInfo": {"name": "Mobile Safari", "version": "17.4"},
        "device": "smartphone",
        "deviceBrand": "Apple",
        "deviceModel": "iPhone",
        "deviceOsName": "iOS",
        "deviceOsShortName": None,
        "deviceOsVersion": "17.4",
        "deviceOsPlatform": None,
        "deviceFingerprint": None,
        "dateAdded": "2026-03-01T10:00:00+00:00",
    }
    assert (desktop["device"], desktop["deviceOsName"], desktop["clientInfo"]["name"]) == (
        "desktop",
        "Windows",
        "Chrome",
    )
    assert (tablet["device"], tablet["deviceModel"]) == ("tablet", "iPad")
    assert len({phone["id"], desktop["id"], tablet["id"]}) == 3
    assert int(events(api, contact["id"], "?filters[includeEvents][]=lead.utmtagsadded")["total"]) == 5
    assert "devices" not in get(api, contact["id"])
    assert api.post(f"/api/contacts/{contact['id']}/utm/add", {"utm_source": "x"}).status_code == 200
    assert len(devices(api, contact["id"])) == 3
    assert api.get("/api/contacts/999/devices").status_code == 404


def test_devices_survive_a_put_of_the_contact(api, contact):
    api.post(f"/api/contacts/{contact['id']}/utm/add", {"useragent": IPHONE})
    assert api.put(f"/api/contacts/{contact['id']}/edit", {"email": "ann@example.com"}).status_code == 200
    assert [d["deviceModel"] for d in devices(api, contact["id"])] == ["iPhone"]


def test_tags_are_added_and_removed_with_a_dash(api, contact):
    r = api.patch(f"/api/contacts/{contact['id']}/edit", {"tags": ["vip", "lead", "vip"]})
    assert sorted(t["tag"] for t in r.json["contact"]["tags"]) == ["lead", "vip"]
    assert all(t["id"] for t in r.json["contact"]["tags"])
    r = api.patch(f"/api/contacts/{contact['id']}/edit", {"tags": ["-vip", "new"]})
    assert sorted(t["tag"] for t in r.json["contact"]["tags"]) == ["lead", "new"]
    assert sorted(t["tag"] for t in api.get("/api/tags").json["tags"].values()) == ["lead", "new", "vip"]
    r = api.patch(f"/api/contacts/{contact['id']}/edit", {"tags": "-lead,other"})
    assert sorted(t["tag"] for t in r.json["contact"]["tags"]) == ["new", "other"]
    r = api.patch(f"/api/contacts/{contact['id']}/edit", {"tags": [{"bad": 1}]})
    assert r.status_code == 400 and "tags" in r.json["errors"][0]["details"]


def test_ip_address_is_recorded_once_and_validated(api, contact):
    for _ in range(2):
        r = api.patch(f"/api/contacts/{contact['id']}/edit", {"ipAddress": "203.0.113.9"})
    addresses = r.json["contact"]["ipAddresses"]
    assert [a["ipAddress"] for a in addresses] == ["203.0.113.9"] and addresses[0]["id"]
    assert "city" in addresses[0]["ipDetails"]
    r = api.patch(f"/api/contacts/{contact['id']}/edit", {"ipAddress": "not-an-ip"})
    assert r.status_code == 400 and "ipAddress" in r.json["errors"][0]["details"]


def test_identification_is_on_the_timeline(api, contact):
    timeline = events(api, contact["id"])
    assert [e["event"] for e in timeline["events"]] == ["lead.identified"]
    r = api.post("/api/contacts/new", {"city": "Brno"})
    assert int(events(api, r.json["contact"]["id"])["total"]) == 0


def test_activity_filters_order_and_paging(api, contact):
    for n in range(5):
        api.post(f"/api/contacts/{contact['id']}/points/plus/{n + 1}", {"eventName": f"step {n}"})
    api.post(f"/api/contacts/{contact['id']}/dnc/email/add")
    everything = events(api, contact["id"])
    assert int(everything["total"]) == 7 and everything["order"] == ["timestamp", "DESC"]
    assert everything["events"][0]["event"] == "lead.donotcontact"
    assert {"events", "filters", "order", "types", "total", "page", "limit", "maxPages"} <= set(everything)
    assert everything["types"]["point.gained"] == "Point gained"
    page = events(api, contact["id"], "?limit=2&page=2&filters[includeEvents][]=point.gained")
    assert int(page["total"]) == 5 and page["maxPages"] == 3 and len(page["events"]) == 2 and page["page"] == 2
    excluded = events(api, contact["id"], "?filters[excludeEvents][]=point.gained")
    assert [e["event"] for e in excluded["events"]] == ["lead.donotcontact", "lead.identified"]
    found = events(api, contact["id"], "?filters[search]=step 3")
    assert int(found["total"]) == 1 and found["events"][0]["eventLabel"] == "step 3"
    by_label = events(api, contact["id"], "?order[0]=eventLabel&order[1]=ASC&filters[includeEvents][]=point.gained")
    assert [e["eventLabel"] for e in by_label["events"]][:2] == ["step 0", "step 1"]
    assert int(events(api, contact["id"], "?filters[dateFrom]=2999-01-01 00:00:00")["total"]) == 0
    assert int(events(api, contact["id"], "?filters[dateTo]=2999-01-01 00:00:00")["total"]) == 7
    assert api.get(f"/api/contacts/{contact['id']}/activity?filters[dateFrom]=soon").status_code == 400
    deprecated = api.get(f"/api/contacts/{contact['id']}/events")
    assert deprecated.status_code == 200 and int(deprecated.json["total"]) == 7
    assert api.get("/api/contacts/999/activity").status_code == 404


def test_timelines_are_per_contact(api, contact):
    other = api.post("/api/contacts/new", {"email": "bob@example.com"}).json["contact"]
    api.post(f"/api/contacts/{other['id']}/points/plus/1")
    assert int(events(api, contact["id"], "?filters[includeEvents][]=point.gained")["total"]) == 0
    assert int(events(api, other["id"], "?filters[includeEvents][]=point.gained")["total"]) == 1


def test_company_membership(api, contact):
    acme = api.post("/api/companies/new", {"companyname": "Acme", "companycity": "Brno"}).json["company"]
    globex = api.post("/api/companies/new", {"companyname": "Globex"}).json["company"]
    for company in (acme, globex):
        r = api.post(
            f"/api/companies/{company['id']}/contact/{contact['id']}/add",
            raw=b"[]",
            headers={"Content-Type": "application/json"},
        )
        assert r.status_code == 200 and r.json == {"success": 1}
    linked = api.get(f"/api/contacts/{contact['id']}/companies").json
    assert int(linked["total"]) == 2
    assert [(c["companyname"], c["is_primary"]) for c in linked["companies"]] == [("Acme", 1), ("Globex", 0)]
    assert linked["companies"][0]["companycity"] == "Brno" and linked["companies"][0]["date_associated"]
    assert get(api, contact["id"])["fields"]["all"]["company"] == "Acme"
    api.post(f"/api/companies/{acme['id']}/contact/{contact['id']}/remove")
    linked = api.get(f"/api/contacts/{contact['id']}/companies").json
    assert [(c["companyname"], c["is_primary"]) for c in linked["companies"]] == [("Globex", 1)]
    assert get(api, contact["id"])["fields"]["all"]["company"] == "Globex"
    assert api.post(f"/api/companies/999/contact/{contact['id']}/add").status_code == 404
    assert api.post(f"/api/companies/{acme['id']}/contact/999/add").status_code == 404


def test_contact_field_list_is_keyed_by_id(api):
    r = api.get("/api/contacts/list/fields")
    assert r.status_code == 200
    by_alias = {f["alias"]: (key, f) for key, f in r.json.items()}
    key, email = by_alias["email"]
    assert key == str(email["id"]) and email["type"] == "email" and email["isUniqueIdentifier"] is True
    assert len(by_alias) == 28


def test_tag_and_owner_search_commands(api, contact):
    from chalicelib.auth import users

    jane = users.create_user("jane", "jane-password-1", "Jane", "Doe")
    api.patch(f"/api/contacts/{contact['id']}/edit", {"tags": ["vip"], "owner": jane["id"]})
    other = api.post("/api/contacts/new", {"email": "bob@example.com", "tags": ["lead"]}).json["contact"]

    def found(search):
        r = api.get(f"/api/contacts?search={search}")
        assert r.status_code == 200, r.json
        return sorted(int(i) for i in r.json["contacts"])

    assert found("tag:vip") == [contact["id"]]
    assert found("tag:VIP") == [contact["id"]]
    assert found("!tag:vip") == [other["id"]]
    assert found("tag:vi") == []
    assert found("owner:jane") == [contact["id"]] and found("owner:Do") == [contact["id"]]
    assert found("owner:bob") == []


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_owners_of_a_page_are_fetched_in_one_call(api):
    from chalicelib.auth import users
    from tests.bench.conftest import dynamodb_calls

    owners = [users.create_user(f"owner{n}", "owner-password", f"O{n}", "Wner")["id"] for n in range(3)]
    for n in range(6):
        api.post("/api/contacts/new", {"email": f"c{n}@example.com", "owner": owners[n % 3]})
    with dynamodb_calls() as calls:
        r = api.get("/api/contacts")
    assert {c["owner"]["username"] for c in r.json["contacts"].values()} == {"owner0", "owner1", "owner2"}
    assert calls["BatchGetItem"] == 2  # the count's shards (total), every owner of the page (versions: one GetItem)
