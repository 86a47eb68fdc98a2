"""A move-in from start to end: the kinds in dependency order (kinds.py), contacts in between, then
what needs them (static memberships, segment filters naming emails), and last the automation
memberships with their event logs (journeys.py)."""

from __future__ import annotations

from chalicelib.movein import contacts, copier, email_links, guard, invitations, journeys, memberships
from chalicelib.movein.kinds import KINDS
from chalicelib.movein.report import Report
from chalicelib.movein.run import Run


def move(run: Run, allow_live: bool = False, invite: bool = True) -> Report:
    """Copy everything this mover knows, or count it in a dry run; the report. A destination running
    webhooks, point triggers or automations stops a run that writes, unless `allow_live` (guard.py).
    Each user created here is invited to choose a password unless `invite` is False (invitations.py)."""
    run.report.dry_run = run.dry_run
    run.report.live = guard.check(run.target, allow_live or run.dry_run)
    for kind in KINDS:
        if kind.name == "segment":
            contacts.copy(run)
        if kind.name == "user":
            invitations.copy_users(run, kind, invite)
        else:
            copier.copy(run, kind)
        if kind.name == "segment":
            memberships.copy_static(run)
        if kind.name == "email":
            memberships.refilter(run)
        if kind.name == "page":
            email_links.copy(run)
    journeys.copy(run)
    return run.report
