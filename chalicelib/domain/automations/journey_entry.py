"""A contact's journey entry: its membership of one automation and its path through the events, kept
in the contact document (`doc["automations"][<automation id>]`), routed by `journey_routing.py` and
advanced by `journeys.py`.

Each pending entry is mirrored by a due item (`due#<shard>` / due id, the id sorting by due time) and
each active membership by `enrolled#<automation>` / contact id, both put or deleted with the contact
(`journey_items.changes`); `event_logs.py` and `automation_runs.py` read and complete the same entries.
"""

from typing import NotRequired, TypedDict, cast

from chalicelib.domain.contacts.contact_document import Contact


class DoneEvent(TypedDict):
    """An event that ran: `status` ok | failed | running, or yes | no for a decision or condition."""

    at: str
    status: str
    reason: str | None


class PendingEvent(TypedDict):
    """An event scheduled for later; `decision` names the decision whose no path it is (else None);
    `checked`: it was ready already (its send window allowed it), only left to the worker."""

    event: int
    dueAt: str
    decision: int | None
    checked: NotRequired[bool]


class JourneyEntry(TypedDict):
    """A contact's entry in one automation (see the module docstring)."""

    dateAdded: str
    manuallyAdded: bool
    manuallyRemoved: bool
    active: bool
    source: str | None  # list | form | manual | automation
    rotation: int  # how many times it entered
    dateLastExited: str | None
    done: dict[str, DoneEvent]  # by event id
    waiting: dict[str, str]  # decision id -> reached at: decisions waiting for the contact's activity
    pending: dict[str, PendingEvent]  # by due id
    ready: NotRequired[list[int]]  # event ids to run within the current write (none once it is stored)


def entries(doc: Contact | None) -> dict[str, JourneyEntry]:
    """The contact document's journey entries by automation id (a new empty dict, not kept in the
    document, when it has none)."""
    return cast("dict[str, JourneyEntry]", (doc or {}).get("automations") or {})


def kept_entries(doc: Contact) -> dict[str, JourneyEntry]:
    """The contact document's journey entries by automation id, created in it when missing (to add one)."""
    return cast("dict[str, JourneyEntry]", doc.setdefault("automations", {}))


def run_key(contact: Contact, event_id: object) -> str:
    """`<event>#<contact>#<rotation>`: one run of an event for a contact (markers of outside actions)."""
    rotation = next((e["rotation"] for e in entries(contact).values() if str(event_id) in e["done"]), 1)
    return f"{event_id}#{contact['id']}#{rotation}"


def done_status(entry: JourneyEntry, event_id: object) -> str | None:
    """How the event ran for the contact (`done[<event id>].status`), None when it has not run."""
    done = entry["done"].get(str(event_id))
    return done.get("status") if done else None
