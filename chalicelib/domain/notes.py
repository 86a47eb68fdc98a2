"""Contact notes: text, type and time, about one contact (`lead`); a new note is put on that
contact's timeline."""
from chalicelib.domain import timeline
from chalicelib.domain.resources import Hooks

NOTE_TYPES = ("general", "email", "call", "meeting")


class NoteHooks(Hooks):
    def prepare(self, resource, doc, write):
        if not doc.get("dateTime"):
            doc["dateTime"] = write.ctx.now
        if write.existing is None and doc.get("lead") and not write.errors:
            label = (doc.get("text") or "")[:80]
            write.events.append(dict(timeline.event("note", label, {"noteId": doc.get("id"), "type": doc.get("type")}),
                                     contactId=doc["lead"]))

    def command(self, resource, doc, command, ctx):
        if command.name == "lead":
            return str(doc.get("lead")) == command.value
        return None
