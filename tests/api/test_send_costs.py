"""Budgets of segment sends (issue 43): a batch makes at most 5 AWS calls per message, SES's
included, and waits on far fewer sequential round trips than it makes calls (several messages in
flight); the send request's sequential round trips do not grow with the segment's size (it sends
inline only for EMAIL_SEND_INLINE_SECONDS, then queues). Write units per message are measured by
`make capacity MIX=segment-send` (tests/bench/test_capacity.py keeps their budget)."""

from collections import Counter

import pytest

from chalicelib import config
from chalicelib.store import queues
from tests.api.test_email_segment_send import _audience, _recipients
from tests.api.test_email_send import make_email
from tests.round_trips import api_calls, modelled

pytestmark = pytest.mark.aws  # about AWS itself (SQS visibility, DynamoDB calls and keys): over moto

CALLS_PER_MESSAGE = 5  # SES's included (docs/storage.md "Segment sends in batches")
POLLER = ("ReceiveMessage", "DeleteMessage", "ChangeMessageVisibility")  # Lambda's poller, not the function


def _batches(api, mail_doc):
    """Queue the send (nothing inline) and run its plan: the batch bodies."""
    from chalicelib.workers import sends

    api.post(f"/api/emails/{mail_doc['id']}/send")
    ((receipt, plan, _),) = queues.receive("sends")
    sends.handle(plan)
    queues.delete("sends", receipt)
    return [body for _, body, _ in queues.receive("sends")]


@pytest.fixture
def no_inline(configure):
    configure(EMAIL_SEND_INLINE=0)


def test_a_batch_makes_at_most_five_calls_per_message(api, drain, no_inline, configure):
    from chalicelib.workers import sends

    configure(VERSIONS_TTL=60)  # as on AWS: the versions item once a second per container
    segment, ids = _audience(api, drain, 50)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    (batch,) = _batches(api, mail_doc)
    calls: Counter[str] = Counter()

    def counted(call, client, operation, params):
        calls[operation] += 1
        return call(client, operation, params)

    with api_calls(counted):
        sends.handle(dict(batch))
    assert len(_recipients()) == len(ids) == calls["SendRawEmail"]
    made = sum(n for operation, n in calls.items() if operation not in POLLER)
    assert made <= CALLS_PER_MESSAGE * len(ids), calls
    assert calls["GetItem"] <= 4, calls  # the run (twice), the email, the guard: nothing read per contact alone


def test_a_batch_keeps_several_messages_in_flight(api, drain, no_inline):
    from chalicelib.workers import sends

    segment, ids = _audience(api, drain, 40)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    (batch,) = _batches(api, mail_doc)
    with modelled(delay=0.02) as trips:
        sends.handle(dict(batch))
    assert len(_recipients()) == len(ids)
    assert trips.rounds * 3 <= trips.calls, (trips.rounds, trips.calls)


def _segment(api, drain, members, city):
    """A segment of `members` new contacts living in `city`."""
    rule = {"glue": "and", "field": "city", "object": "lead", "type": "text", "operator": "="}
    filters = [dict(rule, properties={"filter": city})]
    segment = api.post("/api/segments/new", {"name": city, "filters": filters}).json["list"]
    for n in range(members):
        assert api.post("/api/contacts/new", {"email": f"{city}{n}@example.com", "city": city}).status_code == 201
    drain()
    return segment


def _request_rounds(api, drain, members, city):
    segment = _segment(api, drain, members, city)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    with modelled(delay=0.02) as trips:
        answer = api.post(f"/api/emails/{mail_doc['id']}/send")
    assert answer.status_code == 200
    return trips.rounds, answer.json["sentCount"]


def test_the_send_request_waits_on_the_same_round_trips_whatever_the_segment(api, drain, configure):
    configure(EMAIL_SEND_INLINE_SECONDS=0.2)
    small, sent_small = _request_rounds(api, drain, 30, "Prague")
    large, sent_large = _request_rounds(api, drain, 150, "Paris")
    assert sent_large < 150  # the request sent what its time allowed; the workers send the rest
    assert large <= small + 2, (small, large)
    drain()
    assert len(_recipients()) == 180


def test_an_emails_send_rows_and_records_spread_over_the_family_shards(api, drain, no_inline):
    """`emailsend#*` and `emailstat#*` in SHARDED_KINDS: one email's rows and send records land under 16
    partition keys each, and what the API shows is as without them."""
    from chalicelib.store.models import Entity
    from tests.api.test_email_segment_send import _shown

    segment, ids = _audience(api, drain, 40)
    mail_doc = make_email(api, emailType="list", lists=[segment["id"]])
    api.post(f"/api/emails/{mail_doc['id']}/send")
    drain()
    for family in ("emailsend", "emailstat"):
        keys = {item.kind for item in Entity.scan() if item.kind.startswith(f"{family}#{mail_doc['id']}")}
        assert len(keys) == config.active().SHARDED_KINDS[f"{family}#*"] == 16, keys
    shown = _shown(api, mail_doc)
    assert shown["sentCount"] == 40 and shown["sendProgress"]["sent"] == 40
    stats = api.get(f"/api/stats/email_stats?where[0][col]=email_id&where[0][expr]=eq&where[0][val]={mail_doc['id']}")
    assert stats.status_code == 200 and int(stats.json["total"]) == 40


def test_reshard_moves_send_rows_written_before_the_family_was_sharded(configure, api, drain, no_inline):
    from chalicelib.store import entities, reshard

    sharded = dict(config.active().SHARDED_KINDS)
    configure(SHARDED_KINDS={k: n for k, n in sharded.items() if k != "emailsend#*"})  # the layout before issue 43
    entities.put_if("emailsend#9", {"id": 5, "status": "sent"})
    configure(SHARDED_KINDS=sharded)
    assert entities.get("emailsend#9", 5) is None  # under the old key
    reshard.reshard()
    assert entities.get("emailsend#9", 5)["status"] == "sent"
