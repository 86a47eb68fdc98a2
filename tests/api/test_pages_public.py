"""Issue 9, pages and tracking: landing pages by alias (tokens, hits, unique hits, page.hit, redirects
when unpublished), the tracking pixel, and dynamic content resolved by slot."""

import json

from tests.conftest import visitor_cookie


def fetch(api, path, headers=None):
    return api.http.request("GET", path, headers=headers or {}, body=b"")


def make_page(api, **extra):
    body = {"title": "Spring offer", "customHtml": "<h1>Hi {contactfield=firstname|friend}</h1>"}
    body.update(extra)
    response = api.post("/api/pages/new", body)
    assert response.status_code == 201, response.json
    return response.json["page"]


def person(api, **values):
    return api.post("/api/contacts/new", dict({"email": "pia@example.com"}, **values)).json["contact"]


def test_page_served_by_alias_with_tokens_and_counted_hits(api, source_ip):
    page = make_page(api)
    source_ip("10.0.0.1")
    bot = fetch(api, "/spring-offer")  # no User-Agent: counted by IP
    source_ip("127.0.0.1")
    assert bot.status_code == 200 and bot.headers["Content-Type"].startswith("text/html")
    assert bot.body.decode() == "<h1>Hi friend</h1>" and "Set-Cookie" not in bot.headers
    contact = person(api, firstname="Pia")
    known = fetch(api, "/spring-offer?utm_source=mail&utm_campaign=spring", {"Cookie": visitor_cookie(contact["id"])})
    assert known.body.decode() == "<h1>Hi Pia</h1>"
    fetch(api, "/spring-offer", {"Cookie": visitor_cookie(contact["id"])})
    counted = api.get(f"/api/pages/{page['id']}").json["page"]
    assert counted["hits"] == 3 and counted["uniqueHits"] == 2 and counted["dateModified"] is None
    events = api.get(f"/api/contacts/{contact['id']}/activity").json["events"]
    hits = [e for e in events if e["event"] == "page.hit"]
    assert len(hits) == 2 and hits[0]["details"]["page"]["id"] == page["id"]
    after = api.get(f"/api/contacts/{contact['id']}").json["contact"]
    assert after["utmtags"][0]["utmSource"] == "mail" and after["utmtags"][0]["utmCampaign"] == "spring"


def test_page_hit_point_action(api):
    page = make_page(api)
    api.post(
        "/api/points/new",
        {"name": "Visits", "type": "page.hit", "delta": 3, "repeatable": True, "properties": {"pages": [page["id"]]}},
    )
    contact = person(api)
    fetch(api, "/spring-offer", {"Cookie": visitor_cookie(contact["id"])})
    fetch(api, "/spring-offer", {"Cookie": visitor_cookie(contact["id"])})
    assert api.get(f"/api/contacts/{contact['id']}").json["contact"]["points"] == 6


def test_unpublished_page_redirects_or_is_404(api):
    make_page(api, isPublished=False, redirectType=301, redirectUrl="https://site.example/new")
    moved = fetch(api, "/spring-offer")
    assert moved.status_code == 301 and moved.headers["Location"] == "https://site.example/new"
    make_page(api, title="Gone", isPublished=False)
    assert fetch(api, "/gone").status_code == 404
    assert fetch(api, "/no-such-page").status_code == 404


def test_public_pages_do_not_swallow_api_or_oauth(api):
    make_page(api, title="api", alias="api")
    for path in ("/api", "/oauth"):
        response = fetch(api, path)
        assert response.status_code == 404 and json.loads(response.body)["errors"][0]["code"] == 404
    assert api.get("/api/pages").status_code == 200
    assert api.get("/api/contacts", auth=False).status_code == 401


def test_tracking_pixel_records_url_hits_for_known_contacts_not_bots(api):
    api.post(
        "/api/points/new",
        {"name": "Pricing", "type": "url.hit", "delta": 4, "properties": {"page_url": "https://site.example/pricing*"}},
    )
    contact = person(api)
    query = "page_url=https%3A%2F%2Fsite.example%2Fpricing%3Futm_source%3Dads&page_title=Pricing&utm_source=ads"
    pixel = fetch(api, f"/mtracking.gif?{query}", {"Cookie": visitor_cookie(contact["id"]), "Accept": "*/*"})
    assert pixel.status_code == 200 and pixel.headers["Content-Type"] == "image/gif"
    assert pixel.body.startswith(b"GIF89a")
    after = api.get(f"/api/contacts/{contact['id']}").json["contact"]
    assert after["points"] == 4 and after["utmtags"][0]["utmSource"] == "ads"
    hit = [e for e in api.get(f"/api/contacts/{contact['id']}/activity").json["events"] if e["event"] == "page.hit"]
    assert hit[0]["details"]["url"] == "https://site.example/pricing?utm_source=ads"
    bot = fetch(api, f"/mtracking.gif?{query}", {"Accept": "*/*", "User-Agent": "Googlebot/2.1"})
    assert bot.status_code == 200 and int(api.get("/api/contacts").json["total"]) == 1


def test_dynamic_content_by_slot_in_pages_and_counted(api):
    api.post(
        "/api/dynamiccontents/new",
        {
            "name": "VIP",
            "slotName": "hero",
            "isCampaignBased": False,
            "content": "<b>VIP</b>",
            "filters": [
                {
                    "glue": "and",
                    "field": "city",
                    "object": "lead",
                    "type": "text",
                    "operator": "=",
                    "properties": {"filter": "Prague"},
                }
            ],
        },
    )
    generic = api.post(
        "/api/dynamiccontents/new",
        {"name": "All", "slotName": "hero", "isCampaignBased": False, "content": "<i>Hello</i>"},
    ).json["dynamicContent"]
    make_page(api, customHtml="<div>{dwc=hero}</div>")
    vip = person(api, city="Prague")
    assert fetch(api, "/spring-offer", {"Cookie": visitor_cookie(vip["id"])}).body.decode() == "<div><b>VIP</b></div>"
    assert fetch(api, "/spring-offer").body.decode() == "<div><i>Hello</i></div>"
    assert fetch(api, "/dwc/hero").body.decode() == "<i>Hello</i>"
    assert (fetch(api, "/dwc/none").status_code, fetch(api, "/dwc/none").body.decode()) == (
        204,
        "",
    )  # Mautic: no content
    assert api.get(f"/api/dynamiccontents/{generic['id']}").json["dynamicContent"]["sentCount"] == 2
