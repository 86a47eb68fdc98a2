"""Issue 41, what a website embeds: the tracking script `/mtc.js`, its page views (`POST /mtc/event`,
as MauticJS sends them) recorded on the visitor's contact, the visitor lookup `/mtc`, Mautic's CORS
rules for the sites it allows, and cookies a third-party page keeps."""

from urllib.parse import urlencode

import pytest

from tests.api.test_permissions import _as
from tests.conftest import set_cookies

BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"
SITE = "http://shop.example"
VIEW = {
    "page_title": "Pricing",
    "page_language": "fr-FR",
    "preferred_locale": "fr_FR",
    "page_referrer": "search.example",
    "page_url": "https://shop.example/pricing?utm_source=ads&utm_campaign=spring",
    "counter": "0",
    "timezone_offset": "-60",
    "resolution": "1920x1080",
    "platform": "Linux",
    "do_not_track": "false",
    "timezone": "Europe/Paris",
}


@pytest.fixture
def allowed(configure):

    configure(CORS_VALID_DOMAINS=("http://*.example",))


def event(api, params=None, headers=None):
    base = {"User-Agent": BROWSER, "Content-Type": "application/x-www-form-urlencoded", "Origin": SITE}
    body = urlencode(dict(VIEW, **(params or {}))).encode()
    response = api.http.request("POST", "/mtc/event", headers=dict(base, **(headers or {})), body=body)
    response.json = __import__("json").loads(response.body)
    return response


def hits(api, contact_id):
    events = api.get(f"/api/contacts/{contact_id}/activity").json["events"]
    return [e for e in events if e["event"] == "page.hit"]


def test_the_script_names_the_services_endpoints(api):
    response = api.http.request("GET", "/mtc.js", headers={}, body=b"")
    assert response.status_code == 200 and response.headers["Content-Type"] == "application/javascript"
    script = response.body.decode()
    assert "'http://127.0.0.1'" in script and "/mtc/event" in script and "MauticTrackingObject" in script
    assert "Set-Cookie" not in response.headers and int(api.get("/api/contacts").json["total"]) == 0


def test_a_page_view_becomes_a_contacts_page_hit_with_mautics_answer(api, allowed):
    first = event(api)
    assert first.status_code == 200 and first.json["success"] == 1 and first.json["events"] == []
    contact_id, token = first.json["id"], first.json["device_id"]
    assert first.json["sid"] == token and token.startswith(f"{contact_id}.")
    cookies = set_cookies(first)
    assert cookies["mtc_id"] == str(contact_id) and cookies["mautic_device_id"] == cookies["mtc_sid"] == token
    (hit,) = hits(api, contact_id)
    assert hit["eventLabel"] == "Pricing"
    details = hit["details"]
    assert details["url"] == VIEW["page_url"] and details["referer"] == "search.example"
    assert details["language"] == "fr-FR" and details["query"]["utm_source"] == "ads"
    contact = api.get(f"/api/contacts/{contact_id}").json["contact"]
    assert contact["utmtags"][0]["utmCampaign"] == "spring" and contact["utmtags"][0]["url"] == VIEW["page_url"]
    assert api.get(f"/api/contacts/{contact_id}/devices").json["devices"][0]["device"] == "desktop"
    again = event(api, {"mautic_device_id": token, "page_url": "https://shop.example/cart", "counter": "1"})
    assert again.json["id"] == contact_id and len(hits(api, contact_id)) == 2
    assert int(api.get("/api/contacts").json["total"]) == 1


def test_the_visitor_is_its_cookie_or_its_device_id_never_a_bare_or_forged_id(api, allowed):
    contact_id = event(api).json["id"]
    token = f"{contact_id}." + "0" * 43
    assert event(api, {"mautic_device_id": token}).json["id"] != contact_id  # forged: a new visitor
    assert event(api, headers={"Cookie": f"mtc_id={contact_id}"}).json["id"] != contact_id
    signed = event(api).json
    assert event(api, headers={"Cookie": f"mautic_device_id={signed['device_id']}"}).json["id"] == signed["id"]
    looked_up = api.http.request("GET", f"/mtc?mautic_device_id={signed['device_id']}", headers={}, body=b"")
    assert __import__("json").loads(looked_up.body)["id"] == signed["id"]
    assert len(hits(api, signed["id"])) == 2  # the lookup recorded nothing


def test_cors_for_allowed_sites_only_and_preflight(api, allowed):
    answer = event(api)
    assert answer.headers["Access-Control-Allow-Origin"] == SITE
    assert answer.headers["Access-Control-Allow-Credentials"] == "true" and answer.headers["Vary"] == "Origin"
    other = event(api, headers={"Origin": "https://evil.test"})
    assert other.status_code == 200 and "Access-Control-Allow-Origin" not in other.headers
    asked = {
        "Origin": SITE,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "x-requested-with",
    }
    preflight = api.http.request("OPTIONS", "/mtc/event", headers=asked, body=b"")
    assert preflight.status_code == 204 and preflight.headers["Access-Control-Allow-Origin"] == SITE
    assert "X-Requested-With" in preflight.headers["Access-Control-Allow-Headers"]
    refused = api.http.request("OPTIONS", "/mtc/event", headers=dict(asked, Origin="https://evil.test"), body=b"")
    assert refused.status_code == 204 and "Access-Control-Allow-Origin" not in refused.headers


def test_no_site_is_allowed_by_default(api):
    assert "Access-Control-Allow-Origin" not in event(api).headers


def test_cookies_for_third_party_pages_over_https(api):
    secure = event(api, headers={"X-Forwarded-Proto": "https"})
    for cookie in secure.headers["Set-Cookie"]:
        assert "SameSite=None; Secure" in cookie
    plain = event(api)
    assert all("SameSite=Lax" in cookie and "Secure" not in cookie for cookie in plain.headers["Set-Cookie"])
    pixel = api.http.request(
        "GET",
        "/mtracking.gif?page_url=https%3A%2F%2Fshop.example%2F",
        headers={"User-Agent": BROWSER, "X-Forwarded-Proto": "https"},
        body=b"",
    )
    assert all("SameSite=None; Secure" in cookie for cookie in pixel.headers["Set-Cookie"])


def test_bots_and_do_not_track_are_recorded_on_no_contact(api):
    assert event(api, headers={"User-Agent": "Googlebot/2.1"}).json["id"] is None
    assert event(api, {"do_not_track": "true"}).json["id"] is None
    refused = event(api, headers={"DNT": "1"})
    assert refused.json["id"] is None and "Set-Cookie" not in refused.headers
    assert int(api.get("/api/contacts").json["total"]) == 0


def test_url_hit_point_actions_score_page_views(api):
    api.post(
        "/api/points/new",
        {"name": "Pricing", "type": "url.hit", "delta": 5, "properties": {"page_url": "https://shop.example/pricing*"}},
    )
    contact_id = event(api).json["id"]
    event(api, {"page_url": "https://shop.example/about"}, {"Cookie": f"mtc_sid={event(api).json['sid']}"})
    assert api.get(f"/api/contacts/{contact_id}").json["contact"]["points"] == 5


def test_a_limited_user_sees_no_visitors_timeline(api):
    contact_id = event(api).json["id"]
    her = _as(api, "her", {"lead:leads": ["viewown"]})
    assert her.get(f"/api/contacts/{contact_id}/activity").status_code == 403
    assert her.get(f"/api/contacts/{contact_id}").status_code == 403
    assert int(her.get("/api/contacts").json["total"]) == 0
