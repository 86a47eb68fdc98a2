"""Automation memberships and each member's event log, after contacts and automations are copied:
what already ran and what is scheduled (and when) carried over through the administrator-only
`POST /movein/journeys/<contact>`, which stores them without running anything, so a moved contact
does not get the welcome email again and a scheduled event fires at its original time.

At the source: the members of each automation (`/campaigns/<id>/contacts`, Mautic's current members:
those removed by hand are not listed) and one member's log (`/campaigns/<id>/events/contact/<lead>`)
per membership. Events are paired by their place in the graph the copy was made from (name and type
checked). The mapping `journey_<source automation>` keeps, per member, a digest of the log copied:
a rerun reads the logs again and writes only those that changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from chalicelib.movein import source
from chalicelib.movein.client import ApiFailure
from chalicelib.movein.mapping import IdMap
from chalicelib.movein.payloads import Doc, items
from chalicelib.movein.run import Run, Timer, chunked

KIND = "journey"
STATUSES = frozenset({"ok", "failed", "running", "yes", "no"})


def copy(run: Run) -> None:
    """Carry every copied automation's memberships and logs over."""
    with Timer(run, KIND):
        automations = run.mapping("automation")
        for page in source.pages(run.source, "/campaigns", ("campaigns", "automations")):
            for campaign in page:
                target = automations.get(campaign["id"])
                if target is not None or run.dry_run:
                    _automation(run, campaign, target)


def _automation(run: Run, campaign: Doc, target: int | None) -> None:
    """The members of one automation, on the worker pool."""
    rows = _members(run, campaign["id"])
    if run.dry_run:
        run.report.count(KIND, "copied", sum(1 for _ in rows))
        return
    events = _paired(run, campaign, int(target or 0))
    if events is None:
        run.report.count(KIND, "failed", reason=f"automation {campaign['id']}: its copy's events differ")
        return
    done = run.mapping(f"journey_{int(campaign['id'])}")
    jobs = (lambda batch=batch: _batch(run, campaign["id"], target, events, done, batch) for batch in chunked(rows, 50))
    run.each(jobs)


def _batch(run: Run, campaign_id: int, target: Any, events: dict[int, Doc], done: IdMap, rows: list[Doc]) -> None:
    """Up to 50 memberships, then one mapping write for those stored."""
    stored = [pair for pair in (_member(run, campaign_id, target, events, done, row) for row in rows) if pair]
    run.remember(done.kind, stored)


def _members(run: Run, campaign_id: int) -> Iterator[Doc]:
    """The automation's current members at the source (Mautic's campaign_leads rows), page by page."""
    start = 0
    while True:
        answer = run.source.call("GET", f"/campaigns/{campaign_id}/contacts", query={"start": start, "limit": 200})
        batch = source.rows(answer, ("contacts",))
        yield from batch
        start += len(batch)
        if not batch or start >= source.total(answer):  # a page may hold fewer than asked (a capped limit)
            return


def _paired(run: Run, campaign: Doc, target: int) -> dict[int, Doc] | None:
    """Source event id -> its copy's event, by place in the graph (the copy's events were sent in the
    source's order); None when the copy's events no longer match."""
    ours = items(run.target.call("GET", f"/automations/{target}")["automation"].get("events"))
    theirs = items(campaign.get("events"))
    if len(ours) != len(theirs):
        return None
    pairs = {}
    for mine, copied in zip(theirs, ours, strict=True):
        if (mine.get("name"), mine.get("type")) != (copied.get("name"), copied.get("type")):
            return None
        pairs[int(mine["id"])] = copied
    return pairs


def _member(
    run: Run, campaign_id: int, target: Any, events: dict[int, Doc], done: IdMap, row: Doc
) -> tuple[int, int, str | None] | None:
    """One membership: its log read at the source, stored here when it changed since its copy; its
    mapping entry (source contact, copy, digest of the log) then."""
    lead = int(row.get("lead_id") or 0)
    contact = run.mapping("contact").get(lead)
    if contact is None:
        run.report.count(KIND, "failed", reason="the contact was not copied")
        return None
    try:
        answer = run.source.call("GET", f"/campaigns/{campaign_id}/events/contact/{lead}")
        journey = _journey(row, target, events, items(answer.get("events")))
        digest = hashlib.sha256(json.dumps(journey, sort_keys=True).encode()).hexdigest()[:32]
        if done.entries.get(lead, (None, None))[1] == digest:
            run.report.count(KIND, "skipped")
            return None
        answer = run.target.call("POST", f"/movein/journeys/{contact}", {"automations": [journey]})
    except ApiFailure as failure:
        run.report.count(KIND, "failed", reason=str(failure))
        return None
    if answer.get("kept"):
        run.report.count(KIND, "skipped", reason="the copy is published: its journeys run here now")
    else:
        run.report.count(KIND, "copied" if lead not in done.entries else "updated")
    return lead, contact, digest


def _journey(row: Doc, target: Any, events: dict[int, Doc], logged: list[Doc]) -> Doc:
    """The journey of one member as `/movein/journeys` takes it, from its source log (the rows of its
    current rotation): runs done and runs scheduled, with the copy's event ids."""
    rotation = int(row.get("rotation") or 1)
    done, pending = [], []
    for event in logged:
        copied = events.get(int(event.get("id") or 0))
        if copied is None:
            continue
        for log in items(event.get("contactLog")):
            if int(log.get("rotation") or 1) != rotation:
                continue
            if log.get("isScheduled") and log.get("triggerDate"):
                pending.append(
                    {"event": copied["id"], "dueAt": log["triggerDate"], "noPath": bool(log.get("nonActionPathTaken"))}
                )
            elif log.get("dateTriggered"):
                done.append(_done(copied, log))
    return {
        "automation": target,
        "dateAdded": row.get("date_added"),
        "manuallyAdded": str(row.get("manually_added")) in ("1", "True", "true"),
        "rotation": rotation,
        "done": sorted(done, key=lambda d: d["event"]),
        "pending": sorted(pending, key=lambda p: (p["event"], p["dueAt"])),
    }


def _done(event: Doc, log: Doc) -> Doc:
    """A run that happened: Mautic marks a failure in the metadata, a condition (or a decision) that
    went the no way with `nonActionPathTaken`; this service names the status in the metadata."""
    raw = log.get("metadata")
    metadata: Doc = raw if isinstance(raw, dict) else {}
    status = metadata.get("status")
    if status not in STATUSES:
        branching = event.get("eventType") in ("decision", "condition")
        status = ("no" if log.get("nonActionPathTaken") else "yes") if branching else "ok"
        status = "failed" if metadata.get("failed") else status
    return {"event": event["id"], "at": log["dateTriggered"], "status": status, "reason": metadata.get("reason")}
