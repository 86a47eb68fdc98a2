"""Moving in sends nothing and fires nothing: what the copy creates cannot fire by itself (automations
and segment emails are copied unpublished, webhooks and point triggers are not copied), but what the
destination already runs would react to the copied contacts: a published webhook posts each new
contact, a published point trigger fires for copied points, a published automation enrolls copied
members of its segments and sends. So the mover writes into a destination running none of them,
unless the operator accepts it (`--allow-live`)."""

from __future__ import annotations

from chalicelib.movein import source
from chalicelib.movein.client import Api

LIVE = (
    ("/hooks", ("hooks",), "webhook"),
    ("/points/triggers", ("triggers",), "point trigger"),
    ("/automations", ("automations", "campaigns"), "automation"),
)


class LiveDestination(Exception):
    """The destination runs something that the copied contacts would set off."""


def live(target: Api) -> list[str]:
    """What the destination runs that fires on contact writes: `<what> <id> <name>` each."""
    found = []
    for path, keys, what in LIVE:
        for page in source.pages(target, path, keys):
            found += [f"{what} {d['id']} {d.get('name')!r}" for d in page if d.get("isPublished")]
    return found


def check(target: Api, allow: bool) -> list[str]:
    """What is live at the destination (returned when `allow`); LiveDestination otherwise."""
    running = live(target)
    if running and not allow:
        raise LiveDestination(
            "the destination runs what copied contacts would set off (unpublish them, or pass --allow-live): "
            + "; ".join(running[:10])
        )
    return running
