"""Which triggers a change fires, and the order of one hook's payload (no AWS)."""

from chalicelib.domain.kernel.timeline import event
from chalicelib.domain.webhooks import webhook_events, webhooks
from chalicelib.domain.webhooks.catalog import WEBHOOK_TRIGGERS, webhook_triggers


def _contact(**changes):
    doc = {
        "id": 7,
        "dateIdentified": "2024-01-01T00:00:00+00:00",
        "values": {"email": "a@example.com", "points": 0},
        "doNotContact": [],
        "companies": [],
        "segments": {},
        "dateModified": None,
    }
    doc.update(changes)
    return doc


def _triggers(kind, doc, existing, events=()):
    return [e["trigger"] for e in webhook_events.fired(kind, doc, existing, events)]


def test_every_catalogue_trigger_has_a_payload_and_every_timeline_trigger_is_in_the_catalogue():
    assert set(webhook_events.RENDER) == set(WEBHOOK_TRIGGERS)
    assert set(webhook_events.TIMELINE.values()) <= set(WEBHOOK_TRIGGERS)
    labels = [t["label"] for t in webhook_triggers().values()]
    assert len(labels) == 16 and labels == sorted(labels, key=str.lower)


def test_identified_updated_and_deleted_contacts():
    anonymous = _contact(dateIdentified=None, values={"city": "Brno"})
    assert _triggers("contact", anonymous, None) == []
    assert _triggers("contact", _contact(), None) == ["mautic.lead_post_save_new"]
    assert _triggers("contact", _contact(), anonymous) == ["mautic.lead_post_save_new"]
    changed = _contact(values={"email": "b@example.com"})
    assert _triggers("contact", changed, _contact()) == ["mautic.lead_post_save_update"]
    assert _triggers("contact", _contact(dateModified="now", _rev=3, segments={"1": {}}), _contact()) == []
    assert _triggers("contact", None, _contact()) == ["mautic.lead_post_delete"]


def test_points_subscription_and_company_links():
    before = _contact(doNotContact=[{"channel": "sms", "reason": 2}], companies=[{"id": 1}, {"id": 2}])
    after = _contact(
        values={"email": "a@example.com", "points": 4},
        companies=[{"id": 2}, {"id": 3}],
        doNotContact=[{"channel": "email", "reason": 1}],
    )
    fired = webhook_events.fired("contact", after, before)
    assert fired[0] == {"trigger": "mautic.lead_post_save_update"}
    assert fired[1] == {"trigger": "mautic.lead_points_change", "points": {"old_points": 0, "new_points": 4}}
    assert [(e["channel"], e["old_status"], e["new_status"]) for e in fired[2:4]] == [
        ("sms", "bounced", "contactable"),
        ("email", "contactable", "unsubscribed"),
    ]
    assert [(e["added"], e["companyId"]) for e in fired[4:]] == [(True, 3), (False, 1)]


def test_companies_and_timeline_events():
    company = {"id": 3, "values": {"companyname": "Acme"}}
    assert _triggers("company", company, None) == ["mautic.company_post_save"]
    assert _triggers("company", company, dict(company)) == []
    assert _triggers("company", None, company) == ["mautic.company_post_delete"]
    events = [
        event("segment_membership", details={"segmentId": 2, "action": "added"}),
        event("note"),
        event("form.submitted"),
        event("page.hit"),
        event("email.sent"),
        event("email.read"),
        event("sms.sent"),
    ]
    assert _triggers("submission", {"id": 1}, None, events) == [
        "mautic.lead_list_change",
        "mautic.form_on_submit",
        "mautic.page_on_hit",
        "mautic.email_on_send",
        "mautic.email_on_open",
        "mautic.sms_on_send",
    ]
    other = [dict(event("page.hit"), contactId=9)]
    assert webhook_events.fired("contact", None, _contact(), other)[1]["contactId"] == 9


def test_a_hooks_payload_keeps_its_triggers_in_its_order():
    rendered = [
        ("mautic.lead_list_change", {"n": 1}),
        ("mautic.lead_points_change", {"n": 2}),
        ("mautic.lead_list_change", {"n": 3}),
    ]
    hook = {"triggers": ["mautic.lead_list_change"], "eventsOrderbyDir": None}
    assert webhooks.grouped(hook, rendered) == {"mautic.lead_list_change": [{"n": 1}, {"n": 3}]}
    assert webhooks.grouped(dict(hook, eventsOrderbyDir="DESC"), rendered) == {
        "mautic.lead_list_change": [{"n": 3}, {"n": 1}]
    }
    assert webhooks.grouped({"triggers": ["mautic.sms_on_send"]}, rendered) == {}


def test_outbox_ids_grow_with_time():
    first, second = webhook_events._new_id(), webhook_events._new_id()
    assert second // webhook_events.ID_SCALE >= first // webhook_events.ID_SCALE
    assert len(str(first)) <= 38  # a DynamoDB number
