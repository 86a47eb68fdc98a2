"""The reputation guard: the service keeps its own bounce and complaint rates over the sends of the
last EMAIL_GUARD_DAYS days and, at EMAIL_GUARD_BOUNCE_RATE or EMAIL_GUARD_COMPLAINT_RATE (under
SES's 5 % and 0.1 %, where SES reviews an account and may stop its sending), pauses marketing
(segment) sends before SES does. Transactional sends (one contact through the API, automations,
form mails) go on. It judges once EMAIL_GUARD_MIN_SENDS sends are counted.

Counters per day (`reputation#<epoch>#<sent|bounce|complaint>#<day>`, one atomic UpdateItem per
send and per hard bounce or complaint, at most EMAIL_SEND_RATE a second); a judgement reads the
window's counters in one BatchGetItem. The state (`reputation` / 1: paused, why, the rates, when,
who resumed) is what an administrator reads (`cli.py email-guard show`); resuming (`email-guard
resume`) starts a new epoch, so the counts that tripped the guard do not trip it again. Senders
read the state once per segment send or batch; the epoch a send counts under is cached
STATE_SECONDS in the process.
"""

import time
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
_cache: dict[str, Any] = {}


class Paused(DomainError):
    """Segment sends are paused by the reputation guard until an administrator resumes them."""

    status = 409


def _day(moment: float | None = None) -> int:
    return int((time.time() if moment is None else moment) // 86400)


def counter(epoch: int, event: str, day: int) -> str:
    """The counter of one day's sends, hard bounces or complaints in an epoch."""
    return f"reputation#{epoch}#{event}#{day}"


def state(fresh: bool = True) -> Doc:
    """The guard's state document ({"paused": False, "epoch": 0} before anything happened); a
    cached copy at most STATE_SECONDS old unless `fresh`."""
    stale = time.monotonic() - _cache.get("at", -STATE_SECONDS) >= STATE_SECONDS
    if fresh or stale or _cache.get("store") is not store.active():
        doc = store.get(KIND, STATE_ID) or {"id": STATE_ID, "paused": False, "epoch": 0}
        _cache.update(doc=doc, at=time.monotonic(), store=store.active())
    return dict(_cache["doc"])


def forget() -> None:
    """Drop the cached state (tests, and after this process changed it)."""
    _cache.clear()


def paused() -> Doc | None:
    """The state when segment sends are paused, else None (one GetItem)."""
    doc = state()
    return doc if doc.get("paused") else None


def require_running() -> None:
    """Raise Paused when segment sends are paused."""
    doc = paused()
    if doc is not None:
        raise Paused(f"Segment sends are paused by the reputation guard: {doc.get('reason')}", [doc.get("reason")])


def count(event: str) -> None:
    """Count a send, a hard bounce or a complaint today; a bounce or complaint is then judged."""
    epoch = int(state(fresh=False).get("epoch") or 0)
    store.add(counter(epoch, event, _day()))
    if event != "sent":
        judge()


def rates(epoch: int) -> dict[str, float]:
    """The window's sends, bounces and complaints, and the two rates in percent."""
    today = _day()
    days = range(today - max(1, config.EMAIL_GUARD_DAYS) + 1, today + 1)
    found = store.counters([counter(epoch, event, day) for event in EVENTS for day in days])
    totals = {event: float(sum(found.get(counter(epoch, event, day), 0) for day in days)) for event in EVENTS}
    sent = totals["sent"] or 1.0
    return dict(totals, bounceRate=100 * totals["bounce"] / sent, complaintRate=100 * totals["complaint"] / sent)


def verdict(numbers: dict[str, float]) -> str | None:
    """Why the numbers pause segment sends, or None: a rate at its threshold once enough were sent."""
    if numbers["sent"] < config.EMAIL_GUARD_MIN_SENDS:
        return None
    days = config.EMAIL_GUARD_DAYS
    if numbers["bounceRate"] >= config.EMAIL_GUARD_BOUNCE_RATE:
        return (
            f"bounce rate {numbers['bounceRate']:.2f} % ({int(numbers['bounce'])} of {int(numbers['sent'])} sends in"
            f" {days} days) reached EMAIL_GUARD_BOUNCE_RATE {config.EMAIL_GUARD_BOUNCE_RATE:g} %"
        )
    if numbers["complaintRate"] >= config.EMAIL_GUARD_COMPLAINT_RATE:
        return (
            f"complaint rate {numbers['complaintRate']:.3f} % ({int(numbers['complaint'])} of {int(numbers['sent'])}"
            f" sends in {days} days) reached EMAIL_GUARD_COMPLAINT_RATE {config.EMAIL_GUARD_COMPLAINT_RATE:g} %"
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
    _cache.update(doc=doc, at=time.monotonic(), store=store.active())
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
    _cache.update(doc=doc, at=time.monotonic(), store=store.active())
    return doc
