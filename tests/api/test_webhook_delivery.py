"""Webhook delivery over moto: triggers, payloads, signatures, retries, dead letters, the log.

A receiver on 127.0.0.1 records each POST; `drain` runs the webhook worker until the queues are
empty, with retries after 0 seconds."""

import base64
import hashlib
import hmac
import json
import time

import pytest
from standardwebhooks import Webhook

from tests.receiver import Receiver

SAVE_TRIGGERS = ["mautic.lead_post_save_new", "mautic.lead_post_save_update"]


def mautic_signature(secret, body):
    return base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()


@pytest.fixture(autouse=True)
def quick_retries(configure):
    configure(WEBHOOK_RETRY_DELAYS=(0, 0))


def _hook(api, url, triggers, **extra):
    response = api.post("/api/hooks/new", dict({"name": "Receiver", "webhookUrl": url, "triggers": triggers}, **extra))
    assert response.status_code == 201, response.json
    return response.json["hook"]


def _dead_letters():
    from chalicelib.ports import queues

    return [body for _, body, _ in queues.receive("webhooks", dead_letter=True)]


def _events(receiver, trigger):
    return [event for r in receiver.received for event in r.json.get(trigger, [])]


def test_a_contact_write_reaches_the_receiver_signed(api, drain, receiver):
    hook = _hook(api, receiver.url, SAVE_TRIGGERS)
    contact = api.post("/api/contacts/new", {"email": "ann@example.com", "firstname": "Ann"}).json["contact"]
    drain()
    (request,) = receiver.received
    assert list(request.json) == ["mautic.lead_post_save_new"]
    (event,) = request.json["mautic.lead_post_save_new"]
    assert event["contact"]["id"] == contact["id"]
    assert event["contact"]["fields"]["all"]["email"] == "ann@example.com"
    assert event["contact"] == api.get(f"/api/contacts/{contact['id']}").json["contact"]
    assert event["timestamp"] == contact["dateAdded"]
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["Webhook-Signature"] == mautic_signature(hook["secret"], request.body)
    assert request.headers["webhook-id"].startswith("msg_")
    assert abs(int(request.headers["webhook-timestamp"]) - time.time()) < 60
    assert request.headers["X-Origin-Base-URL"]
    api.patch(f"/api/contacts/{contact['id']}/edit", {"city": "Prague"})
    api.patch(f"/api/contacts/{contact['id']}/edit", {"city": "Prague"})  # no change: no event
    anonymous = api.post("/api/contacts/new", {"city": "Brno"}).json["contact"]["id"]
    api.patch(f"/api/contacts/{anonymous}/edit", {"city": "Prague"})  # anonymous: no save events
    api.patch(f"/api/contacts/{anonymous}/edit", {"lastname": "Known"})  # identified now
    drain()
    assert [list(r.json) for r in receiver.received] == [
        ["mautic.lead_post_save_new"],
        ["mautic.lead_post_save_update"],
        ["mautic.lead_post_save_new"],
    ]
    assert receiver.received[2].json["mautic.lead_post_save_new"][0]["contact"]["id"] == anonymous


def test_a_standard_webhooks_secret_is_verified_by_an_independent_receiver(api, drain, receiver):
    secret = "whsec_" + base64.b64encode(b"k" * 32).decode()
    _hook(api, receiver.url, SAVE_TRIGGERS, secret=secret)
    api.post("/api/contacts/new", {"email": "bob@example.com"})
    drain()
    (request,) = receiver.received
    payload = Webhook(secret).verify(request.body, request.headers)
    assert payload["mautic.lead_post_save_new"][0]["contact"]["fields"]["all"]["email"] == "bob@example.com"
    assert request.headers["webhook-signature"].startswith("v1,") and "Webhook-Signature" not in request.headers


def test_nothing_is_written_or_queued_without_a_subscribed_published_hook(api, drain, receiver):
    from chalicelib.ports import queues
    from chalicelib.store import port as entities

    _hook(api, receiver.url, ["mautic.company_post_save"])
    _hook(api, receiver.url, SAVE_TRIGGERS, isPublished=False)
    api.post("/api/contacts/new", {"email": "cid@example.com"})
    assert queues.receive("webhooks") == [] and list(entities.iterate("outbox")) == []
    drain()
    assert receiver.received == []


def test_points_subscription_and_company_triggers(api, drain, receiver):
    _hook(
        api,
        receiver.url,
        ["mautic.lead_points_change", "mautic.lead_channel_subscription_changed", "mautic.lead_company_change"],
    )
    contact_id = api.post("/api/contacts/new", {"email": "dan@example.com"}).json["contact"]["id"]
    company = api.post("/api/companies/new", {"companyname": "Acme"}).json["company"]
    api.post(f"/api/contacts/{contact_id}/points/plus/5")
    api.post(f"/api/contacts/{contact_id}/dnc/email/add", {"reason": 1})
    api.post(f"/api/contacts/{contact_id}/dnc/email/remove")
    api.post(f"/api/companies/{company['id']}/contact/{contact_id}/add")
    api.post(f"/api/companies/{company['id']}/contact/{contact_id}/remove")
    drain()
    (points,) = _events(receiver, "mautic.lead_points_change")
    assert points["points"] == {"old_points": 0, "new_points": 5} and points["contact"]["points"] == 5
    statuses = [
        (e["channel"], e["old_status"], e["new_status"])
        for e in _events(receiver, "mautic.lead_channel_subscription_changed")
    ]
    assert statuses == [("email", "contactable", "unsubscribed"), ("email", "unsubscribed", "contactable")]
    links = _events(receiver, "mautic.lead_company_change")
    assert [(e["added"], e["company"]["id"], e["contact"]["id"]) for e in links] == [
        (True, company["id"], contact_id),
        (False, company["id"], contact_id),
    ]
    assert links[0]["company"]["fields"]["all"]["companyname"] == "Acme"


def test_deletes_and_company_saves(api, drain, receiver):
    _hook(api, receiver.url, ["mautic.lead_post_delete", "mautic.company_post_save", "mautic.company_post_delete"])
    contact_id = api.post("/api/contacts/new", {"email": "eve@example.com"}).json["contact"]["id"]
    company_id = api.post("/api/companies/new", {"companyname": "Acme"}).json["company"]["id"]
    api.patch(f"/api/companies/{company_id}/edit", {"companyname": "Acme Inc"})
    api.delete(f"/api/companies/{company_id}/delete")
    api.delete(f"/api/contacts/{contact_id}/delete")
    drain()
    (deleted,) = _events(receiver, "mautic.lead_post_delete")
    assert deleted["id"] == contact_id and deleted["contact"]["id"] is None
    assert deleted["contact"]["fields"]["all"]["email"] == "eve@example.com"
    saves = _events(receiver, "mautic.company_post_save")
    assert [s["company"]["fields"]["all"]["companyname"] for s in saves] == ["Acme", "Acme Inc"]
    (gone,) = _events(receiver, "mautic.company_post_delete")
    assert gone["id"] == company_id and gone["company"]["id"] is None


def test_one_change_is_one_post_in_the_order_of_each_hook(api, drain, receiver):
    descending = Receiver()
    try:
        _hook(api, receiver.url, SAVE_TRIGGERS + ["mautic.lead_points_change"], eventsOrderbyDir="ASC")
        _hook(api, descending.url, SAVE_TRIGGERS + ["mautic.lead_points_change"], eventsOrderbyDir="DESC")
        api.post("/api/contacts/new", {"email": "fay@example.com", "points": 3})
        drain()
        expected = ["mautic.lead_post_save_new", "mautic.lead_points_change"]
        assert [list(r.json) for r in receiver.received] == [expected]
        assert [list(r.json) for r in descending.received] == [expected[::-1]]
    finally:
        descending.close()


def test_a_receiver_failing_twice_gets_the_event_once_successfully(api, drain):
    receiver = Receiver(statuses=[500, 503])
    try:
        hook = _hook(api, receiver.url, SAVE_TRIGGERS)
        api.post("/api/contacts/new", {"email": "gil@example.com"})
        drain()
        assert [r.status for r in receiver.received] == [500, 503, 200]
        assert len({r.headers["webhook-id"] for r in receiver.received}) == 1
        assert len({r.body for r in receiver.received}) == 1
        logs = api.get(f"/api/hooks/{hook['id']}/logs").json
        assert int(logs["total"]) == 3
        assert [(e["attempt"], e["statusCode"], e["error"]) for e in logs["logs"]] == [
            (3, 200, None),
            (2, 503, "HTTP 503"),
            (1, 500, "HTTP 500"),
        ]
        assert logs["logs"][0]["triggers"] == ["mautic.lead_post_save_new"] and logs["logs"][0]["duration"] >= 0
        assert _dead_letters() == []
    finally:
        receiver.close()


def test_a_receiver_that_always_fails_ends_in_the_dead_letter_queue(api, drain):
    receiver = Receiver(default=500)
    try:
        hook = _hook(api, receiver.url, SAVE_TRIGGERS)
        api.post("/api/contacts/new", {"email": "hal@example.com"})
        drain()
        assert len(receiver.received) == 3  # the first attempt and two retries
        (dead,) = _dead_letters()
        assert dead["hook"] == hook["id"] and dead["attempt"] == 3 and dead["statusCode"] == 500
        assert json.loads(dead["body"]) == receiver.received[0].json
        assert [e["statusCode"] for e in api.get(f"/api/hooks/{hook['id']}/logs").json["logs"]] == [500, 500, 500]
        assert api.get(f"/api/hooks/{hook['id']}").json["hook"]["isPublished"] is True
    finally:
        receiver.close()


def test_410_unpublishes_the_hook_at_once(api, drain):
    receiver = Receiver(default=410)
    try:
        hook = _hook(api, receiver.url, SAVE_TRIGGERS)
        api.post("/api/contacts/new", {"email": "ida@example.com"})
        drain()
        assert len(receiver.received) == 1 and len(_dead_letters()) == 1
        assert api.get(f"/api/hooks/{hook['id']}").json["hook"]["isPublished"] is False
        api.post("/api/contacts/new", {"email": "ivy@example.com"})
        drain()
        assert len(receiver.received) == 1
    finally:
        receiver.close()


def test_a_hook_failing_for_long_is_unpublished(api, drain, configure):
    configure(WEBHOOK_DISABLE_LIMIT=4)
    configure(WEBHOOK_DISABLE_AFTER=0)
    receiver = Receiver(default=500)
    try:
        hook = _hook(api, receiver.url, SAVE_TRIGGERS)
        api.post("/api/contacts/new", {"email": "jon@example.com"})
        drain()
        assert api.get(f"/api/hooks/{hook['id']}").json["hook"]["isPublished"] is True  # 3 failures so far
        api.post("/api/contacts/new", {"email": "joy@example.com"})
        drain()
        assert api.get(f"/api/hooks/{hook['id']}").json["hook"]["isPublished"] is False
        assert len(receiver.received) == 4  # the retries after the 4th failure are not sent
        errors = [e["error"] for e in api.get(f"/api/hooks/{hook['id']}/logs").json["logs"]]
        assert errors[0] == "Not sent: the webhook is unpublished."
    finally:
        receiver.close()


def test_timeouts_connection_errors_and_redirects_are_retried(api, drain, configure):
    configure(WEBHOOK_TIMEOUT=0.1)
    configure(WEBHOOK_RETRY_DELAYS=(0,))
    slow, redirecting, closed = Receiver(delay=0.3), Receiver(default=302), Receiver()
    closed.close()
    try:
        hooks = [_hook(api, r.url, SAVE_TRIGGERS)["id"] for r in (slow, redirecting, closed)]
        api.post("/api/contacts/new", {"email": "lea@example.com"})
        drain()
        slow_errors, redirect_errors, closed_errors = (
            [e["error"] for e in api.get(f"/api/hooks/{hook}/logs").json["logs"]] for hook in hooks
        )
        assert slow_errors == ["Timed out after 0.1 s."] * 2
        assert redirect_errors == ["HTTP 302"] * 2 and len(redirecting.received) == 2  # Location not followed
        assert len(closed_errors) == 2 and all(e.startswith("Connection failed") for e in closed_errors)
        assert len(_dead_letters()) == 3
    finally:
        slow.close()
        redirecting.close()


def test_private_targets_are_refused_unless_allowed(api, drain, receiver, configure):
    configure(WEBHOOK_ALLOWED_NETWORKS=())
    hook = _hook(api, receiver.url, SAVE_TRIGGERS)
    api.post("/api/contacts/new", {"email": "max@example.com"})
    drain()
    assert receiver.received == []
    (entry,) = api.get(f"/api/hooks/{hook['id']}/logs").json["logs"]
    assert entry["error"] == "Refused: 127.0.0.1 resolves to 127.0.0.1, a loopback address."
    assert entry["statusCode"] is None
    assert len(_dead_letters()) == 1  # not retried: the target will not become public


def test_an_event_whose_message_was_lost_is_sent_by_the_sweep(api, drain, receiver, monkeypatch):
    from chalicelib.domain.webhooks import webhook_events
    from chalicelib.ports import queues

    _hook(api, receiver.url, SAVE_TRIGGERS)

    def unavailable(*args, **kwargs):
        raise queues.QueueError("SQS is down")

    with monkeypatch.context() as patch:
        patch.setattr(queues, "send", unavailable)
        assert api.post("/api/contacts/new", {"email": "ned@example.com"}).status_code == 201
    drain()
    assert receiver.received == []
    webhook_events.sweep()
    drain()
    assert receiver.received == []  # too recent: its message may still be on the way
    monkeypatch.setattr(webhook_events, "STALE_SECONDS", 0)
    webhook_events.sweep()
    webhook_events.sweep()  # twice: the duplicate message finds the item gone
    drain()
    assert len(receiver.received) == 1
    assert list(webhook_events.store.iterate(webhook_events.OUTBOX)) == []


def test_the_log_is_bounded_paged_and_dropped_with_its_hook(api, drain, receiver, configure):
    configure(WEBHOOK_LOG_MAX=3)
    hook = _hook(api, receiver.url, SAVE_TRIGGERS)
    for n in range(5):
        api.post("/api/contacts/new", {"email": f"log{n}@example.com"})
    drain()
    logs = api.get(f"/api/hooks/{hook['id']}/logs").json
    assert int(logs["total"]) == 3 and len(logs["logs"]) == 3
    assert [e["id"] for e in logs["logs"]] == [5, 4, 3]
    assert [e["id"] for e in api.get(f"/api/hooks/{hook['id']}/logs?start=1&limit=1").json["logs"]] == [4]
    from chalicelib.store import port as entities

    assert [row["id"] for row in entities.iterate(f"hooklog#{hook['id']}")] == [3, 4, 5]
    assert api.get("/api/hooks/999/logs").status_code == 404
    assert api.get(f"/api/hooks/{hook['id']}/logs?limit=x").status_code == 400
    api.post("/api/contacts/new", {"email": "late@example.com"})
    api.delete(f"/api/hooks/{hook['id']}/delete")
    drain()
    assert list(entities.iterate(f"hooklog#{hook['id']}")) == []
    assert len(receiver.received) == 5 and _dead_letters() == []  # the last event had no hook left


def test_segment_membership_and_form_submissions_reach_their_hooks(api, drain, receiver):
    from tests.api.test_forms_submit import make_form, post

    _hook(api, receiver.url, ["mautic.lead_list_change", "mautic.form_on_submit"])
    segment = api.post(
        "/api/segments/new",
        {
            "name": "Pragueans",
            "filters": [
                {"glue": "and", "field": "city", "object": "lead", "operator": "=", "properties": {"filter": "Prague"}}
            ],
        },
    )
    segment_id = segment.json["list"]["id"]
    contact_id = api.post("/api/contacts/new", {"email": "pia@example.com", "city": "Prague"}).json["contact"]["id"]
    api.patch(f"/api/contacts/{contact_id}/edit", {"city": "Brno"})
    form = make_form(api)
    assert post(api, form["id"], {"email": "pia@example.com", "first_name": "Pia"}).status_code == 200
    drain()
    changes = _events(receiver, "mautic.lead_list_change")
    assert [(e["action"], e["segment"]["id"], e["contact"]["id"]) for e in changes] == [
        ("added", segment_id, contact_id),
        ("removed", segment_id, contact_id),
    ]
    assert changes[0]["segment"]["name"] == "Pragueans"
    (submitted,) = _events(receiver, "mautic.form_on_submit")
    submission = submitted["submission"]
    assert submission["form"]["id"] == form["id"] and submission["lead"]["id"] == contact_id
    assert submission["results"]["email"] == "pia@example.com"
