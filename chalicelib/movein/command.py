"""`python -m chalicelib.cli move-in`: its options, credentials from options or the environment, and
the report printed (and written with `--report FILE`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from chalicelib.movein import guard, mover
from chalicelib.movein.client import Api, ApiFailure, Credentials
from chalicelib.movein.run import Run

SIDES = (("from", "MAUTIC_FROM"), ("to", "MAUTIC_TO"))


def add_parser(groups: Any, parents: list[argparse.ArgumentParser]) -> None:
    """The `move-in` subcommand's options."""
    command = groups.add_parser(
        "move-in", parents=parents, help="copy a running Mautic into this service (docs/move-in.md)"
    )
    for side, env in SIDES:
        command.add_argument(f"--{side}", dest=f"{side}_url", help=f"base URL (without /api); env {env}_URL")
        for name in ("user", "password", "client-id", "client-secret"):
            variable = f"{env}_{name.replace('-', '_').upper()}"
            command.add_argument(f"--{side}-{name}", help=f"or env {variable}")
    command.add_argument("--dry-run", action="store_true", help="count what would be copied; write nothing")
    command.add_argument("--workers", type=int, default=4, help="calls at once on each side (default 4)")
    command.add_argument("--report", help="write the JSON report to this file")
    command.add_argument(
        "--allow-live",
        action="store_true",
        help="write even though the destination runs webhooks, point triggers or automations (they fire)",
    )
    command.add_argument(
        "--no-invite",
        dest="invite",
        action="store_false",
        help="send the users the move creates no invitation to choose a password (set passwords yourself)",
    )
    command.add_argument("--quiet", action="store_true", help="no progress lines")


def _api(args: argparse.Namespace, side: str, env: str) -> Api:
    """One side's API from its options, else its environment variables."""

    def value(name: str) -> str | None:
        given = getattr(args, f"{side}_{name}".replace("-", "_"), None)
        return given or os.environ.get(f"{env}_{name.replace('-', '_').upper()}")

    url = value("url")
    if not url:
        raise ValueError(f"--{side} (or {env}_URL) is required")
    credentials = Credentials(value("user"), value("password"), value("client-id"), value("client-secret"))
    if not (credentials.user and credentials.password) and not (credentials.client_id and credentials.client_secret):
        raise ValueError(f"--{side}-user/--{side}-password or --{side}-client-id/--{side}-client-secret are required")
    return Api(url, credentials)


def run(args: argparse.Namespace) -> int:
    """Run the move-in; exit status 0 when nothing failed, 2 when some documents failed, 1 on an error."""
    if args.workers < 1:
        print("error: --workers must be at least 1", file=sys.stderr)
        return 1
    try:
        source, target = (_api(args, side, env) for side, env in SIDES)
        move = Run(source, target, args.dry_run, args.workers, None if args.quiet else sys.stderr)
        report = mover.move(move, args.allow_live, args.invite)
    except (ValueError, ApiFailure, guard.LiveDestination) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    body = report.as_json()
    if args.report:
        with open(args.report, "w") as handle:
            json.dump(body, handle, indent=2)
    print(json.dumps(body, indent=2) if args.json else report.summary())
    return 2 if any(k["failed"] for k in body["kinds"].values()) else 0
