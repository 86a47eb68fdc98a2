"""Issue 9, anonymous visitors: a new visitor of a landing page, the tracking pixel or an asset
download becomes an anonymous contact, tracked by the `mtc_id` cookie from then on; bots do not."""

import pytest

from tests.api.test_files_assets import make_local_asset
from tests.api.test_pages_public import fetch, make_page
from tests.bench.conftest import dynamodb_calls
from tests.conftest import set_cookies, visitor_cookie

BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
BOTS = [
    {"User-Agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"},
    {"User-Agent": "curl/8.5.0"},
    {"User-Agent": "python-requests/2.32.3"},
    {},
    {"User-Agent": BROWSER, "Sec-Purpose": "prefetch"},
]


def browse(api, path, cookie=None, **headers):
    sent = dict({"User-Agent": BROWSER, "Accept": "*/*"}, **headers)
    if cookie is not None:
        sent["Cookie"] = visitor_cookie(cookie)
    return fetch(api, path, sent)


def cookie_of(response):
    """The contact id the response's cookies name (Mautic's bare id and the signed visitor token)."""
    values = response.headers["Set-Cookie"]
    assert all("Path=/" in value and "Max-Age=" in value for value in values), values
    cookies = set_cookies(response)
    assert cookies["mtc_sid"].split(".")[0] == cookies["mtc_id"]
    return int(cookies["mtc_id"])


def contacts(api, search=""):
    return api.get(f"/api/contacts?search={search}").json


def activity(api, contact_id, event):
    return [e for e in api.get(f"/api/contacts/{contact_id}/activity").json["events"] if e["event"] == event]


def test_first_visit_creates_an_anonymous_contact_and_sets_the_cookie(api, source_ip):
    page = make_page(api)
    source_ip("203.0.113.7")
    response = browse(api, "/spring-offer", **{"X-Forwarded-For": "198.51.100.1"})  # a client's claim: ignored
    assert response.status_code == 200 and response.body.decode() == "<h1>Hi friend</h1>"
    contact_id = cookie_of(response)
    listed = contacts(api)
    assert int(listed["total"]) == 1 and str(contact_id) in listed["contacts"]
    contact = api.get(f"/api/contacts/{contact_id}").json["contact"]
    assert contact["dateIdentified"] is None and contact["lastActive"] and contact["createdBy"] is None
    assert contact["fields"]["all"]["email"] is None and contact["fields"]["all"]["firstname"] is None
    assert [ip["ipAddress"] for ip in contact["ipAddresses"]] == ["203.0.113.7"]
    (hit,) = activity(api, contact_id, "page.hit")
    assert hit["details"]["page"]["id"] == page["id"]
    counted = api.get(f"/api/pages/{page['id']}").json["page"]
    assert counted["hits"] == 1 and counted["uniqueHits"] == 1


def test_a_visit_with_the_cookie_is_the_same_contact(api):
    page = make_page(api)
    contact_id = cookie_of(browse(api, "/spring-offer"))
    again = browse(api, "/spring-offer", cookie=contact_id)
    assert again.status_code == 200 and cookie_of(again) == contact_id
    assert int(contacts(api)["total"]) == 1
    assert len(activity(api, contact_id, "page.hit")) == 2
    counted = api.get(f"/api/pages/{page['id']}").json["page"]
    assert counted["hits"] == 2 and counted["uniqueHits"] == 1


@pytest.mark.parametrize("headers", BOTS, ids=["googlebot", "curl", "python-requests", "no-user-agent", "prefetch"])
def test_bots_and_prefetches_create_no_contact(api, headers):
    page = make_page(api)
    response = fetch(api, "/spring-offer", headers)
    assert response.status_code == 200 and "Set-Cookie" not in response.headers
    pixel = fetch(api, "/mtracking.gif?page_url=https%3A%2F%2Fsite.example%2F", dict(headers, Accept="*/*"))
    assert pixel.status_code == 200 and "Set-Cookie" not in pixel.headers
    assert int(contacts(api)["total"]) == 0
    assert api.get(f"/api/pages/{page['id']}").json["page"]["hits"] == 1


def test_guzzle_is_tracked_as_mautic_tracks_it(api):
    """Mautic's bot list has no Guzzle: the api-library's ContactsTest::testGetActivityAdvanced hits the
    pixel with Guzzle's User-Agent and no Accept header, then finds a `page.hit` in all contacts' activity."""
    pixel = fetch(api, "/mtracking.gif?url=http%3A%2F%2Fmautic.org", {"User-Agent": "GuzzleHttp/7"})
    assert pixel.status_code == 200 and pixel.body.startswith(b"GIF89a")
    contact_id = cookie_of(pixel)
    (hit,) = activity(api, contact_id, "page.hit")
    assert hit["details"]["url"] == "http://mautic.org"
    every = api.get("/api/contacts/activity?filters[includeEvents][]=page.hit").json["events"]
    assert [e["event"] for e in every] == ["page.hit"] and every[0]["contactId"] == contact_id


def test_a_cookie_naming_no_contact_is_a_new_visitor(api):
    make_page(api)
    gone = api.post("/api/contacts/new", {"email": "gone@example.com"}).json["contact"]["id"]
    api.delete(f"/api/contacts/{gone}/delete")
    for stale in (gone, 999):
        contact_id = cookie_of(browse(api, "/spring-offer", cookie=stale))
        assert contact_id not in (gone, 999)
        assert len(activity(api, contact_id, "page.hit")) == 1
    assert int(contacts(api)["total"]) == 2


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_the_pixel_scores_a_new_visitor_in_the_creating_write(api):
    api.post(
        "/api/points/new",
        {
            "name": "Pricing",
            "type": "url.hit",
            "delta": 4,
            "repeatable": True,
            "properties": {"page_url": "https://site.example/pricing*"},
        },
    )
    with dynamodb_calls() as calls:
        pixel = browse(api, "/mtracking.gif?page_url=https%3A%2F%2Fsite.example%2Fpricing%3Futm_source%3Dads")
    assert pixel.status_code == 200 and pixel.body.startswith(b"GIF89a")
    assert calls["TransactWriteItems"] == 1 and not calls["PutItem"]  # the contact, its hit and its points
    contact_id = cookie_of(pixel)
    contact = api.get(f"/api/contacts/{contact_id}").json["contact"]
    assert contact["points"] == 4 and contact["dateIdentified"] is None
    assert contact["utmtags"][0]["utmSource"] == "ads" and contact["utmtags"][0]["userAgent"] == BROWSER
    (hit,) = activity(api, contact_id, "page.hit")
    assert hit["details"]["url"] == "https://site.example/pricing?utm_source=ads"
    assert len(activity(api, contact_id, "point.gained")) == 1
    assert browse(api, "/mtracking.gif", cookie=contact_id).headers.get("Set-Cookie") is None  # no URL: no hit


def test_an_asset_download_creates_the_visitor_and_counts_once(api):
    asset, _ = make_local_asset(api)
    first = browse(api, f"/asset/{asset['id']}")
    assert first.status_code == 200
    contact_id = cookie_of(first)
    browse(api, f"/asset/{asset['id']}", cookie=contact_id)
    assert len(activity(api, contact_id, "asset.download")) == 2 and int(contacts(api)["total"]) == 1
    counted = api.get(f"/api/assets/{asset['id']}").json["asset"]
    assert counted["downloadCount"] == 2 and counted["uniqueDownloadCount"] == 1


def test_anonymous_contacts_are_listed_and_found_by_is_anonymous(api):
    make_page(api)
    known = api.post("/api/contacts/new", {"email": "pia@example.com"}).json["contact"]["id"]
    visitor = cookie_of(browse(api, "/spring-offer"))
    assert int(contacts(api)["total"]) == 2
    assert list(contacts(api, "is:anonymous")["contacts"]) == [str(visitor)]
    assert list(contacts(api, "!is:anonymous")["contacts"]) == [str(known)]


def test_a_new_visitor_fires_page_hit_but_not_contact_identified(api, drain, receiver, configure):
    configure(WEBHOOK_RETRY_DELAYS=(0, 0))
    make_page(api)
    assert (
        api.post(
            "/api/hooks/new",
            {
                "name": "Receiver",
                "webhookUrl": receiver.url,
                "triggers": ["mautic.lead_post_save_new", "mautic.lead_post_save_update", "mautic.page_on_hit"],
            },
        ).status_code
        == 201
    )
    visitor = cookie_of(browse(api, "/spring-offer"))
    browse(api, "/spring-offer", cookie=visitor)
    drain()
    assert [list(r.json) for r in receiver.received] == [["mautic.page_on_hit"], ["mautic.page_on_hit"]]
    assert receiver.received[0].json["mautic.page_on_hit"][0]["hit"]["lead"]["id"] == visitor


def test_a_visitors_devices_are_recorded_once_each(api):
    make_page(api)
    phone = (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
        "Version/17.0 Mobile/15E148 Safari/604.1"
    )
    contact_id = cookie_of(browse(api, "/spring-offer"))
    browse(api, "/spring-offer", cookie=contact_id)
    browse(api, "/spring-offer", cookie=contact_id, **{"User-Agent": phone})
    devices = api.get(f"/api/contacts/{contact_id}/devices").json
    assert int(devices["total"]) == 2
    assert [(d["device"], d["deviceBrand"]) for d in devices["devices"]][1] == ("smartphone", "Apple")
