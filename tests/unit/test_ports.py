"""The ports' semantics, the same cases on each implementation: AWS's (`aws_adapters.build()`:
SQS, S3, DynamoDB, SES and SNS over moto, api tier; real HTTP and the system clock in process) and
the in-memory set the tests run over (`devstack/memory/`, unit tier). As `test_store.py` does for
the documents."""

import json
import os
import time
from datetime import datetime, timedelta, timezone

import pytest

from chalicelib import config
from chalicelib.ports.mail import Mail, Rejected
from chalicelib.store.queue_names import MAX_RECEIVES
from devstack.memory.adapters import memory_adapters

QUEUE = "segments"


@pytest.fixture(params=["memory", pytest.param("aws", marks=pytest.mark.aws)])
def moto_set(request):
    """The adapters under test: in memory, or AWS's over moto (from the first-start state)."""
    if request.param == "aws":
        request.getfixturevalue("fresh")
        from chalicelib import aws_adapters

        return aws_adapters.build()
    return memory_adapters()


@pytest.fixture(params=["memory", "real"])
def process_set(request):
    """The adapters that need no AWS: in memory, or the real ones (HTTP, SNS fetch, clock, outages)."""
    if request.param == "real":
        from chalicelib import aws
        from chalicelib.channels import http, sns_https
        from chalicelib.ports.adapters import Adapters
        from chalicelib.ports.clock import SystemClock

        memory = memory_adapters()
        return Adapters(**dict(vars(memory), http=http, certificates=sns_https, clock=SystemClock(), outages=aws))
    return memory_adapters()


# --- queues ---------------------------------------------------------------------------------------


def test_a_received_message_carries_its_body_and_count_and_is_gone_once_deleted(moto_set):
    queues = moto_set.queues
    queues.send(QUEUE, [{"type": "rebuild", "id": 7}])
    [(receipt, body, count)] = queues.receive(QUEUE)
    assert body == {"type": "rebuild", "id": 7} and count == 1
    queues.delete(QUEUE, receipt)
    assert queues.receive(QUEUE) == []


def test_a_received_message_is_invisible_until_its_visibility_changes(moto_set):
    queues = moto_set.queues
    queues.send(QUEUE, [{"n": 1}])
    [(receipt, _body, _count)] = queues.receive(QUEUE)
    assert queues.receive(QUEUE) == []
    assert queues.change_visibility(QUEUE, {receipt: 0}) == []
    [(_receipt, body, count)] = queues.receive(QUEUE)
    assert body == {"n": 1} and count == 2


def test_a_visibility_change_of_a_deleted_message_is_refused_and_the_others_hold(moto_set):
    queues = moto_set.queues
    queues.send(QUEUE, [{"n": 1}, {"n": 2}])
    (gone, _a, _c), (kept, _b, _d) = queues.receive(QUEUE)
    queues.delete(QUEUE, gone)
    assert queues.change_visibility(QUEUE, {gone: 0, kept: 0}) == [gone]
    assert [body for _receipt, body, _count in queues.receive(QUEUE)] == [{"n": 2}]


def test_dead_letter_keeps_a_body_as_it_was_received(moto_set):
    moto_set.queues.dead_letter(QUEUE, ['{"poison": 1}'])
    [(_receipt, body, _count)] = moto_set.queues.receive(QUEUE, dead_letter=True)
    assert body == {"poison": 1}


def test_a_delayed_message_is_not_received_before_its_delay(moto_set):
    moto_set.queues.send(QUEUE, [{"n": 1}], delay=60)
    assert moto_set.queues.receive(QUEUE) == []


def test_a_receive_takes_at_most_ten(moto_set):
    moto_set.queues.send(QUEUE, [{"n": n} for n in range(12)])
    assert len(moto_set.queues.receive(QUEUE)) == 10
    assert len(moto_set.queues.receive(QUEUE, limit=5)) == 2


def test_a_message_received_max_receives_times_moves_to_the_dead_letter_queue(moto_set):
    queues = moto_set.queues
    queues.send(QUEUE, [{"poison": True}])
    for attempt in range(1, MAX_RECEIVES + 1):
        [(receipt, _body, count)] = queues.receive(QUEUE)
        assert count == attempt
        queues.change_visibility(QUEUE, {receipt: 0})
    assert queues.receive(QUEUE) == []
    [(_receipt, body, _count)] = queues.receive(QUEUE, dead_letter=True)
    assert body == {"poison": True}


def test_redrive_moves_the_dead_letters_back(moto_set):
    queues = moto_set.queues
    queues.send(QUEUE, [{"n": 1}, {"n": 2}], dead_letter=True)
    assert queues.redrive(QUEUE) == 2
    assert sorted(body["n"] for _receipt, body, _count in queues.receive(QUEUE)) == [1, 2]
    assert queues.receive(QUEUE, dead_letter=True) == []


# --- files ----------------------------------------------------------------------------------------


def test_an_object_reads_back_with_its_type_until_deleted(moto_set):
    files = moto_set.files
    assert files.get("images/a.png") is None and files.head("images/a.png") is None
    files.put("images/a.png", b"\x89PNG", "image/png")
    assert files.get("images/a.png") == (b"\x89PNG", "image/png")
    assert files.head("images/a.png") == {"size": 4, "contentType": "image/png"}
    files.delete("images/a.png")
    files.delete("images/a.png")  # idempotent
    assert files.get("images/a.png") is None


def test_a_listing_names_the_folders_and_files_directly_under_a_prefix(moto_set):
    files = moto_set.files
    for key in ("themes/a.txt", "themes/blank/t.html", "themes/blank/c.css", "themes/z/x", "other/y"):
        files.put(key, b"x", "text/plain")
    assert files.listing("themes/") == (["blank", "z"], ["a.txt"])
    assert files.listing("none/") == ([], [])


def test_purges_forget_objects_and_only_those_wanted(moto_set):
    files = moto_set.files
    for key in ("forms/1/a.pdf", "forms/1/b.pdf", "forms/2/c.pdf", "keep.pdf"):
        files.put(key, b"%PDF", "application/pdf")
    files.purge("keep.pdf")
    assert files.get("keep.pdf") is None
    assert files.purge_under("forms/", lambda key: key.startswith("forms/1/"), 60) is True
    assert files.listing("forms/") == (["2"], [])
    assert files.get("forms/2/c.pdf") == (b"%PDF", "application/pdf")


# --- rate windows ---------------------------------------------------------------------------------


class FakeTime:
    def __init__(self, start):
        self.now, self.slept = start, []

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(round(seconds, 3))
        self.now += seconds


def test_a_window_counts_its_events_and_tells_the_time_left(moto_set):
    counters, times = moto_set.window_counters, FakeTime(6000.5)
    assert counters.counted("login#1.2.3.4", 60, clock=times.clock) == (0, 60)
    assert counters.count("login#1.2.3.4", 60, clock=times.clock) == (1, 60)
    times.now = 6030
    assert counters.count("login#1.2.3.4", 60, clock=times.clock) == (2, 30)
    assert counters.counted("login#1.2.3.4", 60, clock=times.clock) == (2, 30)
    times.now = 6060
    assert counters.counted("login#1.2.3.4", 60, clock=times.clock) == (0, 60)


def test_acquire_lets_the_rate_through_then_waits_for_the_next_window(moto_set):
    counters, times = moto_set.window_counters, FakeTime(1000.25)
    taken = [counters.acquire("sends", 3, sleep=times.sleep, clock=times.clock) for _ in range(7)]
    assert taken == [1000.25, 1000.25, 1000.25, 1001.0, 1001.0, 1001.0, 1002.0] and times.slept == [0.75, 1.0]
    assert counters.acquire("sends", 0, sleep=times.sleep, clock=times.clock) == 1002.0


# --- tokens ---------------------------------------------------------------------------------------


def test_a_token_is_used_once_and_forgotten_when_deleted(moto_set):
    tokens = moto_set.tokens
    assert tokens.get("code", "secret") == (None, False) and tokens.use("code", "secret") is False
    assert tokens.put("code", "secret", {"user": 1}, seconds=60) is True
    assert tokens.get("code", "secret") == ({"user": 1}, False)
    assert tokens.use("code", "secret") is True and tokens.use("code", "secret") is False
    assert tokens.get("code", "secret") == ({"user": 1}, True)
    tokens.delete("code", "secret")
    assert tokens.get("code", "secret") == (None, False)


def test_only_new_keeps_the_first_and_an_expired_token_reads_as_none(moto_set):
    tokens = moto_set.tokens
    assert tokens.put("nonce", "n1", 1, only_new=True) is True
    assert tokens.put("nonce", "n1", 2, only_new=True) is False
    assert tokens.get("nonce", "n1") == (1, False)
    tokens.put("code", "short", "x", seconds=0.05)
    time.sleep(0.1)
    assert tokens.get("code", "short") == (None, False)


# --- mail and SMS ---------------------------------------------------------------------------------


def _outbox(extension, needle):
    names = sorted(os.listdir(config.active().OUTBOX_DIR)) if os.path.isdir(config.active().OUTBOX_DIR) else []
    return [
        n for n in names if n.endswith(extension) and needle in open(os.path.join(config.active().OUTBOX_DIR, n)).read()
    ]


def _mail(**changes):
    fields = dict(sender=config.active().MAILER_FROM_EMAIL, sender_name="Us", to="who@example.com", to_name="Who")
    fields.update(subject="Hello", html="<p>Hi</p>", text="Hi")
    return Mail(**dict(fields, **changes))


def test_a_mail_sent_has_an_id_and_a_copy_in_the_outbox(moto_set):
    subject = f"Contract {time.time_ns()}"
    message_id = moto_set.mail.send(_mail(subject=subject, attachments=[("a.txt", b"A", "text/plain")]))
    assert message_id and len(_outbox(".eml", subject)) == 1


def test_a_mail_that_cannot_be_built_is_rejected(moto_set):
    with pytest.raises(Rejected, match="cannot be built"):
        moto_set.mail.send(_mail(headers={"X-Bad": "line\r\nInjected: yes"}))


def test_an_sms_sent_has_an_id_and_a_copy_in_the_outbox(moto_set):
    text = f"Code {time.time_ns()}"
    message_id = moto_set.sms.send("+15555550123", text)
    [name] = _outbox(".json", text)
    with open(os.path.join(config.active().OUTBOX_DIR, name)) as copy:
        assert json.load(copy) == {"to": "+15555550123", "message": text, "messageId": message_id}


def test_an_sms_to_a_number_not_in_e164_is_rejected(moto_set):
    with pytest.raises(Rejected):
        moto_set.sms.send("call me", "hi")


# --- HTTP, the SNS fetch, the clock, outages ------------------------------------------------------


@pytest.fixture
def answering(process_set, receiver):
    """A function: a URL the adapter under test gets `status` from."""
    from chalicelib.channels import http

    def url(status):
        if process_set.http is http:
            receiver.default = status
            return receiver.url
        address = f"http://127.0.0.1:9/{status}"
        process_set.http.routes[address] = status
        return address

    return url


def test_an_http_answer_is_a_result(process_set, answering):
    from chalicelib.ports.http import networks

    loopback = networks(["127.0.0.0/8"])
    ok = process_set.http.request("POST", answering(204), b"{}", {"Content-Type": "application/json"}, 5, loopback)
    assert ok.status == 204 and ok.ok and ok.error is None
    failed = process_set.http.request("POST", answering(500), b"{}", {}, 5, loopback)
    assert failed.status == 500 and not failed.ok and failed.error == "HTTP 500" and failed.retry


def test_an_url_that_is_not_http_is_refused_for_good(process_set):
    result = process_set.http.request("POST", "ftp://example.com/x", b"", {}, 5)
    assert result.status is None and result.retry is False and "not an http" in result.error


def test_the_sns_fetch_answers_a_page_or_raises_oserror(process_set, receiver):
    url = receiver.url
    if not hasattr(process_set.certificates, "pages"):
        receiver.default = 200
    else:
        process_set.certificates.pages[url] = b""
    assert process_set.certificates.get(url) == b""
    with pytest.raises(OSError):
        process_set.certificates.get("http://127.0.0.1:9/unreachable")


def test_the_clock_tells_utc_to_the_second(process_set):
    now = process_set.clock.now()
    assert now.tzinfo is not None and now.utcoffset() == timedelta(0) and now.microsecond == 0
    assert abs(now - datetime.now(timezone.utc)) < timedelta(seconds=2)


class Throttled(Exception):
    """An error shaped as botocore's ClientError (the unit tier imports no boto)."""

    response = {"Error": {"Code": "ThrottlingException"}, "ResponseMetadata": {"HTTPStatusCode": 400}}


def test_outages_know_throttling_from_a_bug(process_set):
    outages = process_set.outages
    assert outages.unavailable(Throttled()) and not outages.unavailable(ValueError("bug"))
    try:
        try:
            raise Throttled()
        except Throttled as error:
            raise RuntimeError("wrapped") from error
    except RuntimeError as wrapped:
        assert outages.unavailable(wrapped)
    assert not outages.unavailable(None)


# --- idempotency records --------------------------------------------------------------------------


def test_a_key_is_held_by_its_first_request_then_replays_its_answer(moto_set):
    records = moto_set.idempotency
    assert records.claim("user#1", "k", "fp", 60) is None
    running = records.claim("user#1", "k", "other", 60)
    assert running.fingerprint == "fp" and running.answer is None
    assert records.finish("user#1", "k", "fp", 201, {"Content-Type": "application/json"}, b'{"a":1}', 3600)
    done = records.claim("user#1", "k", "fp", 60)
    assert done.fingerprint == "fp" and done.answer == (201, {"Content-Type": "application/json"}, b'{"a":1}')
    assert records.claim("user#2", "k", "fp", 60) is None  # another scope


def test_a_released_or_expired_key_is_free_again(moto_set):
    records = moto_set.idempotency
    assert records.claim("s", "gone", "fp", 60) is None
    records.release("s", "gone")
    assert records.claim("s", "gone", "fp2", 60) is None
    assert records.claim("s", "lapsed", "fp", -5) is None  # a lease already over (its request died)
    assert records.claim("s", "lapsed", "fp2", 60) is None


def test_the_memory_clock_tells_a_held_moment_and_an_injected_outage_is_unavailable():
    from devstack.memory.faults import Outage

    memory = memory_adapters()
    memory.clock.moment = datetime(2024, 10, 24, 15, 54, 35, tzinfo=timezone.utc)
    assert memory.clock.now() == datetime(2024, 10, 24, 15, 54, 35, tzinfo=timezone.utc)
    assert memory.outages.unavailable(Outage("SQS is down"))
