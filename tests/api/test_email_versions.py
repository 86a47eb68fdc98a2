"""Issue 40: what a contact receives of an email is Mautic's choice: its A/B variant by weight (and
the test's winner), its translation by the contact's locale on every send path, the email's dynamic
content by filter, the `utmTags` on every tracked link, and a template email never goes to segments."""

import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.api.test_automations import action, branch, new_automation, tag, tags
from tests.api.test_email_send import events, make_contact, make_email, parts, sent_messages
from tests.api.test_forms_submit import post
from tests.api.test_permissions import FORBIDDEN, _as
from tests.conftest import set_cookies

PRAGUE = [{"glue": "and", "field": "city", "object": "lead", "type": "text", "operator": "=", "filter": "Prague"}]


def _segment(api, drain, contacts):
    """A segment of the contacts (`values` each) living in Prague; the segment and their ids."""
    segment = api.post(
        "/api/segments/new", {"name": "Prague", "filters": [dict(PRAGUE[0], properties={"filter": "Prague"})]}
    ).json["list"]
    created = api.post("/api/contacts/batch/new", [dict(values, city="Prague") for values in contacts])
    assert created.status_code == 201, created.json
    ids = [contact["id"] for contact in created.json["contacts"]]
    drain()
    return segment, ids


def _email(api, **extra):
    return make_email(api, **dict({"emailType": "list", "isPublished": True}, **extra))


def _shown(api, email_id):
    return api.get(f"/api/emails/{email_id}").json["email"]


def _open(api, message):
    api.http.request("GET", f"/email/{message['X-Mautic-Tracking']}.gif", headers={"Accept": "*/*"}, body=b"")


def _by_address(messages):
    return {m["To"].addresses[0].addr_spec: m for m in messages}


# A/B tests


def test_a_50_50_test_splits_100_contacts_each_once_and_the_counts_add_up(api, drain):
    segment, ids = _segment(api, drain, [{"email": f"c{n}@example.com", "firstname": f"C{n}"} for n in range(100)])
    parent = _email(api, subject="Version A", lists=[segment["id"]])
    child = make_email(
        api,
        name="B",
        subject="Version B",
        variantParent=parent["id"],
        variantSettings={"weight": 50, "winnerCriteria": "email.openrate"},
    )
    assert api.post(f"/api/emails/{parent['id']}/send").status_code == 200
    drain()
    messages = sent_messages()
    recipients = [m["To"].addresses[0].addr_spec for m in messages]
    assert len(recipients) == 100 and len(set(recipients)) == 100
    b = [m for m in messages if m["Subject"] == "Version B"]
    a = [m for m in messages if m["Subject"] == "Version A"]
    assert 35 <= len(b) <= 65 and len(a) + len(b) == 100
    shown_a, shown_b = _shown(api, parent["id"]), _shown(api, child["id"])
    assert (shown_a["sentCount"], shown_b["sentCount"]) == (len(a), len(b))
    assert (shown_a["variantSentCount"], shown_b["variantSentCount"]) == (len(a), len(b))
    assert api.post(f"/api/emails/{parent['id']}/send").json["sentCount"] == 0  # each contact once
    drain()
    assert len(sent_messages()) == 100
    for message in (a[0], b[0]):  # a single send gives the contact the version the segment send did
        contact_id = ids[int(message["To"].addresses[0].addr_spec[1:].split("@")[0])]
        api.post(f"/api/emails/{parent['id']}/contact/{contact_id}/send")
    assert [m["Subject"] for m in sent_messages()[100:]] == ["Version A", "Version B"]
    a, b = a + [sent_messages()[100]], b + [sent_messages()[101]]
    for message in b[:10] + a[:2]:
        _open(api, message)
    _open(api, b[0])  # a second open of one message is no second read
    shown_a, shown_b = _shown(api, parent["id"]), _shown(api, child["id"])
    assert (shown_a["variantReadCount"], shown_b["variantReadCount"]) == (2, 10)
    assert (shown_a["readCount"], shown_b["readCount"]) == (2, 10)
    test = api.get(f"/api/emails/{child['id']}/abtest").json["abTest"]
    assert (test["parent"], test["winnerCriteria"], test["winners"]) == (parent["id"], "email.openrate", [child["id"]])
    rows = {row["id"]: row for row in test["variants"]}
    assert rows[child["id"]]["rate"] == round(10 / len(b) * 100, 2) and rows[child["id"]]["isWinner"]
    assert (rows[parent["id"]]["weight"], rows[child["id"]]["weight"]) == (50, 50)
    assert test["support"]["data"]["Number read"] == [2, 10]


def test_clickthrough_decides_the_winner_when_the_variants_ask_for_it(api, drain):
    segment, _ = _segment(api, drain, [{"email": f"c{n}@example.com"} for n in range(12)])
    parent = _email(api, subject="A", lists=[segment["id"]])
    settings = {"weight": 50, "winnerCriteria": "email.clickthrough"}
    child = make_email(api, name="B", subject="B", variantParent=parent["id"], variantSettings=settings)
    api.post(f"/api/emails/{parent['id']}/send")
    drain()
    (clicked, *_) = [m for m in sent_messages() if m["Subject"] == "A"]
    link = next(url for url in _links(parts(clicked)[1]) if "/r/" in url)
    for _ in range(2):  # two clicks of one contact count once
        assert api.http.request("GET", urlsplit(link).path + "?" + urlsplit(link).query).status_code == 302
    test = api.get(f"/api/emails/{parent['id']}/abtest").json["abTest"]
    assert test["winners"] == [parent["id"]] and test["basedOn"] == "email.clickthrough"
    assert {row["id"]: row["clicks"] for row in test["variants"]} == {parent["id"]: 1, child["id"]: 0}


def _ab_test(api, drain, criteria, html, contacts=12):
    """A sent 50/50 test judged by `criteria`: (parent, child, messages of A, messages of B)."""
    segment, _ = _segment(api, drain, [{"email": f"c{n}@example.com"} for n in range(contacts)])
    parent = _email(api, name="A", subject="A", lists=[segment["id"]], customHtml=html)
    settings = {"weight": 50, "winnerCriteria": criteria}
    child = make_email(
        api, name="B", subject="B", customHtml=html, variantParent=parent["id"], variantSettings=settings
    )
    api.post(f"/api/emails/{parent['id']}/send")
    drain()
    messages = sent_messages()
    return parent, child, [m for m in messages if m["Subject"] == "A"], [m for m in messages if m["Subject"] == "B"]


def _follow(api, message, wanted):
    """Click the message's tracked link to `wanted` (a substring): the redirect's Location."""
    link = next(
        url for url in _links(parts(message)[1]) if "/r/" in url and wanted in parse_qs(urlsplit(url).query)["url"][0]
    )
    clicked = api.http.request("GET", urlsplit(link).path + "?" + urlsplit(link).query)
    assert clicked.status_code == 302
    return clicked.headers["Location"]


def _guide(api):
    remote = {"title": "Guide", "storageLocation": "remote", "file": "https://cdn.example/guide.pdf"}
    return api.post("/api/assets/new", remote).json["asset"]


def test_asset_downloads_through_the_email_decide_the_winner(api, drain):
    guide = _guide(api)
    html = (
        f'<html><body><a href="{guide["downloadUrl"]}">Guide</a> <a href="https://example.com/">Site</a></body></html>'
    )
    parent, child, a, b = _ab_test(api, drain, "asset.downloads", html)
    test = api.get(f"/api/emails/{parent['id']}/abtest").json["abTest"]
    assert (test["winners"], test["support"]) == ([], {})  # nothing downloaded yet: no result, as Mautic
    target = _follow(api, b[0], "/asset/")
    assert "ct=" in target and _follow(api, b[1], "example.com") == "https://example.com/"  # ct: assets only
    for message in a[:2]:
        target = _follow(api, message, "/asset/")
        for _ in range(2):  # a send downloads once however often
            download = api.http.request("GET", urlsplit(target).path + "?" + urlsplit(target).query)
            assert download.status_code == 302 and download.headers["Location"] == "https://cdn.example/guide.pdf"
    forged = urlsplit(target).path + "?ct=" + parse_qs(urlsplit(target).query)["ct"][0][:-1] + "0"
    api.http.request("GET", forged)
    api.http.request("GET", urlsplit(target).path)  # a download not from the email
    assert api.http.request("GET", urlsplit(target).path + "?ct=%C2%B2.1.x").status_code == 302  # no id: no 500
    test = api.get(f"/api/emails/{child['id']}/abtest").json["abTest"]
    assert (test["winners"], test["basedOn"]) == ([parent["id"]], "asset.downloads")
    rows = {row["id"]: row for row in test["variants"]}
    assert (rows[parent["id"]]["downloads"], rows[child["id"]]["downloads"]) == (2, 0)  # B's contact clicked only
    assert rows[parent["id"]]["rate"] == round(2 / len(a) * 100, 2) and rows[child["id"]]["rate"] == 0
    assert test["support"]["data"] == {"Number of downloads": [2, 0], "Number of sent emails": [len(a), len(b)]}
    rate = rows[parent["id"]]["rate"]
    assert test["support"]["labels"] == [f"{parent['id']}:A ({rate}%)", f"{child['id']}:B (0.0%)"]
    assert api.get(f"/api/assets/{guide['id']}").json["asset"]["downloadCount"] == 7


def _clicked_cookies(api, message, headers=None):
    """The Cookie header of the browser that followed the message's first tracked link."""
    link = next(url for url in _links(parts(message)[1]) if "/r/" in url)
    clicked = api.http.request("GET", urlsplit(link).path + "?" + urlsplit(link).query, headers=headers or {})
    return "; ".join(f"{k}={v}" for k, v in set_cookies(clicked).items())


def test_a_send_outside_a_test_carries_no_click_through(api, drain):
    guide = _guide(api)
    html = f'<html><body><a href="{guide["downloadUrl"]}">Guide</a></body></html>'
    email = _email(api, customHtml=html)
    contact = make_contact(api, email="ann@example.com")
    api.post(f"/api/emails/{email['id']}/contact/{contact['id']}/send")
    link = next(url for url in _links(parts(sent_messages()[0])[1]) if "/r/" in url)
    clicked = api.http.request("GET", urlsplit(link).path + "?" + urlsplit(link).query)
    assert clicked.headers["Location"] == guide["downloadUrl"] and "mtc_ct" not in set_cookies(clicked)


def test_form_submissions_from_the_email_decide_the_winner(api, drain):
    form = api.post(
        "/api/forms/new", {"name": "Signup", "fields": [{"label": "Email", "alias": "email", "type": "email"}]}
    )
    form = form.json["form"]
    html = '<html><body><a href="https://example.com/signup">Sign up</a></body></html>'
    parent, child, a, b = _ab_test(api, drain, "form.submissions", html)
    _clicked_cookies(api, a[0])  # a click alone is no submission
    assert "mtc_ct" not in _clicked_cookies(api, a[1], {"Sec-GPC": "1"})  # nor noted for a private browser
    for message in b[:2]:
        cookies = _clicked_cookies(api, message)
        assert "mtc_ct=" in cookies
        for _ in range(2):  # a send submits once however often
            assert post(api, form["id"], {"email": "x@example.com"}, headers={"Cookie": cookies}).status_code == 200
    forged = cookies[: cookies.index("mtc_ct=") + 7] + "1.1.0"
    post(api, form["id"], {"email": "y@example.com"}, headers={"Cookie": forged})
    post(api, form["id"], {"email": "z@example.com"})  # a submission not from the email
    test = api.get(f"/api/emails/{parent['id']}/abtest").json["abTest"]
    assert (test["winners"], test["basedOn"]) == ([child["id"]], "form.submissions")
    rows = {row["id"]: row for row in test["variants"]}
    assert (rows[parent["id"]]["submissions"], rows[child["id"]]["submissions"]) == (0, 2)
    rate = round(2 / len(b) * 100, 2)
    assert test["support"]["data"] == {"Number of submissions": [0, 2], "Number of sent emails": [len(a), len(b)]}
    assert test["support"]["labels"] == [f"{parent['id']}:A (0.0%)", f"{child['id']}:B ({rate}%)"]
    mallory = _as(api, "mallory", {"email:emails": ["viewown"]})
    refused = mallory.get(f"/api/emails/{child['id']}/abtest")
    assert refused.status_code == 403 and "Number of" not in json.dumps(refused.json)


def test_a_limited_user_sees_only_the_download_counts_of_her_own_versions_by_name(api, drain):
    mallory = _as(api, "mallory", {"email:emails": ["viewown", "editown", "create"]})
    guide = _guide(api)
    html = f'<html><body><a href="{guide["downloadUrl"]}">Guide</a></body></html>'
    mine = mallory.post("/api/emails/new", {"name": "Mine", "subject": "M", "customHtml": html}).json["email"]
    settings = {"weight": 100, "winnerCriteria": "asset.downloads"}
    theirs = make_email(api, name="Secret", customHtml=html, variantParent=mine["id"], variantSettings=settings)
    contact = make_contact(api, email="ann@example.com")
    api.post(f"/api/emails/{mine['id']}/contact/{contact['id']}/send")
    drain()
    target = _follow(api, sent_messages()[0], "/asset/")
    api.http.request("GET", urlsplit(target).path + "?" + urlsplit(target).query)
    test = mallory.get(f"/api/emails/{mine['id']}/abtest").json["abTest"]
    assert test["winners"] == [theirs["id"]] and "Secret" not in json.dumps(test)
    assert test["support"]["labels"] == [f"{mine['id']}:Mine (0.0%)", f"{theirs['id']}: (100.0%)"]
    assert mallory.get(f"/api/emails/{theirs['id']}/abtest").status_code == 403


def test_single_and_automation_sends_of_a_parent_pick_the_variant_the_segment_send_would(api, drain):
    parent = _email(api, subject="A")
    child = make_email(api, name="B", subject="B", variantParent=parent["id"], variantSettings={"weight": 100})
    ann = make_contact(api, email="ann@example.com")
    assert api.post(f"/api/emails/{parent['id']}/contact/{ann['id']}/send").json == {"success": True}
    flow = new_automation(api, [action("new1", "email.send", {"email": parent["id"]})])
    bob = make_contact(api, email="bob@example.com")
    api.post(f"/api/automations/{flow['id']}/contact/{bob['id']}/add")
    drain()
    assert [m["Subject"] for m in sent_messages()] == ["B", "B"]  # a weight of 100 leaves the parent none
    assert (_shown(api, child["id"])["variantSentCount"], _shown(api, parent["id"])["sentCount"]) == (2, 0)


def test_the_ab_test_shows_a_limited_user_only_what_she_may_view(api, drain):
    parent = _email(api, subject="Secret A")
    make_email(api, name="B", variantParent=parent["id"], variantSettings={"weight": 50})
    mallory = _as(api, "mallory", {"email:emails": ["viewown", "editown", "create"]})
    refused = mallory.get(f"/api/emails/{parent['id']}/abtest")
    assert refused.status_code == 403 and refused.json["errors"][0]["message"] == FORBIDDEN
    assert "Secret" not in json.dumps(refused.json)
    own = mallory.post("/api/emails/new", {"name": "Mine", "subject": "M", "variantParent": parent["id"]})
    assert own.status_code == 403  # joining another's test edits it
    mine = mallory.post("/api/emails/new", {"name": "Mine", "subject": "M"}).json["email"]
    answer = mallory.get(f"/api/emails/{mine['id']}/abtest").json["abTest"]
    assert answer["winners"] == [] and [row["id"] for row in answer["variants"]] == [mine["id"]]
    theirs = make_email(api, name="Secret B", variantParent=mine["id"], variantSettings={"weight": 50})
    answer = mallory.get(f"/api/emails/{mine['id']}/abtest").json["abTest"]
    assert [(row["id"], row["name"]) for row in answer["variants"]] == [(mine["id"], "Mine"), (theirs["id"], None)]
    assert mallory.get(f"/api/emails/{theirs['id']}/abtest").status_code == 403
    assert api.get("/api/emails/999/abtest").status_code == 404


# Translations


def _translated(api, **parent_extra):
    parent = _email(api, subject="Hello", language="en", **parent_extra)
    french = make_email(api, name="FR", subject="Bonjour", language="fr", translationParent=parent["id"])
    canadian = make_email(api, name="CA", subject="Allo", language="fr_CA", translationParent=parent["id"])
    return parent, french, canadian


LOCALES = {"fr@example.com": "fr_FR", "ca@example.com": "fr_CA", "us@example.com": "en_US", "no@example.com": ""}
EXPECTED = {"fr@example.com": "Bonjour", "ca@example.com": "Allo", "us@example.com": "Hello", "no@example.com": "Hello"}


def test_a_segment_send_gives_each_contact_its_translation_and_counts_it_there(api, drain):
    segment, _ = _segment(api, drain, [{"email": a, "preferred_locale": loc} for a, loc in LOCALES.items()])
    parent, french, canadian = _translated(api, lists=[segment["id"]])
    api.post(f"/api/emails/{parent['id']}/send")
    drain()
    got = {address: m["Subject"] for address, m in _by_address(sent_messages()).items()}
    assert got == EXPECTED
    counts = [_shown(api, e["id"])["sentCount"] for e in (parent, french, canadian)]
    assert counts == [2, 1, 1]


def test_single_automation_and_form_sends_pick_the_translation(api, drain):
    parent, french, _ = _translated(api)
    fr = make_contact(api, email="fr@example.com", preferred_locale="fr_BE")  # no fr_BE: the first French
    api.post(f"/api/emails/{parent['id']}/contact/{fr['id']}/send")
    flow = new_automation(api, [action("new1", "email.send", {"email": parent["id"]})])
    api.post(f"/api/automations/{flow['id']}/contact/{fr['id']}/add")
    drain()
    fields = [
        {"label": "Email", "alias": "email", "type": "email", "mappedObject": "contact", "mappedField": "email"},
        {
            "label": "Locale",
            "alias": "locale",
            "type": "text",
            "mappedObject": "contact",
            "mappedField": "preferred_locale",
        },
    ]
    form = api.post(
        "/api/forms/new",
        {
            "name": "Sign up",
            "fields": fields,
            "actions": [{"name": "Mail", "type": "email.send.lead", "properties": {"email": parent["id"]}}],
        },
    ).json["form"]
    post(api, form["id"], {"email": "lea@example.com", "locale": "fr"})
    drain()
    subjects = [(m["To"].addresses[0].addr_spec, m["Subject"]) for m in sent_messages()]
    assert subjects == [("fr@example.com", "Bonjour"), ("fr@example.com", "Bonjour"), ("lea@example.com", "Bonjour")]
    assert _shown(api, french["id"])["sentCount"] == 3 and _shown(api, parent["id"])["sentCount"] == 0


def test_an_automations_open_decision_on_the_email_is_met_by_its_translation(api, drain):
    parent, french, _ = _translated(api)
    flow = new_automation(
        api,
        [
            action("new1", "email.send", {"email": parent["id"]}),
            branch("new2", "email.open", parent="new1"),
            tag("new3", "opened", "new2", "yes"),
        ],
    )
    fr = make_contact(api, email="fr@example.com", preferred_locale="fr")
    api.post(f"/api/automations/{flow['id']}/contact/{fr['id']}/add")
    drain()
    (message,) = sent_messages()
    assert message["Subject"] == "Bonjour"
    _open(api, message)
    drain()
    assert tags(api, fr["id"]) == ["opened"]  # Mautic: the opened email's related ids hold the parent
    (read,) = events(api, fr["id"], "email.read")
    assert (read["details"]["emailId"], read["details"]["requestedEmailId"]) == (french["id"], parent["id"])


def test_a_variant_sends_its_own_translation(api):
    parent = _email(api, subject="A")
    child = make_email(api, name="B", subject="B", variantParent=parent["id"], variantSettings={"weight": 100})
    make_email(api, name="B fr", subject="B en français", language="fr", translationParent=child["id"])
    ann = make_contact(api, email="ann@example.com", preferred_locale="fr")
    api.post(f"/api/emails/{parent['id']}/contact/{ann['id']}/send")
    assert [m["Subject"] for m in sent_messages()] == ["B en français"]
    assert _shown(api, child["id"])["variantSentCount"] == 1  # the test counts it for its variant


# Dynamic content, UTM tags, email types

SLOTS = [
    {
        "tokenName": "Dynamic Content 1",
        "content": "<b>Default for {contactfield=firstname}</b>",
        "filters": [
            {"content": "<b>Prague offer</b>", "filters": PRAGUE},
            {"content": "never", "filters": []},  # no filters match no one (Mautic)
        ],
    }
]


def test_dynamic_content_follows_the_filters_and_no_token_leaves(api):
    html = '<p>{dynamiccontent="Dynamic Content 1"}</p><p>[{dynamiccontent="Missing"}]</p>'
    mail = make_email(api, subject='Hi {dynamiccontent="Dynamic Content 1"}', customHtml=html, dynamicContent=SLOTS)
    ann = make_contact(api, email="ann@example.com", city="Prague")
    bob = make_contact(api, email="bob@example.com", firstname="Bob", city="Brno")
    for contact in (ann, bob):
        api.post(f"/api/emails/{mail['id']}/contact/{contact['id']}/send")
    sent = _by_address(sent_messages())
    ann_text, ann_html, _ = parts(sent["ann@example.com"])
    bob_text, bob_html, _ = parts(sent["bob@example.com"])
    assert "<b>Prague offer</b>" in ann_html and "<p>[]</p>" in ann_html and "Prague offer" in ann_text
    assert "<b>Default for Bob</b>" in bob_html and sent["bob@example.com"]["Subject"] == "Hi Default for Bob"
    for message in sent.values():
        assert "dynamiccontent" not in message.as_string()


def _links(html):
    return [m.replace("&amp;", "&") for m in re.findall(r'href="([^"]+)"', html)]


def test_utm_tags_reach_every_tracked_link_keeping_its_query(api):
    html = (
        '<a href="https://shop.example/offer?x=1#top">Offer</a>'
        '<a href="https://shop.example/plain">Plain</a>'
        '<a href="https://shop.example/quiet" mautic:disable-tracking>Quiet</a>'
    )
    tags = {"utmSource": "news", "utmMedium": "email", "utmCampaign": "spring sale", "utmContent": ""}
    mail = make_email(api, customHtml=html, utmTags=tags)
    ann = make_contact(api)
    api.post(f"/api/emails/{mail['id']}/contact/{ann['id']}/send")
    (message,) = sent_messages()
    tracked = [link for link in _links(parts(message)[1]) if "/r/" in link]
    targets = [parse_qs(urlsplit(link).query)["url"][0] for link in tracked]
    utm = "utm_source=news&utm_medium=email&utm_campaign=spring+sale"
    assert targets == [f"https://shop.example/offer?x=1&{utm}#top", f"https://shop.example/plain?{utm}"]
    assert "https://shop.example/quiet" in _links(parts(message)[1])  # not tracked: not tagged
    response = api.http.request("GET", urlsplit(tracked[0]).path + "?" + urlsplit(tracked[0]).query)
    assert response.status_code == 302 and response.headers["Location"] == targets[0]


def test_a_template_email_is_never_sent_to_segments(api, drain):
    segment, _ = _segment(api, drain, [{"email": "ann@example.com"}])
    mail = make_email(api, emailType="template", lists=[segment["id"]])
    assert mail["lists"] == []  # Mautic's saveEntity empties a template email's segments
    refused = api.post(f"/api/emails/{mail['id']}/send")
    assert refused.status_code == 400 and "emailType" in refused.json["errors"][0]["details"]
    listed = _email(api, lists=[segment["id"]])
    changed = api.patch(f"/api/emails/{listed['id']}/edit", {"emailType": "template"}).json["email"]
    assert changed["lists"] == []
    drain()
    assert sent_messages() == []


@pytest.mark.parametrize("weight", [0, 30])
def test_an_unpublished_variant_takes_no_share(api, weight):
    parent = _email(api, subject="A")
    make_email(
        api, name="B", subject="B", variantParent=parent["id"], variantSettings={"weight": 100}, isPublished=False
    )
    if weight:
        make_email(api, name="C", subject="C", variantParent=parent["id"], variantSettings={"weight": weight})
    contacts = [make_contact(api, email=f"c{n}@example.com") for n in range(6)]
    for contact in contacts:
        api.post(f"/api/emails/{parent['id']}/contact/{contact['id']}/send")
    assert "B" not in {m["Subject"] for m in sent_messages()}


# Costs (docs/storage.md)


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_variants_and_translations_cost_two_batch_reads_per_batch_and_no_call_per_message(api, drain, configure):
    from tests.bench.conftest import dynamodb_calls

    configure(EMAIL_SEND_INLINE=0)  # every send in the worker: one batch each
    segment, _ = _segment(api, drain, [{"email": f"c{n}@example.com", "preferred_locale": "fr"} for n in range(20)])
    costs = {}
    for name in ("warm", "plain", "tested"):
        mail = _email(
            api, name=name, subject=name, lists=[segment["id"]], dynamicContent=SLOTS, utmTags={"utmSource": "s"}
        )
        if name == "tested":
            child = make_email(api, name="B", subject="B", variantParent=mail["id"], variantSettings={"weight": 50})
            make_email(api, name="B fr", subject="B fr", language="fr", translationParent=child["id"])
            make_email(api, name="A fr", subject="A fr", language="fr", translationParent=mail["id"])
        api.post(f"/api/emails/{mail['id']}/send")
        with dynamodb_calls() as calls:
            drain()
        costs[name] = dict(calls)
    assert len(sent_messages()) == 60 and {m["Subject"] for m in sent_messages()[40:]} == {"A fr", "B fr"}
    more = {op: costs["tested"].get(op, 0) - costs["plain"].get(op, 0) for op in costs["tested"]}
    assert {op: n for op, n in more.items() if n} == {"BatchGetItem": 2}, costs


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_a_download_through_an_email_costs_a_read_and_on_its_first_two_writes_more(api, drain):
    from tests.bench.conftest import dynamodb_calls

    guide = _guide(api)
    html = f'<html><body><a href="{guide["downloadUrl"]}">Guide</a></body></html>'
    _, _, a, _ = _ab_test(api, drain, "asset.downloads", html, contacts=4)
    link = next(url for url in _links(parts(a[0])[1]) if "/r/" in url)
    clicked = api.http.request("GET", urlsplit(link).path + "?" + urlsplit(link).query)
    cookie = {"Cookie": "; ".join(f"{k}={v}" for k, v in set_cookies(clicked).items() if k != "mtc_ct")}
    target = urlsplit(clicked.headers["Location"])
    costs = []
    for path in (target.path, target.path, f"{target.path}?{target.query}", f"{target.path}?{target.query}"):
        with dynamodb_calls() as calls:
            assert api.http.request("GET", path, headers=cookie).status_code == 302
        costs.append(dict(calls))
    _, plain, first, again = costs  # the contact's first download is a unique one: not compared
    more = [{op: n - plain.get(op, 0) for op, n in cost.items() if n != plain.get(op, 0)} for cost in (first, again)]
    assert more == [{"GetItem": 1, "PutItem": 1, "UpdateItem": 1}, {"GetItem": 1}], costs
