"""A segment send's `email.sent` events (issue 43, `domain/messaging/sent_events.py`): a contact the
event leaves unchanged is not rewritten, yet everything a contact write brought still happens (points,
webhooks, the timeline and its feed), and a contact changed or deleted while its message went out gets
its event as a transaction would have given it (on the stored contact, or not at all)."""

import pytest

from chalicelib.domain.contacts import erasure
from chalicelib.domain.kernel import timeline
from chalicelib.domain.messaging import sent_events
from chalicelib.store import port as store
from tests.api.test_email_segment_send import _audience, _recipients
from tests.api.test_email_send import hook_receiver, make_email, received  # noqa: F401 - a fixture


@pytest.fixture
def no_inline(configure):
    configure(EMAIL_SEND_INLINE=0)


def _sent_events(contact_id):
    return [e for e in timeline.contact_events(contact_id) if e["event"] == "email.sent"]


def _send(api, drain, segment):
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    api.post(f"/api/emails/{mail_doc['id']}/send")
    drain()
    return mail_doc


def test_an_unchanged_contact_gets_its_event_in_the_feed_and_is_not_rewritten(api, drain, no_inline):
    segment, ids = _audience(api, drain, 30)
    before = {i: store.get("contact", i) for i in ids}
    mail_doc = _send(api, drain, segment)
    assert len(_recipients()) == 30
    for contact_id in ids:
        assert store.get("contact", contact_id) == before[contact_id]  # same revision, same document
        (event,) = _sent_events(contact_id)
        assert event["details"]["emailId"] == mail_doc["id"] and event[store.FEED].startswith("timeline#")
    query = f"where[0][col]=email_id&where[0][expr]=eq&where[0][val]={mail_doc['id']}"
    assert int(api.get(f"/api/stats/email_stats?{query}").json["total"]) == 30  # read from the feed


def test_points_for_a_send_are_still_awarded(api, drain, no_inline):
    api.post("/api/points/new", {"name": "Sent", "type": "email.send", "delta": 3, "repeatable": True})
    segment, ids = _audience(api, drain, 5)
    _send(api, drain, segment)
    for contact_id in ids:
        assert api.get(f"/api/contacts/{contact_id}").json["contact"]["points"] == 3
        assert len(_sent_events(contact_id)) == 1


def test_the_send_webhook_still_fires_for_each_member(api, drain, no_inline, hook_receiver):  # noqa: F811
    receiver = hook_receiver(["mautic.email_on_send"])
    segment, ids = _audience(api, drain, 4)
    _send(api, drain, segment)
    drain()
    assert sorted(hook["contact"]["id"] for hook in received(receiver, "mautic.email_on_send")) == sorted(ids)


def _meanwhile(monkeypatch, change):
    """Run change() after the chunk's events were planned, before they are stored and checked."""
    original = sent_events._store_quiet

    def late(quiet):
        change()
        original(quiet)

    monkeypatch.setattr(sent_events, "_store_quiet", late)


def test_a_contact_edited_meanwhile_keeps_the_edit_and_gets_one_event(api, drain, no_inline, monkeypatch):
    segment, ids = _audience(api, drain, 3)
    edited, revs = ids[1], []

    def edit():
        api.patch(f"/api/contacts/{edited}/edit", {"lastname": "Later"})
        revs.append(store.get("contact", edited)["_rev"])

    _meanwhile(monkeypatch, edit)
    _send(api, drain, segment)
    assert api.get(f"/api/contacts/{edited}").json["contact"]["fields"]["all"]["lastname"] == "Later"
    assert store.get("contact", edited)["_rev"] == revs[0] + 1  # its event went in its own transaction
    assert [len(_sent_events(i)) for i in ids] == [1, 1, 1]


def test_a_contact_deleted_meanwhile_is_left_no_event(api, drain, no_inline, monkeypatch):
    segment, ids = _audience(api, drain, 3)
    gone = ids[0]

    def erased():  # deleted and its erasure job done before the send stores its events
        api.delete(f"/api/contacts/{gone}/delete")
        erasure.run(gone)

    _meanwhile(monkeypatch, erased)
    _send(api, drain, segment)
    drain()
    assert store.get("contact", gone) is None
    assert list(timeline.contact_events(gone)) == []
    assert [len(_sent_events(i)) for i in ids[1:]] == [1, 1]
