"""Issue 32, retention: anonymous visitors (never identified, no owner, no identifying value) idle for
`ANONYMOUS_RETENTION_DAYS` are deleted by the hourly sweep through the normal contact delete; the sweep
reads a page at a time, keeps its place and resumes; a pass starts at most once a day. Time is the
context's `now` (a fake clock)."""

from datetime import timedelta

import pytest

from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import clock, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.privacy import retention
from chalicelib.store import port as store

START = clock.parse("2026-01-01T00:00:00+00:00")


def _at(days: float) -> Context:
    """A system context whose clock reads START + days."""
    return Context(now=clock.iso(START + timedelta(days=days)))


def _contact(payload: dict, days: float = 0) -> int:
    doc, _ = service.create(
        CONTACT, dict({"lastActive": clock.iso(START + timedelta(days=days))}, **payload), _at(days)
    )
    return doc["id"]


def _alive(*ids: int) -> list[bool]:
    return [store.get(CONTACT.kind, i) is not None for i in ids]


@pytest.fixture
def people(seeded_store):
    return {
        "visitor": _contact({"ipAddress": "203.0.113.7"}),
        "recent": _contact({}, days=300),
        "emailed": _contact({"email": "ann@example.com"}),
        "named": _contact({"lastname": "Novak"}),
        "owned": _contact({"owner": 1}),
        "phone": _contact({"mobile": "+420777123456"}),
    }


def test_only_idle_anonymous_visitors_expire(people):
    state = retention.sweep(_at(400), days=365, seconds=10)
    assert _alive(*people.values()) == [False, True, True, True, True, True]
    assert state["deleted"] == 1 and state["after"] == 0 and state["nextPass"] == clock.iso(START + timedelta(days=401))


def test_nothing_expires_before_its_time_or_with_retention_off(people):
    assert retention.sweep(_at(364), days=365, seconds=10)["deleted"] == 0
    assert retention.sweep(_at(2000), days=0, seconds=10).get("deleted", 0) == 0
    assert all(_alive(*people.values()))


def test_a_pass_starts_at_most_once_a_day(people):
    first = retention.sweep(_at(300), days=365, seconds=10)  # a whole pass: nothing old enough yet
    assert first["passStarted"] == _at(300).now and first["nextPass"] == _at(301).now
    assert retention.sweep(_at(300.5), days=365, seconds=10)["passStarted"] == _at(300).now  # not read again
    assert retention.sweep(_at(301.5), days=365, seconds=10)["passStarted"] == _at(301.5).now
    assert retention.sweep(_at(400), days=365, seconds=10)["deleted"] == 1
    assert _alive(people["visitor"], people["recent"]) == [False, True]


def test_the_sweep_stops_on_its_budget_and_resumes_where_it_stopped(seeded_store, monkeypatch):
    monkeypatch.setattr(retention, "PAGE", 3)
    visitors = [_contact({}) for _ in range(7)]
    ticks = iter([0.0, 0.5, 2.0])  # start, before the first page, before the second: past the 1 s budget
    monkeypatch.setattr(retention, "TIMER", lambda: next(ticks, 99.0))
    state = retention.sweep(_at(400), days=365, seconds=1)
    assert state["after"] == visitors[2] and _alive(*visitors) == [False] * 3 + [True] * 4
    assert store.get(retention.STATE, 1)["after"] == visitors[2]  # kept for the next run
    monkeypatch.setattr(retention, "TIMER", lambda: 0.0)
    state = retention.sweep(_at(400), days=365, seconds=1)
    assert _alive(*visitors) == [False] * 7 and state["after"] == 0 and state["deleted"] == 7


def test_the_hourly_job_runs_the_sweep_with_the_settings(configure, people, monkeypatch):
    from chalicelib import workers

    configure(ANONYMOUS_RETENTION_DAYS=30)
    monkeypatch.setattr(clock, "now", lambda: START + timedelta(days=40))
    assert retention.run in workers.JOBS["hour"]
    retention.run()
    assert _alive(people["visitor"], people["recent"], people["emailed"]) == [False, True, True]
