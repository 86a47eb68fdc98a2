"""Issue 40: broadcasts (Mautic's `mautic:broadcasts:send`): a published `list` email or text message
goes out on the minute job's schedule once its `publishUp` passed, to each member of its segments once,
later joiners included, until it is unpublished or `publishDown` passes."""

from datetime import timedelta

import pytest

from chalicelib import workers
from chalicelib.domain.kernel import clock
from chalicelib.domain.messaging import broadcast_index, broadcasts
from chalicelib.ports import queues
from chalicelib.store import port as store
from tests.api.test_email_send import make_email, sent_messages
from tests.api.test_sms_send import sms_messages

PRAGUE = [
    {
        "glue": "and",
        "field": "city",
        "object": "lead",
        "type": "text",
        "operator": "=",
        "properties": {"filter": "Prague"},
    }
]


@pytest.fixture
def period(frozen, configure):
    """The clock held at the start of a broadcast period (every 5 minutes)."""
    configure(BROADCAST_MINUTES=5)
    frozen.moment = frozen.moment.replace(minute=0, second=0) + timedelta(hours=1)
    return frozen


def _segment(api):
    return api.post("/api/segments/new", {"name": "Prague", "filters": PRAGUE}).json["list"]


def _contact(api, n, **values):
    body = dict({"email": f"c{n}@example.com", "firstname": f"C{n}", "city": "Prague"}, **values)
    return api.post("/api/contacts/new", body).json["contact"]


def _recipients():
    return sorted(m["To"].addresses[0].addr_spec for m in sent_messages())


def _tick(clock_, drain, minutes=5):
    """Move the clock on and run the minute jobs, then the workers."""
    clock_.advance(minutes=minutes)
    workers.run_jobs("minute")
    drain()


def _iso(moment):
    return clock.iso(moment)


def _since():
    """A `publishUp` a minute ago (Mautic broadcasts only messages with one)."""
    return _iso(clock.now() - timedelta(minutes=1))


def _list_email(api, **extra):
    return make_email(api, emailType="list", publishUp=_since(), **extra)


def test_a_scheduled_broadcast_waits_for_publish_up_then_reaches_members_and_later_joiners_once(api, drain, period):
    segment = _segment(api)
    for n in range(3):
        _contact(api, n)
    _contact(api, 9, city="Brno")
    drain()
    up = period.moment + timedelta(minutes=7)
    make_email(api, emailType="list", lists=[segment["id"]], publishUp=_iso(up))
    workers.run_jobs("minute")
    drain()
    assert sent_messages() == []  # publishUp has not passed
    _tick(period, drain)  # +5: still before publishUp
    assert sent_messages() == []
    _tick(period, drain)  # +10
    assert _recipients() == ["c0@example.com", "c1@example.com", "c2@example.com"]
    period.advance(minutes=1)
    _contact(api, 3)  # joins the segment later
    _tick(period, drain, minutes=4)  # +15
    assert _recipients() == [f"c{n}@example.com" for n in range(4)]
    _tick(period, drain)
    _tick(period, drain)
    assert _recipients() == [f"c{n}@example.com" for n in range(4)]  # once each


def test_the_job_runs_only_at_its_period(api, drain, period):
    segment = _segment(api)
    _contact(api, 0)
    drain()
    _list_email(api, lists=[segment["id"]])
    period.advance(minutes=1)
    workers.run_jobs("minute")
    drain()
    assert sent_messages() == []
    _tick(period, drain, minutes=4)
    assert _recipients() == ["c0@example.com"]


def test_template_emails_unpublished_ones_and_those_without_publish_up_are_not_broadcast(api, drain, period):
    segment = _segment(api)
    _contact(api, 0)
    drain()
    make_email(api, emailType="template", lists=[segment["id"]], publishUp=_since())
    make_email(api, emailType="list", lists=[segment["id"]])  # no publishUp: sent by POST /send only
    _list_email(api, lists=[segment["id"]], isPublished=False)
    _tick(period, drain)
    assert sent_messages() == []


def test_unpublishing_or_publish_down_stops_the_broadcast(api, drain, period):
    segment = _segment(api)
    _contact(api, 0)
    drain()
    down = period.moment + timedelta(minutes=7)
    first = _list_email(api, lists=[segment["id"]], publishDown=_iso(down))
    second = _list_email(api, lists=[segment["id"]], subject="Second")
    _tick(period, drain)
    assert len(sent_messages()) == 2
    api.patch(f"/api/emails/{second['id']}/edit", {"isPublished": False})
    _contact(api, 1)
    _tick(period, drain)  # +10: past publishDown, and the second is unpublished
    assert len(sent_messages()) == 2
    api.patch(f"/api/emails/{second['id']}/edit", {"isPublished": True})
    _tick(period, drain)
    subjects = sorted((m["To"].addresses[0].addr_spec, m["Subject"]) for m in sent_messages())
    assert subjects == [("c0@example.com", "Hello C0"), ("c0@example.com", "Second"), ("c1@example.com", "Second")]
    assert first["id"] != second["id"]


def test_a_broadcast_and_a_segment_send_reach_each_contact_once(api, drain, period, configure):
    configure(EMAIL_SEND_INLINE=1)
    segment = _segment(api)
    for n in range(3):
        _contact(api, n)
    drain()
    mail = _list_email(api, lists=[segment["id"]])
    assert api.post(f"/api/emails/{mail['id']}/send").json["sentCount"] == 1  # Mautic's answer, at once
    _tick(period, drain)
    assert _recipients() == ["c0@example.com", "c1@example.com", "c2@example.com"]


def test_do_not_contact_frequency_and_a_removed_member(api, drain, period):
    segment = _segment(api)
    ids = [_contact(api, n)["id"] for n in range(3)]
    drain()
    api.post(f"/api/contacts/{ids[0]}/dnc/email/add", {"reason": 1})
    api.post(f"/api/segments/{segment['id']}/contact/{ids[1]}/remove")
    _list_email(api, lists=[segment["id"]])
    _tick(period, drain)
    assert _recipients() == ["c2@example.com"]


def test_large_segments_are_walked_in_pages(api, drain, period, configure):
    configure(BROADCAST_PAGE=2)
    configure(EMAIL_SEND_BATCH=2)
    segment = _segment(api)
    for n in range(5):
        _contact(api, n)
    drain()
    mail = _list_email(api, lists=[segment["id"]])
    period.advance(minutes=5)
    workers.run_jobs("minute")
    walks = []
    while True:
        messages = queues.receive("sends")
        if not messages:
            break
        for receipt, body, _ in messages:
            walks.append(body["type"])
            from chalicelib.workers import sends

            sends.handle(dict(body))
            queues.delete("sends", receipt)
    assert walks.count("broadcast") == 3 and walks.count("broadcast-batch") == 3
    assert _recipients() == [f"c{n}@example.com" for n in range(5)]
    cursor = store.get(broadcast_index.state_kind("email"), mail["id"])["segments"][str(segment["id"])]
    assert cursor["walked"] is True


def test_a_paused_reputation_guard_holds_the_broadcast(api, drain, period, monkeypatch):
    from chalicelib.domain.messaging import reputation

    segment = _segment(api)
    _contact(api, 0)
    drain()
    _list_email(api, lists=[segment["id"]])
    running = reputation.paused
    monkeypatch.setattr(reputation, "paused", lambda: {"paused": True, "reason": "bounces"})
    _tick(period, drain)
    assert sent_messages() == []
    monkeypatch.setattr(reputation, "paused", running)
    _tick(period, drain)
    assert _recipients() == ["c0@example.com"]


def test_a_list_text_message_reaches_each_member_once_do_not_contact_respected(api, drain, period):
    segment = _segment(api)
    ids = [_contact(api, n, mobile=f"+42077712345{n}")["id"] for n in range(3)]
    drain()
    api.post(f"/api/contacts/{ids[1]}/dnc/sms/add", {"reason": 1})
    body = {
        "name": "Flash",
        "message": "Hi {contactfield=firstname}",
        "smsType": "list",
        "lists": [segment["id"]],
        "publishUp": _since(),
    }
    text = api.post("/api/smses/new", body).json["sms"]
    assert [s["id"] for s in text["lists"]] == [segment["id"]]
    _tick(period, drain)
    _contact(api, 7, mobile="+420777123457")
    _tick(period, drain)
    _tick(period, drain)
    sent = sorted((m[0], m[1]) for m in sms_messages())
    assert sent == [("+420777123450", "Hi C0"), ("+420777123452", "Hi C2"), ("+420777123457", "Hi C7")]
    assert api.get(f"/api/smses/{text['id']}").json["sms"]["sentCount"] == 3


def test_an_erased_contact_leaves_no_join_rows_nor_broadcast_records(api, drain, period):
    from chalicelib.domain.messaging import text_sends
    from chalicelib.domain.messaging.recipients import record_kind
    from chalicelib.domain.segments import membership

    segment = _segment(api)
    contact = _contact(api, 0, mobile="+420777123450")
    drain()
    mail = _list_email(api, lists=[segment["id"]])
    text = api.post(
        "/api/smses/new",
        {"name": "Flash", "message": "Hi", "smsType": "list", "lists": [segment["id"]], "publishUp": _since()},
    ).json["sms"]
    _tick(period, drain)
    joins = membership.joins_kind(segment["id"])
    assert [row["contact"] for row in store.iterate(joins)] == [contact["id"]]
    assert store.get(record_kind(mail["id"]), contact["id"])["status"] == "sent"
    assert store.get(text_sends.record_kind(text["id"]), contact["id"])["status"] == "sent"
    assert api.delete(f"/api/contacts/{contact['id']}/delete").status_code == 200
    drain()
    assert list(store.iterate(joins)) == []
    assert store.get(record_kind(mail["id"]), contact["id"]) is None
    assert store.get(text_sends.record_kind(text["id"]), contact["id"]) is None


def test_join_rows_older_than_their_days_are_pruned(api, drain, period):
    from chalicelib.domain.segments import membership

    segment = _segment(api)
    _contact(api, 0)
    drain()
    period.advance(days=membership.JOIN_DAYS, minutes=1)
    _contact(api, 1)
    drain()
    workers.run_jobs("hour")
    assert len(list(store.iterate(membership.joins_kind(segment["id"])))) == 1


def test_a_limited_user_sees_only_ids_of_others_segments_and_pages_and_none_of_their_messages(api):
    from tests.api.test_permissions import _as

    secret = api.post("/api/segments/new", {"name": "Zqx secret", "isGlobal": False}).json["list"]
    page = api.post("/api/pages/new", {"title": "Zqx prefs", "alias": "zqx", "isPreferenceCenter": True}).json["page"]
    theirs = api.post("/api/smses/new", {"name": "Zqx flash", "smsType": "list", "lists": [secret["id"]]}).json["sms"]
    mallory = _as(
        api,
        "mallory",
        {"sms:smses": ["viewown", "editown", "create"], "email:emails": ["viewown", "editown", "create"]},
    )
    assert mallory.get(f"/api/smses/{theirs['id']}").status_code == 403
    assert mallory.patch(f"/api/smses/{theirs['id']}/edit", {"lists": []}).status_code == 403
    assert api.get(f"/api/smses/{theirs['id']}").json["sms"]["lists"][0]["id"] == secret["id"]
    mine = mallory.post("/api/smses/new", {"name": "Mine", "smsType": "list", "lists": [secret["id"]]})
    mail = mallory.post("/api/emails/new", {"name": "Mine", "preferenceCenter": page["id"]})
    for answer, key, name, kept in (
        (mine, "sms", "lists", [{"id": secret["id"]}]),
        (mail, "email", "preferenceCenter", {"id": page["id"]}),
    ):
        assert "zqx" not in str(answer.json).lower(), answer.json
        if answer.status_code == 400:  # a house refusing references the caller may not view names the field
            assert name in answer.json["errors"][0]["details"]
        else:  # else the reference shows only the bare id of what she may not view
            assert answer.status_code == 201 and answer.json[key][name] == kept


def test_a_broadcast_follows_frequency_rules(api, drain, period):
    from chalicelib.domain.messaging import recipients

    segment = _segment(api)
    ann = _contact(api, "ann", frequencyRules={"email": {"frequency_number": 1, "frequency_time": "DAY"}})
    _contact(api, "bob")
    drain()
    _list_email(api, lists=[segment["id"]], subject="First")
    _tick(period, drain)
    second = _list_email(api, lists=[segment["id"]], subject="Second")
    _tick(period, drain, minutes=60)
    received = sorted((m["To"].addresses[0].addr_spec, m["Subject"]) for m in sent_messages())
    assert received == [("cann@example.com", "First"), ("cbob@example.com", "First"), ("cbob@example.com", "Second")]
    assert store.get(recipients.record_kind(second["id"]), ann["id"])["status"] == "deferred"
    _tick(period, drain, minutes=24 * 60)  # its day is over: the deferred send falls due
    assert sum(m["Subject"] == "Second" for m in sent_messages()) == 2
    _tick(period, drain)
    assert len(sent_messages()) == 4


def test_a_batch_met_by_a_pause_comes_back_later_untouched(api, drain, period, monkeypatch):
    from chalicelib.domain.messaging import recipients, reputation

    segment = _segment(api)
    contact = _contact(api, 0)
    drain()
    mail = _list_email(api, lists=[segment["id"]])
    broadcasts.walk("email", mail["id"])
    ((receipt, body, _),) = queues.receive("sends")
    queues.delete("sends", receipt)
    monkeypatch.setattr(reputation, "paused", lambda: {"paused": True, "reason": "bounces"})
    later = []
    monkeypatch.setattr(queues, "send", lambda queue, bodies, delay=0: later.append((queue, list(bodies), delay)))
    broadcasts.batch(body["channel"], body["message"], body["contacts"])
    assert later == [("sends", [body], broadcasts.PAUSE_DELAY)]
    assert sent_messages() == [] and store.get(recipients.record_kind(mail["id"]), contact["id"]) is None


def test_messages_saved_before_the_index_existed_are_indexed_once(api, drain, period):
    segment = _segment(api)
    _contact(api, 0)
    drain()
    mail = _list_email(api, lists=[segment["id"]])
    store.remove(broadcast_index.kind("email"), mail["id"])  # as saved before the index existed
    _tick(period, drain)
    assert sent_messages() == []
    workers.run_jobs("hour")
    assert store.get(broadcast_index.kind("email"), mail["id"])["lists"] == [segment["id"]]
    _tick(period, drain)
    assert _recipients() == ["c0@example.com"]


def test_a_deleted_segments_join_rows_go_with_it(api, drain, period):
    from chalicelib.domain.segments import membership

    segment = _segment(api)
    _contact(api, 0)
    drain()
    assert len(list(store.iterate(membership.joins_kind(segment["id"])))) == 1
    assert api.delete(f"/api/segments/{segment['id']}/delete").status_code == 200
    drain()
    assert list(store.iterate(membership.joins_kind(segment["id"]))) == []
