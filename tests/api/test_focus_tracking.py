"""Focus items' views and clicks (Mautic's FocusBundle: `focus_stats` rows of type `view` and `click`,
the public `/focus/{id}.js`, the view pixel `/focus/{id}/viewpixel.gif` its content loads, the link's
click-through), recorded without authentication for people's browsers (bots excluded), on the
visitor's contact (`focus.on_view`, `focus.on_click`) and in the item's numbers: `views`,
`uniqueViews`, `clickThrough` (Mautic's getViewsCount / getClickThroughCount)."""

import json

import pytest

from tests.api.test_pages_public import fetch
from tests.api.test_permissions import _as
from tests.api.test_visitors import BOTS, activity, browse, cookie_of
from tests.conftest import visitor_cookie

ITEM = {
    "name": "Spring",
    "type": "link",
    "style": "bar",
    "properties": {"content": {"headline": "Sale", "link_text": "Shop", "link_url": "https://shop.example/spring"}},
}


def new_item(api, **extra):
    r = api.post("/api/focus/new", dict(ITEM, **extra))
    assert r.status_code == 201, r.json
    return r.json["focus"]


def numbers(api, item_id):
    item = api.get(f"/api/focus/{item_id}").json["focus"]
    return item["views"], item["uniqueViews"], item["clickThrough"]


def view(api, item_id, cookie=None, **headers):
    r = browse(api, f"/focus/{item_id}/viewpixel.gif", cookie=cookie, **headers)
    assert r.status_code == 200 and r.headers["Content-Type"] == "image/gif" and r.body.startswith(b"GIF89a")
    return r


def test_a_new_item_has_no_views_or_clicks(api):
    item = new_item(api)
    assert (item["views"], item["uniqueViews"], item["clickThrough"]) == (0, 0, 0)
    listed = api.get("/api/focus").json["focus"][str(item["id"])]
    assert (listed["views"], listed["uniqueViews"], listed["clickThrough"]) == (0, 0, 0)


def test_the_script_loads_the_view_pixel_and_tracks_the_link(api):
    item = new_item(api)
    for method in (api.get, api.post):  # POST is Mautic's method for /api/focus/{id}/js
        js = method(f"/api/focus/{item['id']}/js").json["js"]
        assert f"/focus/{item['id']}/viewpixel.gif" in js and f"/focus/{item['id']}/click" in js
        assert "shop.example" not in js  # the link goes through the tracker


def test_the_public_script_of_a_published_item(api):
    item = new_item(api)
    hidden = new_item(api, name="Hidden", isPublished=False)
    r = browse(api, f"/focus/{item['id']}.js")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/javascript")
    assert f"/focus/{item['id']}/viewpixel.gif" in r.body.decode()
    assert "Set-Cookie" not in r.headers  # tracks nobody, as Mautic's generateAction
    for path in (f"/focus/{hidden['id']}.js", "/focus/999.js"):
        r = browse(api, path)
        assert r.status_code == 200 and r.body == b""  # Mautic answers an empty script
    assert numbers(api, item["id"]) == (0, 0, 0)


def test_views_are_counted_total_and_unique_and_recorded_on_the_contact(api):
    item = new_item(api)
    first = cookie_of(view(api, item["id"], Referer="https://site.example/a"))  # a new visitor: an anonymous contact
    view(api, item["id"], cookie=first)
    second = cookie_of(view(api, item["id"]))
    assert first != second and numbers(api, item["id"]) == (3, 2, 0)
    events = activity(api, first, "focus.on_view")
    assert len(events) == 2 and events[-1]["eventLabel"] == "Spring" and events[-1]["eventType"] == "Focus view"
    assert events[-1]["details"]["focus"] == {"id": item["id"], "name": "Spring"}
    assert events[-1]["details"]["url"] == "https://site.example/a"


def test_clicks_redirect_to_the_items_link_and_count_each_contact_once(api):
    item = new_item(api)
    r = browse(api, f"/focus/{item['id']}/click")
    assert r.status_code == 302 and r.headers["Location"] == "https://shop.example/spring"
    contact = cookie_of(r)
    browse(api, f"/focus/{item['id']}/click", cookie=contact)
    assert numbers(api, item["id"]) == (0, 0, 1)
    (click, _) = activity(api, contact, "focus.on_click")
    assert click["eventType"] == "Focus click" and click["details"]["url"] == "https://shop.example/spring"


@pytest.mark.parametrize("headers", BOTS, ids=["googlebot", "curl", "python-requests", "no-user-agent", "prefetch"])
def test_bots_are_not_counted(api, headers):
    item = new_item(api)
    r = fetch(api, f"/focus/{item['id']}/viewpixel.gif", dict(headers, Accept="*/*"))
    assert r.status_code == 200 and r.body.startswith(b"GIF89a") and "Set-Cookie" not in r.headers
    r = fetch(api, f"/focus/{item['id']}/click", dict(headers, Accept="*/*"))
    assert r.status_code == 302 and r.headers["Location"] == "https://shop.example/spring"
    assert numbers(api, item["id"]) == (0, 0, 0)
    assert int(api.get("/api/contacts").json["total"]) == 0


def test_an_unpublished_or_unknown_item_counts_nothing(api):
    item = new_item(api, isPublished=False)
    assert "Set-Cookie" not in view(api, item["id"]).headers
    view(api, 999)
    r = browse(api, f"/focus/{item['id']}/click")
    assert r.status_code == 302  # the link still works
    assert numbers(api, item["id"]) == (0, 0, 0) and int(api.get("/api/contacts").json["total"]) == 0


def _not_found(response):
    assert response.status_code == 404 and json.loads(response.body)["errors"][0]["code"] == 404


def test_an_item_without_a_link_has_no_click_redirect(api):
    item = new_item(api, properties={"content": {"headline": "Notice"}})
    _not_found(browse(api, f"/focus/{item['id']}/click"))
    _not_found(browse(api, "/focus/999/click"))
    unsafe = new_item(api, properties={"content": {"link_url": "javascript:alert(1)"}})
    _not_found(browse(api, f"/focus/{unsafe['id']}/click"))


def test_a_limited_user_sees_no_numbers_nor_script_of_others_items(api):
    item = new_item(api)
    view(api, item["id"])
    mallory = _as(api, "mallory", {"focus:items": ["viewown", "create"]})
    for method in (mallory.get, mallory.post):
        r = method(f"/api/focus/{item['id']}/js")
        assert r.status_code == 403 and "viewpixel" not in r.body.decode()
    r = mallory.get(f"/api/focus/{item['id']}")
    assert r.status_code == 403 and "uniqueViews" not in r.body.decode()
    assert int(mallory.get("/api/focus").json["total"]) == 0
    own = mallory.post("/api/focus/new", dict(ITEM, name="Mine")).json["focus"]
    assert (own["views"], own["uniqueViews"], own["clickThrough"]) == (0, 0, 0)


def test_a_tracked_visitor_is_recorded_on_its_own_contact(api):
    item = new_item(api)
    ann = api.post("/api/contacts/new", {"email": "ann@example.com"}).json["contact"]
    r = browse(api, f"/focus/{item['id']}/viewpixel.gif", Cookie=visitor_cookie(ann["id"]))
    assert cookie_of(r) == ann["id"]
    assert len(activity(api, ann["id"], "focus.on_view")) == 1 and numbers(api, item["id"]) == (1, 1, 0)
