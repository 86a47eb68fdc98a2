"""The reputation guard: the service keeps its own bounce and complaint rates over the sends of the
last EMAIL_GUARD_DAYS days and, at EMAIL_GUARD_BOUNCE_RATE or EMAIL_GUARD_COMPLAINT_RATE (under
SES's 5 % and 0.1 %, where SES reviews an account and may stop its sending), pauses marketing
(segment) sends before SES does. Transactional sends (one contact through the API, automations,
form mails) go on. It judges once EMAIL_GUARD_MIN_SENDS sends are counted.

Counters per day (`reputation#<epoch>#<bounce|complaint>#<day>`, one atomic UpdateItem per hard
bounce or complaint); sends, counted on every send, are spread over SENT_SHARDS counters a day
(`reputation#<epoch>#sent#<day>#<shard>`, a random shard per send) so no one item takes them all, and
summed on read. A judgement reads the bounce and complaint counters of the window (one BatchGetItem)
and the sends' shards at most once per SENT_SECONDS per process (two more), this process's own sends
added at once. The state (`reputation` / 1: paused, why, the rates, when,
who resumed) is what an administrator reads (`cli.py email-guard show`); resuming (`email-guard
resume`) starts a new epoch, so the counts that tripped the guard do not trip it again. Senders
read the state once per segment send or batch; the epoch a send counts under is cached
STATE_SECONDS in the process.
"""

import random
import time
from collections.abc import Callable
from typing import Any

from chalicelib import config, observe
from chalicelib.domain.kernel import clock
from chalicelib.domain.kernel.errors import DomainError
from chalicelib.domain.kernel.types import Doc
from chalicelib.store import port as store

KIND = "reputation"
STATE_ID = 1
EVENTS = ("sent", "bounce", "complaint")
STATE_SECONDS = 30.0
SENT_SHARDS = 16  # counters of one day's sends: 1,000 sends/s is ~63 writes/s on each
SENT_SECONDS = 1.0  # a process reads the sends' shards at most this often
_cache: dict[str, Any] = {}
_sent: dict[str, Any] = {}  # "key": (epoch, days), "at": clock seconds, "totals": {day: sends}
# The sends' copy ages on the wall clock: a container frozen between invocations finds it stale on waking.
seconds: Callable[[], float] = time.time


class Paused(DomainError):
    """Segment sends are paused by the reputation guard until an administrator resumes them."""

    status = 409


def _day(moment: float | None = None) -> int:
    return int((time.time() if moment is None else moment) // 86400)


def counter(epoch: int, event: str, day: int) -> str:
    """The counter of one day's hard bounces or complaints in an epoch (sends: `sent_counter`)."""
    return f"reputation#{epoch}#{event}#{day}"


def sent_counter(epoch: int, day: int, shard: int) -> str:
    """One of the SENT_SHARDS counters of one day's sends in an epoch."""
    return f"{counter(epoch, 'sent', day)}#{shard}"


def state(fresh: bool = True) -> Doc:
    """The guard's state document ({"paused": False, "epoch": 0} before anything happened); a
    cached copy at most STATE_SECONDS old unless `fresh`."""
    stale = not clock.fresh(_cache.get("at", -STATE_SECONDS), STATE_SECONDS, time.time())
    if fresh or stale or _cache.get("store") is not store.active():
        doc = store.get(KIND, STATE_ID) or {"id": STATE_ID, "paused": False, "epoch": 0}
        _cache.update(doc=doc, at=time.time(), store=store.active())
    return dict(_cache["doc"])


def forget() -> None:
    """Drop the cached state and sends (tests, and after this process changed it)."""
    _cache.clear()
    _sent.clear()


def paused() -> Doc | None:
    """The state when segment sends are paused, else None (one GetItem)."""
    doc = state()
    return doc if doc.get("paused") else None


def require_running() -> None:
    """Raise Paused when segment sends are paused."""
    doc = paused()
    if doc is not None:
        raise Paused(f"Segment sends are paused by the reputation guard: {doc.get('reason')}", [doc.get("reason")])


def count(event: str, n: int = 1) -> None:
    """Count a send (n sends: a batch's), a hard bounce or a complaint today; a bounce or complaint is
    then judged."""
    epoch, day = int(state(fresh=False).get("epoch") or 0), _day()
    if event == "sent":
        store.add(sent_counter(epoch, day, random.randrange(SENT_SHARDS)), n)  # a spread, not a secret
        totals = _sent.get("totals") if _sent.get("key", (None,))[0] == epoch else None
        if totals is not None and day in totals:
            totals[day] += n  # this process's sends, seen at once
        return
    store.add(counter(epoch, event, day))
    judge()


def rates(epoch: int) -> dict[str, float]:
    """The window's sends, bounces and complaints, and the two rates in percent."""
    today = _day()
    days = range(today - max(1, config.active().EMAIL_GUARD_DAYS) + 1, today + 1)
    found = store.counters([counter(epoch, event, day) for event in EVENTS[1:] for day in days])
    totals = {event: float(sum(found.get(counter(epoch, event, day), 0) for day in days)) for event in EVENTS[1:]}
    totals["sent"] = float(sum(_sends(epoch, tuple(days)).values()))
    sent = totals["sent"] or 1.0
    return dict(totals, bounceRate=100 * totals["bounce"] / sent, complaintRate=100 * totals["complaint"] / sent)


def _sends(epoch: int, days: tuple[int, ...]) -> dict[int, int]:
    """{day: sends} of the window, summed over the shards; read at most once per SENT_SECONDS."""
    key = (epoch, days)
    fresh = _sent.get("key") == key and 0 <= seconds() - _sent["at"] < SENT_SECONDS
    if not fresh or _sent.get("store") is not store.active():
        names = {(day, shard): sent_counter(epoch, day, shard) for day in days for shard in range(SENT_SHARDS)}
        found = store.counters(list(names.values()))
        totals = {day: 0 for day in days}
        for (day, _), name in names.items():
            totals[day] += found.get(name, 0)
        _sent.update(key=key, at=seconds(), totals=totals, store=store.active())
    return dict(_sent["totals"])


def verdict(numbers: dict[str, float]) -> str | None:
    """Why the numbers pause segment sends, or None: a rate at its threshold once enough were sent."""
    if numbers["sent"] < config.active().EMAIL_GUARD_MIN_SENDS:
        return None
    days = config.active().EMAIL_GUARD_DAYS
    if numbers["bounceRate"] >= config.active().EMAIL_GUARD_BOUNCE_RATE:
        return (
            f"bounce rate {numbers['bounceRate']:.2f} % ({int(numbers['bounce'])} of {int(numbers['sent'])} sends in"
            f" {days} days) reached EMAIL_GUARD_BOUNCE_RATE {config.active().EMAIL_GUARD_BOUNCE_RATE:g} %"
        )
    if numbers["complaintRate"] >= config.active().EMAIL_GUARD_COMPLAINT_RATE:
        return (
            f"complaint rate {numbers['complaintRate']:.3f} % ({int(numbers['complaint'])} of {int(numbers['sent'])}"
            f" sends in {days} days) reached EMAIL_GUARD_COMPLAINT_RATE"
            f" {config.active().EMAIL_GUARD_COMPLAINT_RATE:g} %"
        )
    return None


def judge() -> Doc | None:
    """Pause segment sends when the current epoch's rates reach a threshold; the new state, if paused now."""
    doc = state()
    if doc.get("paused"):
        return None
    numbers = rates(int(doc.get("epoch") or 0))
    observe.metrics({"Guard": "email"}, BounceRate=numbers["bounceRate"], ComplaintRate=numbers["complaintRate"])
    reason = verdict(numbers)
    if reason is None:
        return None
    doc.update(paused=True, reason=reason, rates=numbers, pausedAt=clock.now_iso())
    store.put(KIND, doc)
    _cache.update(doc=doc, at=time.time(), store=store.active())
    observe.metrics({"Guard": "email"}, SendingPaused=1)
    return doc


def resume(by: str) -> Doc:
    """Resume segment sends (an administrator's decision) and start counting anew (a new epoch)."""
    doc = state()
    doc.update(
        paused=False,
        epoch=int(doc.get("epoch") or 0) + 1,
        resumedAt=clock.now_iso(),
        resumedBy=by,
        lastReason=doc.get("reason"),
        reason=None,
    )
    store.put(KIND, doc)
    _cache.update(doc=doc, at=time.time(), store=store.active())
    return doc
