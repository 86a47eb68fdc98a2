"""Contact notes: text, type and time, about one contact (`lead`); a new note is put on that
contact's timeline.

Each note is indexed under its contact, `notes#<contact id>`/<note id>, put, moved (when `lead`
changes) or deleted in the transaction that writes the note, so a contact's notes are one Query
of that index and a BatchGetItem away, whatever the number of notes of other contacts.
"""

from collections.abc import Iterable, Sequence

from chalicelib.domain.contacts.of_contact import OfContact
from chalicelib.domain.kernel import search, timeline
from chalicelib.domain.kernel.capability_hooks import Listed
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Write
from chalicelib.domain.kernel.types import Doc, Events
from chalicelib.store import port as store
from chalicelib.store.port import Derived, EntityId

NOTE_TYPES = ("general", "email", "call", "meeting")


def index_kind(contact_id: EntityId) -> str:
    """The notes index of a contact: `notes#<contact id>` / note id."""
    return f"notes#{int(contact_id)}"


def index_changes(doc: Doc | None, existing: Doc | None) -> list[Derived]:
    """Derived items moving the note's index entry from the old contact to the new one (`doc` None:
    the note is deleted)."""
    old, new = (existing or {}).get("lead"), (doc or {}).get("lead")
    if old == new:
        return []
    note = doc or existing
    assert note is not None  # a write has a document, a delete the one it removes
    note_id = note["id"]
    items: list[Derived] = []
    if old is not None:
        items.append((index_kind(old), note_id, None))
    if new is not None:
        items.append((index_kind(new), note_id, {}))
    return items


def _lead_command(node: search.Node | None) -> search.Command | None:
    """The `lead:<id>` command the search requires (alone or and-ed with more), or None."""
    nodes = node.nodes if isinstance(node, search.And) else (node,)
    return next(
        (
            n
            for n in nodes
            if isinstance(n, search.Command) and n.name == "lead" and n.value.isascii() and n.value.isdigit()
        ),
        None,
    )


class NoteHooks(OfContact, Listed):
    """Notes: written at now unless dated, put on their contact's timeline, indexed under it."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """The time defaults to now; a new note is a `note` event on its contact's timeline."""
        if not doc.get("dateTime"):
            doc["dateTime"] = write.ctx.now
        if write.existing is None and doc.get("lead") and not write.errors:
            label = (doc.get("text") or "")[:80]
            write.events.append(
                dict(
                    timeline.event("note", label, {"noteId": doc.get("id"), "type": doc.get("type")}),
                    contactId=doc["lead"],
                )
            )

    def consequences(
        self, doc: Doc | None, existing: Doc | None, ctx: Context, events: Sequence[Doc]
    ) -> tuple[list[Derived], Events]:
        """The note's index entry under its contact, moved with `lead`."""
        return index_changes(doc, existing), []

    def fast_ids(self, node: search.Node | None, ctx: Context) -> Iterable[EntityId] | None:
        """A search requiring `lead:<id>` starts from that contact's notes index."""
        lead = _lead_command(node)
        return None if lead is None else [row["id"] for row in store.iterate(index_kind(lead.value))]

    def command(self, doc: Doc, command: search.Command, ctx: Context) -> bool | None:
        """`lead:<id>`: the notes about that contact."""
        if command.name == "lead":
            return str(doc.get("lead")) == command.value
        return None
