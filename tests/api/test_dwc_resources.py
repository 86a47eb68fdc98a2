"""Issue 41: dynamic content resources. Translations served by the contact's `preferred_locale` or the
browser's `Accept-Language` (Mautic's getTranslatedEntity), variants split by weight and kept per
contact, in `/dwc/<slot>` and in `{dwc=slot}` of pages; the automation decision `dwc.decision` and the
action `dwc.push_content` (Mautic's DynamicContent CampaignSubscriber); the action `email.send.to.user`."""

import pytest

from tests.api.test_automations import action, branch, executed, new_automation
from tests.api.test_email_send import make_email, sent_messages
from tests.api.test_pages_public import fetch, make_page, person
from tests.api.test_permissions import _as
from tests.conftest import visitor_cookie


def _dwc(api, name, content, **extra):
    body = {"name": name, "slotName": "hero", "isCampaignBased": False, "content": content, **extra}
    r = api.post("/api/dynamiccontents/new", body)
    assert r.status_code == 201, r.json
    return r.json["dynamicContent"]


def _slot(api, contact=None, slot="hero", **headers):
    cookie = {"Cookie": visitor_cookie(contact["id"])} if contact else {}
    return fetch(api, f"/dwc/{slot}", {**cookie, **headers}).body.decode()


def test_a_translation_is_served_by_locale_and_browser_language(api):
    hello = _dwc(api, "Hello", "Hello", language="en")
    _dwc(api, "Bonjour", "Bonjour", language="fr", translationParent=hello["id"])
    _dwc(api, "Hola", "Hola", language="es_MX", translationParent=hello["id"])
    assert _slot(api) == "Hello"
    assert _slot(api, **{"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.8"}) == "Bonjour"  # fr_FR: its core, fr
    assert _slot(api, **{"Accept-Language": "de, es-MX;q=0.5"}) == "Hola"
    pierre = person(api, preferred_locale="fr_CA")
    assert _slot(api, pierre, **{"Accept-Language": "de"}) == "Bonjour"  # the contact's locale, by its core
    assert _slot(api, pierre, **{"Accept-Language": "es-MX"}) == "Hola"  # as Mautic: an exact language wins
    make_page(api, customHtml="<div>{dwc=hero}</div>")
    assert fetch(api, "/spring-offer", {"Cookie": visitor_cookie(pierre["id"])}).body.decode() == "<div>Bonjour</div>"
    counts = {d["name"]: d["sentCount"] for d in api.get("/api/dynamiccontents").json["dynamicContents"].values()}
    assert counts == {"Hello": 1, "Bonjour": 3, "Hola": 2}  # each served item counts


def test_variants_split_by_weight_and_a_contact_keeps_its_own(api):
    a = _dwc(api, "A", "A")
    _dwc(api, "B", "B", variantParent=a["id"], variantSettings={"weight": 50})
    people = [person(api, email=f"p{i}@example.com") for i in range(24)]
    first = [_slot(api, p) for p in people]
    assert set(first) == {"A", "B"}
    assert [_slot(api, p) for p in people] == first  # sticky
    _dwc(api, "C", "C", variantParent=a["id"], variantSettings={"weight": 50})
    assert {_slot(api, p) for p in people} == {"B", "C"}  # the parent's share is what is left of 100: none


def test_dwc_decision_and_push_content_serve_the_pushed_content(api):
    default, pushed = (
        _dwc(api, "Default", "Default offer", isCampaignBased=True),
        _dwc(api, "VIP", "VIP offer", isCampaignBased=True),
    )
    decision = branch("new1", "dwc.decision", {"dwc_slot_name": "offer", "dynamicContent": default["id"]})
    automation = new_automation(
        api, [decision, action("new2", "dwc.push_content", {"dynamicContent": pushed["id"]}, "new1", "yes")]
    )
    ann = person(api)
    assert _slot(api, ann, "offer") == ""  # not a member yet: campaign-based content is never standalone
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    assert _slot(api, ann, "offer") == "VIP offer"
    assert sorted(executed(api, ann["id"])) == [("new1", "yes"), ("new2", "ok")]
    assert _slot(api, ann, "offer") == "VIP offer"  # kept for the contact (Mautic's DynamicContentLeadData)
    assert "dwcSlots" not in api.get(f"/api/contacts/{ann['id']}").json["contact"]


def test_a_dwc_decision_without_a_push_serves_its_default(api):
    default = _dwc(api, "Default", "Default offer", isCampaignBased=True)
    decision = branch("new1", "dwc.decision", {"dwc_slot_name": "offer", "dynamicContent": default["id"]})
    automation = new_automation(api, [decision])
    ann, bob = person(api), person(api, email="bob@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    assert _slot(api, ann, "elsewhere") == "" and _slot(api, ann, "offer") == "Default offer"
    assert _slot(api, bob, "offer") == ""


def test_email_send_to_user_action_mails_the_owner(api, drain):
    owner = _as(api, "owner", {"lead:leads": ["viewown"]})
    mail = make_email(api, subject="Call {contactfield=firstname}")
    props = {"useremail": {"email": mail["id"]}, "to_owner": True, "bcc": "audit@example.com"}
    automation = new_automation(api, [action("new1", "email.send.to.user", props)])
    ann = api.post("/api/contacts/new", {"email": "ann@example.com", "firstname": "Ann", "owner": owner.user_id}).json[
        "contact"
    ]
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    drain()
    (sent,) = sent_messages()
    assert sent["To"].addresses[0].addr_spec == "owner@example.com" and sent["Subject"] == "Call Ann"
    assert executed(api, ann["id"]) == [("new1", "ok")]


@pytest.mark.aws  # about AWS (its calls, stored items or errors): over moto
def test_costs_of_a_slot_request(api):
    """A request with no decision waiting only reads; one that decides is one contact write."""
    from tests.bench.conftest import dynamodb_calls

    default = _dwc(api, "Default", "Default offer", isCampaignBased=True)
    decision = branch("new1", "dwc.decision", {"dwc_slot_name": "offer", "dynamicContent": default["id"]})
    automation = new_automation(api, [decision])
    _dwc(api, "Hello", "Hello")
    ann, bob = person(api), person(api, email="bob@example.com")
    api.post(f"/api/automations/{automation['id']}/contact/{ann['id']}/add")
    with dynamodb_calls() as plain:
        assert _slot(api, bob) == "Hello"
    with dynamodb_calls() as deciding:
        assert _slot(api, ann, "offer") == "Default offer"
    print("dwc costs", dict(plain), dict(deciding))
    assert "TransactWriteItems" not in plain and "PutItem" not in plain
    assert deciding["TransactWriteItems"] == 1


def test_score_contacts_companies_action(api, drain):
    acme = api.post("/api/companies/new", {"companyname": "Acme"}).json["company"]
    ann, bob = person(api), person(api, email="bob@example.com")
    api.post(f"/api/companies/{acme['id']}/contact/{ann['id']}/add")
    automation = new_automation(api, [action("new1", "lead.scorecontactscompanies", {"score": 7})])
    for someone in (ann, bob):
        api.post(f"/api/automations/{automation['id']}/contact/{someone['id']}/add")
    drain()
    assert api.get(f"/api/companies/{acme['id']}").json["company"]["score"] == 7
    assert executed(api, ann["id"]) == [("new1", "ok")] and executed(api, bob["id"]) == [("new1", "failed")]


def test_a_limited_user_cannot_have_an_automation_mail_out_an_email_she_may_not_view(api):
    mallory = _as(api, "mallory", {"campaign:campaigns": ["full"], "email:emails": ["viewown", "editown", "create"]})
    secret, mine = make_email(api, name="Secret offer"), make_email(mallory, name="Mine")

    def events(email_id):
        return [action("new1", "email.send.to.user", {"useremail": {"email": email_id}, "to": "drop@evil.example"})]

    refused = mallory.post("/api/automations/new", {"name": "Leak", "events": events(secret["id"])})
    assert refused.status_code == 403 and "Secret offer" not in str(refused.json)
    assert mallory.post("/api/automations/new", {"name": "Fine", "events": events(mine["id"])}).status_code == 201
    bad = mallory.post("/api/automations/new", {"name": "Bad", "events": events(None)})
    assert bad.status_code == 400 and "events[0][properties][useremail][email]" in str(bad.json)
