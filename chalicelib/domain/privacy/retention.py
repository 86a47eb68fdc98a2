"""Retention of anonymous visitors (issue 32, Mautic's `mautic:maintenance:cleanup`): a contact that
nothing identifies, idle for `ANONYMOUS_RETENTION_DAYS`, is deleted through the normal contact delete
(`service.delete`: hooks, webhooks, and the erasure of what derives from it), by an hourly sweep that
reads the contact partition a page at a time and keeps its place, so it resumes where a run stopped.
A pass over every contact starts at most once a day (docs/privacy.md, "Retention")."""

import time
from datetime import timedelta

from chalicelib import config
from chalicelib.domain.contacts.custom_fields import definitions
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import clock, references, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.types import Doc
from chalicelib.store import port as store

STATE = "retention"  # one item, id 1: where the current pass stands
PAGE = 100  # contacts per Query
PASS_EVERY = timedelta(days=1)
LAST_ID = 2**53  # above every contact id
TIMER = time.monotonic  # the run's budget is measured with it
# Values that identify a person: a contact holding any of them (or a unique identifier field) is kept.
IDENTIFYING = ("email", "firstname", "lastname", "company", "companyname", "phone", "mobile")


def identifying_fields(ctx: Context) -> tuple[str, ...]:
    """The aliases whose value identifies a contact: the usual ones and every unique identifier field."""
    unique = (f["alias"] for f in definitions("lead", ctx) if f.get("isUniqueIdentifier"))
    return tuple(dict.fromkeys((*IDENTIFYING, *unique)))


def is_anonymous(doc: Doc, fields: tuple[str, ...]) -> bool:
    """Whether nothing identifies the contact: never identified, no owner, no identifying value."""
    values = doc.get("values") or {}
    return not doc.get("dateIdentified") and not doc.get("owner") and not any(values.get(f) for f in fields)


def expired(doc: Doc, cutoff: str) -> bool:
    """Whether the contact's last activity (else its creation) is older than `cutoff`."""
    last = doc.get("lastActive") or doc.get("dateAdded")
    return bool(last) and clock.parse(last) < clock.parse(cutoff)


def _state() -> Doc:
    """Where the sweep stands: `after` (the last contact id looked at in this pass), `nextPass`."""
    stored = store.get(STATE, 1) or {"id": 1, "after": 0, "nextPass": None, "deleted": 0}
    return {k: v for k, v in stored.items() if not k.startswith("_")}


def _delete(doc: Doc, ctx: Context) -> bool:
    """Delete an expired visitor through the normal contact delete; False when it was gone already."""
    references.remember(CONTACT.kind, doc, ctx)  # the page's copy: the delete reads nothing again
    try:
        service.delete(CONTACT, doc["id"], ctx)
    except NotFound:
        return False
    return True


def _page(state: Doc, cutoff: str, fields: tuple[str, ...], ctx: Context) -> bool:
    """Look at the next page of contacts, deleting the expired anonymous ones; False at the end of the pass."""
    docs = list(store.iterate(CONTACT.kind, between=(int(state["after"]) + 1, LAST_ID), limit=PAGE))
    for doc in docs:
        if is_anonymous(doc, fields) and expired(doc, cutoff) and _delete(doc, ctx):
            state["deleted"] = int(state.get("deleted") or 0) + 1
        state["after"] = doc["id"]
    return len(docs) == PAGE


def sweep(ctx: Context, days: int, seconds: float) -> Doc:
    """Run the sweep for up to `seconds` (0 days: nothing expires); its state after the run."""
    state = _state()
    if days <= 0 or (state.get("nextPass") and clock.parse(state["nextPass"]) > clock.parse(ctx.now)):
        return state
    if not state["after"]:
        state["passStarted"] = ctx.now
    cutoff = clock.iso(clock.parse(ctx.now) - timedelta(days=days))
    fields, deadline = identifying_fields(ctx), TIMER() + seconds
    more = True
    while more and TIMER() < deadline:
        more = _page(state, cutoff, fields, ctx)
        if not more:  # the pass is done: the next one starts a day after this one did
            state.update(after=0, nextPass=clock.iso(clock.parse(state["passStarted"]) + PASS_EVERY))
        store.put(STATE, state)
    return state


def run() -> None:
    """The hourly job: the sweep with the settings (`ANONYMOUS_RETENTION_DAYS`, `RETENTION_SWEEP_SECONDS`)."""
    sweep(Context(), config.active().ANONYMOUS_RETENTION_DAYS, config.active().RETENTION_SWEEP_SECONDS)
