"""Issue 28, part 4, the reputation guard's rules over the in-memory store: its own bounce and
complaint rates over the recent sends pause segment sends at a threshold and not before, not before
EMAIL_GUARD_MIN_SENDS sends, record why, and an administrator's resume counts anew. A bounce SES
did not try (the account's suppression list) makes the contact do-not-contact without counting."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib import config
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.messaging import feedback, reputation
from chalicelib.store import port as store
from devstack.memory import MemoryStore
from tests.unit.test_ses_feedback import dnc, permanent, sent


@pytest.fixture
def guard(seeded_store: MemoryStore, configure: pytest.MonkeyPatch) -> None:
    """Judged from 100 sends, at 4 % bounces or 1 % complaints."""
    configure(EMAIL_GUARD_MIN_SENDS=100)
    configure(EMAIL_GUARD_BOUNCE_RATE=4.0)
    configure(EMAIL_GUARD_COMPLAINT_RATE=1.0)
    reputation.forget()


@pytest.fixture
def ctx(seeded_store: MemoryStore) -> Context:
    """An administrator's context over the seeded store."""
    return Context(user=next(store.iterate("user")))


def _sends(n: int) -> None:
    for _ in range(n):
        reputation.count("sent")


def test_the_guard_pauses_segment_sends_at_the_bounce_threshold_and_not_before(guard: None) -> None:
    _sends(100)
    for _ in range(3):
        reputation.count("bounce")
    assert reputation.paused() is None  # 3 %
    reputation.count("bounce")  # 4 %: at the threshold
    state = reputation.paused()
    assert state is not None and "bounce rate 4.00 %" in state["reason"] and state["pausedAt"]
    assert (state["rates"]["sent"], state["rates"]["bounce"]) == (100, 4)
    with pytest.raises(reputation.Paused) as refused:
        reputation.require_running()
    assert refused.value.status == 409 and "reputation guard" in refused.value.message
    assert store.get(reputation.KIND, reputation.STATE_ID)["paused"] is True  # what an administrator reads


def test_the_guard_does_not_judge_before_the_minimum_of_sends(guard: None) -> None:
    _sends(10)
    for _ in range(5):
        reputation.count("bounce")  # 50 % of 10 sends
    assert reputation.paused() is None
    _sends(90)
    reputation.count("bounce")  # 6 of 100
    assert reputation.paused() is not None


def test_the_complaint_threshold_pauses_too(guard: None) -> None:
    _sends(200)
    reputation.count("complaint")
    assert reputation.paused() is None  # 0.5 %
    reputation.count("complaint")
    state = reputation.paused()
    assert state is not None and "complaint rate 1.000 %" in state["reason"]


def test_resume_starts_counting_anew(guard: None) -> None:
    _sends(100)
    for _ in range(4):
        reputation.count("bounce")
    assert reputation.paused() is not None
    state = reputation.resume("cli:admin")
    assert (state["paused"], state["epoch"], state["resumedBy"]) == (False, 1, "cli:admin")
    assert "bounce rate" in state["lastReason"]
    reputation.count("bounce")  # the old window's bounces no longer count
    assert reputation.paused() is None and reputation.rates(1)["bounce"] == 1


def test_hard_bounces_and_complaints_reported_by_ses_feed_the_guard(guard: None, ctx: Context) -> None:
    _, stat = sent(ctx)
    feedback.handle(permanent(stat))
    assert reputation.rates(0)["bounce"] == 1


def test_a_bounce_for_the_account_suppression_list_is_dnc_but_not_counted(guard: None, ctx: Context) -> None:
    contact, stat = sent(ctx)
    body: dict[str, Any] = permanent(stat)
    body["Message"] = body["Message"].replace('"General"', '"OnAccountSuppressionList"')
    assert feedback.handle(body) == "bounced"
    assert dnc(contact["id"])[0]["reason"] == 2
    assert reputation.rates(0)["bounce"] == 0


def test_the_alarm_watches_the_metric_the_guard_emits(guard: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import json
    from pathlib import Path

    from chalicelib import observe

    lines: list[str] = []
    monkeypatch.setattr(observe, "_write", lines.append)
    _sends(100)
    for _ in range(4):
        reputation.count("bounce")
    emitted = [json.loads(line) for line in lines if '"SendingPaused"' in line]
    template = json.loads((Path(__file__).parents[2] / "infra" / "resources.json").read_text())
    alarm = template["Resources"]["SendingPausedAlarm"]["Properties"]
    assert emitted and emitted[0]["SendingPaused"] == 1 and emitted[0]["Guard"] == "email"
    assert (alarm["Namespace"], alarm["MetricName"]) == (observe.NAMESPACE, "SendingPaused")
    assert [d["Name"] for d in alarm["Dimensions"]] == ["Stack", "Guard"]


def test_sends_are_counted_on_shards_and_summed_on_read(guard: None, seeded_store: MemoryStore) -> None:
    """Issue 29: a day's sends spread over SENT_SHARDS counters (no single item written on every send)."""
    _sends(200)
    day = reputation._day()
    shards = [
        seeded_store.counters([reputation.sent_counter(0, day, s)])[reputation.sent_counter(0, day, s)]
        for s in range(reputation.SENT_SHARDS)
    ]
    assert sum(shards) == 200 and max(shards) < 60 and sum(1 for n in shards if n) > 8
    assert seeded_store.counters([reputation.counter(0, "sent", day)])[reputation.counter(0, "sent", day)] == 0
    assert reputation.rates(0)["sent"] == 200


def test_other_processes_sends_are_read_once_per_interval_this_ones_at_once(
    guard: None, seeded_store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1000.0]
    monkeypatch.setattr(reputation, "seconds", lambda: now[0])
    reads: list[int] = []
    counters = seeded_store.counters
    monkeypatch.setattr(seeded_store, "counters", lambda names: reads.append(len(names)) or counters(names))
    _sends(3)
    assert reputation.rates(0)["sent"] == 3
    _sends(2)  # this process: seen at once, nothing read
    seeded_store.add(reputation.sent_counter(0, reputation._day(), 5), 10)  # another container's sends
    assert reputation.rates(0)["sent"] == 5
    assert len([n for n in reads if n == reputation.SENT_SHARDS * config.active().EMAIL_GUARD_DAYS]) == 1
    now[0] += reputation.SENT_SECONDS
    assert reputation.rates(0)["sent"] == 15
