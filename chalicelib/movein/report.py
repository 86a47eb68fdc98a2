"""What a move-in did, per kind: copied, updated, skipped (already there and unchanged, or matched by
name), failed with the reason; and what Mautic holds that its API cannot give."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

NOT_READABLE = (
    "users' passwords (Mautic's API never returns them): each user the move creates gets a random password "
    "nobody knows and an email inviting them to choose one (`invitation` above; none with --no-invite: then "
    "set one with `python -m chalicelib.cli users password --username NAME`); users matched by username keep theirs",
    "original creation and modification dates (dateAdded/dateModified): the copies are dated by this service",
    "contacts' history: timeline events, page hits, email sends, opens and clicks, form submissions, points history",
    "automation memberships that ended (Mautic's API lists current members only), and event log rows of "
    "a member's earlier rotations",
    "UTM tags added at the source after a contact's copy (a rerun adds none to a contact copied before)",
    "reports are copied unscheduled (a schedule here emails them)",
    "webhooks and point triggers are copied unpublished (publish them when the move is over)",
    "automations are copied unpublished with their members' event logs: publishing one enrolls only its "
    "segments' members that are not members already",
    "segment (list) emails are copied unpublished; a send here reaches members that this service has no send record of",
)

MAX_REASONS = 20


@dataclass
class KindReport:
    """One kind's counts and the first failures' reasons."""

    found: int = 0
    copied: int = 0
    updated: int = 0
    skipped: int = 0
    failed: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        """The counts and up to `MAX_REASONS` failure reasons with their counts."""
        body: dict[str, Any] = {key: getattr(self, key) for key in ("found", "copied", "updated", "skipped", "failed")}
        body["seconds"] = round(self.seconds, 2)
        body["reasons"] = dict(self.reasons.most_common(MAX_REASONS))
        return body


@dataclass
class Report:
    """The whole run: per kind, in copy order, and whether it wrote anything."""

    dry_run: bool = False
    live: list[str] = field(default_factory=list)  # what the destination runs that fires (guard.py)
    kinds: dict[str, KindReport] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    started: float = field(default_factory=time.monotonic)

    def kind(self, name: str) -> KindReport:
        """The report of kind `name`, created on first use."""
        with self.lock:
            return self.kinds.setdefault(name, KindReport())

    def count(self, name: str, outcome: str, n: int = 1, reason: str | None = None) -> None:
        """Add `n` to one outcome (copied, updated, skipped, failed) of a kind, with a reason."""
        report = self.kind(name)
        with self.lock:
            setattr(report, outcome, getattr(report, outcome) + n)
            if reason:
                report.reasons[reason[:300]] += n

    def as_json(self) -> dict[str, Any]:
        """The report as JSON (`--report FILE`)."""
        return {
            "dryRun": self.dry_run,
            "seconds": round(time.monotonic() - self.started, 2),
            "kinds": {name: k.as_json() for name, k in self.kinds.items()},
            "notCopied": list(NOT_READABLE),
            "liveAtDestination": self.live,
        }

    def summary(self) -> str:
        """A readable table, then the failures' reasons and what is not copied."""
        verb = "would copy" if self.dry_run else "copied"
        lines = [f"{'kind':<14}{'found':>8}{verb:>12}{'updated':>9}{'skipped':>9}{'failed':>8}{'s':>8}"]
        for name, k in self.kinds.items():
            lines.append(
                f"{name:<14}{k.found:>8}{k.copied:>12}{k.updated:>9}{k.skipped:>9}{k.failed:>8}{k.seconds:>8.1f}"
            )
        for name, k in self.kinds.items():
            lines.extend(f"  {name}: {n} x {reason}" for reason, n in k.reasons.most_common(MAX_REASONS))
        invited = self.kinds.get("invitation")
        if invited is not None:
            sent = "would be sent" if self.dry_run else "sent"
            lines.append(f"Invitations to choose a password {sent}: {invited.copied} (failed: {invited.failed})")
        if self.live:
            lines.append("Live at the destination (copied contacts set these off): " + "; ".join(self.live))
        lines.append("Not copied (Mautic's API cannot give it, or this mover does not yet):")
        lines.extend(f"  - {line}" for line in NOT_READABLE)
        return "\n".join(lines)
