"""Issue 17: the tracking pixel with Mautic's parameters (PageModel::hitPage / getHitQuery and the
tracking-pixel docs): `page_url` (or the deprecated `url`, else the Referer), `page_title`/`title`,
`page_referrer`/`referrer`, `page_language`, `d` (mtc.js's base64 JSON), and the values of
publicly updatable contact fields (ContactRequestHelper: only `isPubliclyUpdatable` fields).

Security (docs/security.md): field values go to the visitor's own contact only (its signed token,
or the anonymous contact created for it); an email another contact holds is dropped, so naming it
neither edits that contact, nor merges into it, nor hands its identity to the browser (Mautic would
switch the visitor to that contact)."""

import base64
import json
from urllib.parse import urlencode

import pytest

from tests.api.test_visitors import activity, browse, cookie_of


@pytest.fixture
def public_fields(api):
    """`city`, `firstname` and `email` made publicly updatable (Mautic's default is none)."""
    fields = api.get("/api/contacts/list/fields").json
    for field in fields.values():
        if field["alias"] in ("city", "firstname", "email"):
            r = api.patch(f"/api/fields/contact/{field['id']}/edit", {"isPubliclyUpdatable": True})
            assert r.status_code == 200 and r.json["field"]["isPubliclyUpdatable"] is True


def pixel(api, cookie=None, **params):
    response = browse(api, "/mtracking.gif?" + urlencode(params), cookie=cookie)
    assert response.status_code == 200 and response.headers["Content-Type"] == "image/gif"
    assert response.body.startswith(b"GIF89a")
    return response


def values(api, contact_id):
    return api.get(f"/api/contacts/{contact_id}").json["contact"]["fields"]["all"]


def test_url_title_and_referrer_record_a_page_hit(api):
    contact_id = cookie_of(
        pixel(api, url="https://site.example/pricing", title="Pricing", referrer="https://search.example/?q=x")
    )
    (hit,) = activity(api, contact_id, "page.hit")
    assert hit["eventLabel"] == "Pricing"
    assert hit["details"]["url"] == "https://site.example/pricing" and hit["details"]["title"] == "Pricing"
    assert hit["details"]["referer"] == "https://search.example/?q=x"
    pixel(
        api,
        cookie=contact_id,
        page_url="https://site.example/a",
        page_title="A",
        page_language="en",
        url="https://ignored.example/",
    )
    newest = activity(api, contact_id, "page.hit")[0]
    assert newest["details"]["url"] == "https://site.example/a" and newest["details"]["language"] == "en"


def test_the_encoded_parameters_of_mtc_js(api):
    packed = base64.b64encode(json.dumps({"page_url": "https://site.example/d", "page_title": "D"}).encode()).decode()
    contact_id = cookie_of(pixel(api, d=packed))
    (hit,) = activity(api, contact_id, "page.hit")
    assert hit["details"]["url"] == "https://site.example/d" and hit["eventLabel"] == "D"


def test_publicly_updatable_fields_update_the_visitors_own_contact(api, public_fields):
    visitor = cookie_of(pixel(api, page_url="https://site.example/", city="Prague", lastname="NotPublic"))
    assert values(api, visitor)["city"] == "Prague" and values(api, visitor)["lastname"] is None
    pixel(api, cookie=visitor, page_url="https://site.example/", firstname="Vera", email="vera@example.com")
    after = values(api, visitor)
    assert (after["firstname"], after["email"], after["city"]) == ("Vera", "vera@example.com", "Prague")
    assert api.get(f"/api/contacts/{visitor}").json["contact"]["dateIdentified"]


def test_without_public_fields_the_values_are_ignored(api):
    visitor = cookie_of(pixel(api, page_url="https://site.example/", city="Prague", email="x@example.com"))
    assert values(api, visitor)["city"] is None and values(api, visitor)["email"] is None


def test_an_anonymous_visitor_naming_a_known_email_edits_nothing_of_that_contact(api, public_fields):
    victim = api.post("/api/contacts/new", {"email": "victim@example.com", "city": "Brno"}).json["contact"]
    response = pixel(api, page_url="https://site.example/", email="victim@example.com", city="Evil")
    visitor = cookie_of(response)
    assert visitor != victim["id"]
    assert values(api, victim["id"])["city"] == "Brno" and activity(api, victim["id"], "page.hit") == []
    own = values(api, visitor)
    assert own["email"] is None and own["city"] == "Evil"
    assert int(api.get("/api/contacts").json["total"]) == 2  # no merge
    again = pixel(api, cookie=visitor, page_url="https://site.example/", email="VICTIM@example.com", city="Evil 2")
    assert "Set-Cookie" not in again.headers or cookie_of(again) == visitor
    assert values(api, victim["id"])["city"] == "Brno" and values(api, visitor)["email"] is None


def test_a_forged_bare_id_cookie_edits_nothing(api, public_fields):
    victim = api.post("/api/contacts/new", {"email": "victim@example.com", "city": "Brno"}).json["contact"]
    response = browse(
        api,
        "/mtracking.gif?" + urlencode({"page_url": "https://site.example/", "city": "Evil"}),
        Cookie=f"mtc_id={victim['id']}",
    )
    assert cookie_of(response) != victim["id"] and values(api, victim["id"])["city"] == "Brno"


def test_an_invalid_field_value_is_dropped_and_the_hit_kept(api, public_fields):
    visitor = cookie_of(pixel(api, page_url="https://site.example/", email="not an email", city="Prague"))
    assert values(api, visitor)["email"] is None
    assert len(activity(api, visitor, "page.hit")) == 1
