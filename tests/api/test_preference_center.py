"""Issue 40: contacts' category subscriptions (Mautic's `lead_categories`) and what reads them (a send of
an email in a category skips who unsubscribed from it), the unsubscribe page with the email's
`unsubscribeForm`, and the preference centre (a page with `isPreferenceCenter`, named by the email's
`preferenceCenter`) with Mautic's tokens, rendered and saved."""

from urllib.parse import urlencode

import pytest

from tests.api.test_email_send import make_contact, make_email, sent_messages
from tests.api.test_permissions import FORBIDDEN, _as

FORM = "lead_contact_frequency_rules"
CENTRE_HTML = (
    "<html><body><h1>Hi {contactfield=firstname}</h1><p>{leadidentifier}</p>{successmessage}{segmentlist}{categorylist}"
    "{preferredchannel}{channelfrequency}{saveprefsbutton}{langbar}</body></html>"
)
SALES = {"lead:leads": ["viewown", "editown", "create"], "category:categories": ["view"]}


def _category(api, title, bundle="global"):
    return api.post("/api/categories/new", {"title": title, "bundle": bundle}).json["category"]


def _send(api, contact, mail):
    assert api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send").json == {"success": True}
    return sent_messages()[-1]["X-Mautic-Tracking"]


def _public(api, path, method="GET", form=None):
    body = urlencode(form, doseq=True).encode() if form else b""
    headers = {"Accept": "*/*", "Content-Type": "application/x-www-form-urlencoded"}
    return api.http.request(method, path, headers=headers, body=body)


def test_category_subscriptions_are_kept_and_shown(api):
    news, offers = _category(api, "News"), _category(api, "Offers")
    contact = make_contact(api)
    assert api.get(f"/api/contacts/{contact['id']}/categories").json == {"total": 0, "categories": {}}
    assert api.post(f"/api/contacts/{contact['id']}/categories/{news['id']}/add").json == {"success": True}
    assert api.post(f"/api/contacts/{contact['id']}/categories/{offers['id']}/remove").json == {"success": True}
    shown = api.get(f"/api/contacts/{contact['id']}/categories").json
    assert shown["total"] == 2
    assert (
        shown["categories"][str(news["id"])]["manuallyAdded"],
        shown["categories"][str(news["id"])]["manuallyRemoved"],
    ) == (
        True,
        False,
    )
    assert shown["categories"][str(offers["id"])]["manuallyRemoved"] is True
    assert shown["categories"][str(offers["id"])]["title"] == "Offers"
    assert api.post(f"/api/contacts/{contact['id']}/categories/999/add").status_code == 404
    assert api.post(f"/api/contacts/{contact['id']}/categories/abc/add").status_code == 404
    assert api.post(f"/api/contacts/999/categories/{news['id']}/add").status_code == 404
    events = api.get(f"/api/contacts/{contact['id']}/activity").json["events"]
    assert sum(e["event"] == "lead.categorychange" for e in events) == 2
    rows = api.get("/api/stats/lead_categories").json["stats"]
    assert [(r["category_id"], r["lead_id"], r["manually_added"], r["manually_removed"]) for r in rows] == [
        (str(news["id"]), str(contact["id"]), "1", "0"),  # Mautic's stats answer strings
        (str(offers["id"]), str(contact["id"]), "0", "1"),
    ]


def test_a_segment_send_skips_contacts_unsubscribed_from_the_emails_category(api, drain):
    news = _category(api, "News")
    segment = api.post("/api/segments/new", {"name": "All", "filters": []}).json["list"]
    ids = []
    for n in range(3):
        contact = make_contact(api, email=f"c{n}@example.com")
        api.post(f"/api/segments/{segment['id']}/contact/{contact['id']}/add")
        ids.append(contact["id"])
    api.post(f"/api/contacts/{ids[1]}/categories/{news['id']}/remove")
    drain()
    mail = make_email(api, emailType="list", lists=[segment["id"]], category=news["id"])
    assert api.post(f"/api/emails/{mail['id']}/send").json["sentCount"] == 2
    drain()
    assert sorted(m["To"].addresses[0].addr_spec for m in sent_messages()) == ["c0@example.com", "c2@example.com"]
    other = make_email(api, emailType="list", lists=[segment["id"]], name="Other")
    assert api.post(f"/api/emails/{other['id']}/send").json["sentCount"] == 3  # no category: everyone


def test_an_automation_email_skips_the_unsubscribed_category_a_direct_send_does_not(api):
    from chalicelib.domain.kernel.context import Context
    from chalicelib.domain.messaging import sending

    news = _category(api, "News")
    contact = make_contact(api)
    api.post(f"/api/contacts/{contact['id']}/categories/{news['id']}/remove")
    mail = make_email(api, category=news["id"])
    refused = sending.send_email(mail["id"], contact["id"], Context(), source=("campaign", 1))
    assert refused["success"] is False and "category" in refused["reason"]
    assert api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send").json == {"success": True}


def test_the_unsubscribe_page_shows_the_emails_unsubscribe_form(api):
    form = api.post(
        "/api/forms/new",
        {"name": "Why", "alias": "why", "fields": [{"label": "Reason", "alias": "reason", "type": "text"}]},
    ).json["form"]
    contact = make_contact(api)
    mail = make_email(api, unsubscribeForm=form["id"])
    page = _public(api, f"/email/unsubscribe/{_send(api, contact, mail)}")
    assert page.status_code == 200 and b"will no longer receive" in page.body
    assert b'class="mautic-unsubscribeform"' in page.body and b'name="mauticform[reason]"' in page.body
    assert api.get(f"/api/contacts/{contact['id']}").json["contact"]["doNotContact"][0]["reason"] == 1
    api.patch(f"/api/forms/{form['id']}/edit", {"isPublished": False})
    hidden = _public(api, f"/email/unsubscribe/{_send(api, make_contact(api, email='b@example.com'), mail)}")
    assert b"mautic-unsubscribeform" not in hidden.body


@pytest.fixture
def centre(api):
    """A contact sent an email whose preference centre offers two public segments and two categories."""
    public = api.post("/api/segments/new", {"name": "Weekly", "publicName": "Weekly news", "isPreferenceCenter": True})
    private = api.post("/api/segments/new", {"name": "VIP", "isPreferenceCenter": False}).json["list"]
    offers = api.post("/api/segments/new", {"name": "Offers", "isPreferenceCenter": True}).json["list"]
    news, deals = _category(api, "News"), _category(api, "Deals")
    _category(api, "Assets only", bundle="asset")
    page = api.post(
        "/api/pages/new",
        {"title": "Preferences", "alias": "prefs", "isPreferenceCenter": True, "customHtml": CENTRE_HTML},
    ).json["page"]
    contact = make_contact(api, mobile="+420777123456")
    api.post(f"/api/segments/{public.json['list']['id']}/contact/{contact['id']}/add")
    api.post(f"/api/segments/{private['id']}/contact/{contact['id']}/add")
    mail = make_email(api, preferenceCenter=page["id"], category=news["id"])
    return {
        "contact": contact,
        "weekly": public.json["list"],
        "offers": offers,
        "private": private,
        "news": news,
        "deals": deals,
        "page": page,
        "mail": mail,
        "hash": _send(api, contact, mail),
    }


def test_the_preference_centre_renders_the_contacts_choices(api, centre):
    page = _public(api, f"/email/unsubscribe/{centre['hash']}")
    html = page.body.decode()
    assert page.status_code == 200 and "<h1>Hi Ann</h1><p>Ann</p>" in html
    assert html.index('<body><form method="post" action=') < html.index("</form></body>")
    assert f'/email/unsubscribe/{centre["hash"]}" class="pref-form">' in html
    assert f'name="{FORM}[lead_lists][]" value="{centre["weekly"]["id"]}" checked> Weekly news' in html
    assert f'name="{FORM}[lead_lists][]" value="{centre["offers"]["id"]}"> Offers' in html
    assert "VIP" not in html  # not a public segment
    assert f'value="{centre["news"]["id"]}" checked> News' in html and "Assets only" not in html
    assert f'name="{FORM}[lead_channels][subscribed_channels][]" value="email" checked' in html
    assert '<option value="email" selected>' in html and "Save preferences" in html
    assert "{" not in html and "pref-successmessage" not in html
    assert api.get(f"/api/contacts/{centre['contact']['id']}").json["contact"]["doNotContact"] == []


def test_the_preference_centre_saves_segments_categories_and_channels(api, centre):
    contact = centre["contact"]
    choice = {
        f"{FORM}[lead_lists][]": [centre["offers"]["id"]],
        f"{FORM}[global_categories][]": [centre["deals"]["id"]],
        f"{FORM}[lead_channels][subscribed_channels][]": ["sms"],
        f"{FORM}[lead_channels][preferred_channel]": "sms",
        f"{FORM}[lead_channels][frequency_number_sms]": "2",
        f"{FORM}[lead_channels][frequency_time_sms]": "WEEK",
        f"{FORM}[buttons][save]": "1",
        f"{FORM}[shown][]": ["segmentlist", "categorylist", "preferredchannel", "channelfrequency"],
    }
    saved = _public(api, f"/email/unsubscribe/{centre['hash']}", method="POST", form=choice)
    assert saved.status_code == 200 and b"Your preferences have been saved." in saved.body
    lists = api.get(f"/api/contacts/{contact['id']}/segments").json["lists"]
    assert sorted(int(k) for k in lists) == sorted([centre["offers"]["id"], centre["private"]["id"]])
    categories = api.get(f"/api/contacts/{contact['id']}/categories").json["categories"]
    assert categories[str(centre["news"]["id"])]["manuallyRemoved"] is True
    assert categories[str(centre["deals"]["id"])]["manuallyAdded"] is True
    shown = api.get(f"/api/contacts/{contact['id']}").json["contact"]
    assert [(d["channel"], d["reason"]) for d in shown["doNotContact"]] == [("email", 1)]
    sms_rule = next(r for r in shown["frequencyRules"] if r["channel"] == "sms")
    assert (sms_rule["frequencyNumber"], sms_rule["frequencyTime"], sms_rule["preferredChannel"]) == (2, "WEEK", True)
    again = _public(api, f"/email/unsubscribe/{centre['hash']}").body.decode()
    assert f'value="{centre["news"]["id"]}"> News' in again and '<option value="sms" selected>' in again
    assert f'name="{FORM}[lead_channels][subscribed_channels][]" value="email">' in again
    resubscribe = dict(choice, **{f"{FORM}[lead_channels][subscribed_channels][]": ["email", "sms"]})
    _public(api, f"/email/unsubscribe/{centre['hash']}", method="POST", form=resubscribe)
    assert api.get(f"/api/contacts/{contact['id']}").json["contact"]["doNotContact"] == []


def test_a_bad_choice_is_a_400_and_changes_nothing(api, centre):
    bad = {
        f"{FORM}[lead_channels][frequency_number_email]": "often",
        f"{FORM}[lead_channels][frequency_time_email]": "DAY",
        f"{FORM}[shown][]": ["channelfrequency", "categorylist"],
    }
    answer = _public(api, f"/email/unsubscribe/{centre['hash']}", method="POST", form=bad)
    assert answer.status_code == 400
    assert api.get(f"/api/contacts/{centre['contact']['id']}/categories").json["total"] == 0
    one_click = _public(
        api, f"/email/unsubscribe/{centre['hash']}", method="POST", form={"List-Unsubscribe": "One-Click"}
    )
    assert one_click.status_code == 200
    assert api.get(f"/api/contacts/{centre['contact']['id']}").json["contact"]["doNotContact"][0]["reason"] == 1


def test_a_save_changes_only_the_parts_the_page_shows(api, centre):
    api.patch(f"/api/pages/{centre['page']['id']}/edit", {"customHtml": "<body>{segmentlist}{saveprefsbutton}</body>"})
    page = _public(api, f"/email/unsubscribe/{centre['hash']}").body.decode()
    assert f'name="{FORM}[shown][]" value="segmentlist"' in page and "channelfrequency" not in page
    nothing_ticked = {f"{FORM}[shown][]": ["segmentlist"], f"{FORM}[buttons][save]": "1"}
    assert _public(api, f"/email/unsubscribe/{centre['hash']}", method="POST", form=nothing_ticked).status_code == 200
    contact = api.get(f"/api/contacts/{centre['contact']['id']}").json["contact"]
    assert contact["doNotContact"] == []  # the channels were not on the page: both stay subscribed
    assert api.get(f"/api/contacts/{contact['id']}/categories").json["total"] == 0
    lists = api.get(f"/api/contacts/{contact['id']}/segments").json["lists"]
    assert sorted(int(k) for k in lists) == [centre["private"]["id"]]  # left the public one, kept the other


def test_an_unpublished_or_plain_page_is_no_preference_centre(api, centre):
    api.patch(f"/api/pages/{centre['page']['id']}/edit", {"isPreferenceCenter": False})
    page = _public(api, f"/email/unsubscribe/{centre['hash']}")
    assert b"will no longer receive" in page.body and b"pref-form" not in page.body


def test_a_limited_user_reads_and_changes_only_their_own_contacts_categories(api):
    news = _category(api, "News")
    owner = _as(api, "owner", SALES)
    mallory = _as(api, "mallory", SALES)
    theirs = owner.post("/api/contacts/new", {"email": "own@example.com"}).json["contact"]
    api.post(f"/api/contacts/{theirs['id']}/categories/{news['id']}/remove")
    denied = mallory.get(f"/api/contacts/{theirs['id']}/categories")
    assert (
        denied.status_code == 403
        and denied.json["errors"][0]["message"] == FORBIDDEN
        and "News" not in str(denied.json)
    )
    assert mallory.post(f"/api/contacts/{theirs['id']}/categories/{news['id']}/add").status_code == 403
    assert api.get(f"/api/contacts/{theirs['id']}/categories").json["categories"][str(news["id"])]["manuallyRemoved"]
    assert owner.get(f"/api/contacts/{theirs['id']}/categories").json["total"] == 1
    assert owner.post(f"/api/contacts/{theirs['id']}/categories/{news['id']}/add").json == {"success": True}
    blind = _as(api, "blind", {"lead:leads": ["viewown", "editown", "create"]})
    mine = blind.post("/api/contacts/new", {"email": "blind@example.com"}).json["contact"]
    assert blind.post(f"/api/contacts/{mine['id']}/categories/{news['id']}/add").status_code == 403
    assert api.get(f"/api/contacts/{mine['id']}/categories").json["total"] == 0
