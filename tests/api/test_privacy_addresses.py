"""Issue 32, IP anonymisation and browser signals over the public endpoints: visitor addresses stored
truncated (`ANONYMIZE_IP=truncate`) or not at all (`none`) wherever they are kept, and a browser that
sends `Sec-GPC: 1` or `DNT: 1` not tracked."""

import re

import pytest

from chalicelib.domain.messaging import email_stats
from tests.api.test_email_send import make_contact, make_email, sent_messages
from tests.api.test_pages_public import make_page
from tests.api.test_visitors import BROWSER, activity, browse, cookie_of


def _form(api):
    body = {"name": "Ask", "fields": [{"label": "Question", "alias": "question", "type": "text"}]}
    return api.post("/api/forms/new", body).json["form"]


def _submit(api, form, cookie=None):
    headers = {"User-Agent": BROWSER, "Accept": "*/*", "Content-Type": "application/x-www-form-urlencoded"}
    if cookie:
        headers["Cookie"] = cookie
    body = f"mauticform[formId]={form['id']}&mauticform[question]=Why".encode()
    return api.http.request("POST", f"/form/submit?formId={form['id']}", headers=headers, body=body)


@pytest.mark.parametrize(("mode", "stored"), [("truncate", "203.0.113.0"), ("none", None), ("off", "203.0.113.77")])
def test_a_hit_stores_the_address_as_the_setting_says(api, source_ip, configure, mode, stored):
    configure(ANONYMIZE_IP=mode)
    make_page(api)
    source_ip("203.0.113.77")
    contact_id = cookie_of(browse(api, "/spring-offer?utm_source=ad"))
    contact = api.get(f"/api/contacts/{contact_id}").json["contact"]
    assert [ip["ipAddress"] for ip in contact["ipAddresses"]] == ([stored] if stored else [])
    assert [utm["remoteHost"] for utm in contact["utmtags"]] == [stored]
    assert len(activity(api, contact_id, "page.hit")) == 1
    assert "203.0.113.77" not in str(api.get(f"/api/contacts/{contact_id}/export").json) or mode == "off"


def test_opens_submissions_and_api_addresses_are_truncated(api, source_ip, configure):
    configure(ANONYMIZE_IP="truncate")
    source_ip("2001:db8:abcd:12::99")
    contact, mail = make_contact(api), make_email(api)
    api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send")
    tracking = sent_messages()[-1]["X-Mautic-Tracking"]
    api.http.request("GET", f"/email/{tracking}.gif", headers={"Accept": "*/*", "User-Agent": BROWSER}, body=b"")
    assert email_stats.find(tracking)["ipAddress"] == "2001:db8:abcd::"
    form = _form(api)
    assert _submit(api, form).status_code == 200
    (row,) = api.get(f"/api/forms/{form['id']}/submissions").json["submissions"]
    assert row["ipAddress"] == {"ip": "2001:db8:abcd::"}
    patched = api.patch(f"/api/contacts/{contact['id']}/edit", {"ipAddress": "198.51.100.200"}).json["contact"]
    assert [ip["ipAddress"] for ip in patched["ipAddresses"]] == ["198.51.100.0"]
    assert re.search(r"198\.51\.100\.200|:99\b", str(api.get(f"/api/contacts/{contact['id']}/export").json)) is None


SIGNALS = [{"Sec-GPC": "1"}, {"DNT": "1"}]


def _contact_count(api):
    return int(api.get("/api/contacts?search=is:anonymous").json["total"])


@pytest.mark.parametrize("signal", SIGNALS)
def test_a_browser_sending_a_privacy_signal_is_not_a_new_visitor(api, source_ip, signal):
    page = make_page(api)
    source_ip("203.0.113.77")
    response = browse(api, "/spring-offer", **signal)
    assert response.status_code == 200 and "Set-Cookie" not in response.headers
    pixel = browse(api, "/mtracking.gif?page_url=https%3A%2F%2Fsite.example%2F", **signal)
    assert pixel.status_code == 200 and "Set-Cookie" not in pixel.headers
    assert _contact_count(api) == 0
    counted = api.get(f"/api/pages/{page['id']}").json["page"]
    assert counted["hits"] == 1 and counted["uniqueHits"] == 0  # counted, no marker naming the browser


@pytest.mark.parametrize("signal", SIGNALS)
def test_a_known_contacts_browser_sending_a_signal_is_not_tracked_either(api, signal):
    make_page(api)
    contact = make_contact(api)
    before = api.get(f"/api/contacts/{contact['id']}").json["contact"]
    response = browse(api, "/spring-offer", cookie=contact["id"], **signal)
    assert response.status_code == 200 and "Set-Cookie" not in response.headers
    assert response.body.decode() == "<h1>Hi friend</h1>"  # not personalised: not identified
    assert activity(api, contact["id"], "page.hit") == []
    after = api.get(f"/api/contacts/{contact['id']}").json["contact"]
    assert after["lastActive"] == before["lastActive"] and after.get("devices", []) == before.get("devices", [])


def test_the_signals_are_ignored_when_the_setting_is_off(api, configure):
    configure(HONOR_PRIVACY_SIGNALS=False)
    make_page(api)
    response = browse(api, "/spring-offer", **{"Sec-GPC": "1", "DNT": "1"})
    assert cookie_of(response) and _contact_count(api) == 1


def test_dnt_0_is_no_signal(api):
    make_page(api)
    assert cookie_of(browse(api, "/spring-offer", **{"DNT": "0", "Sec-GPC": "0"})) and _contact_count(api) == 1


def test_dynamic_content_is_not_personalised_for_a_signalling_browser(api):
    vip = {
        "glue": "and",
        "field": "city",
        "object": "lead",
        "type": "text",
        "operator": "=",
        "properties": {"filter": "Prague"},
    }
    body = {"name": "VIP", "slotName": "hero", "isCampaignBased": False, "content": "<b>VIP</b>", "filters": [vip]}
    api.post("/api/dynamiccontents/new", body)  # the first that fits wins
    generic = {"name": "All", "slotName": "hero", "isCampaignBased": False, "content": "<i>Hello</i>"}
    api.post("/api/dynamiccontents/new", generic)
    contact = make_contact(api, city="Prague")
    assert browse(api, "/dwc/hero", cookie=contact["id"]).body.decode() == "<b>VIP</b>"
    assert browse(api, "/dwc/hero", cookie=contact["id"], **{"Sec-GPC": "1"}).body.decode() == "<i>Hello</i>"
