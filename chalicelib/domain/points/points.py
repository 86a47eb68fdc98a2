"""Point actions and point triggers: action types from the catalogue, trigger colours without '#',
existing contacts given a trigger's events (`triggerExistingLeads`, domain/points/point_triggers.py)."""

from chalicelib.domain.contacts import contact_actions
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Hooks, Write
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.points import point_triggers
from chalicelib.domain.points.catalog import POINT_ACTION_TYPES


class PointActionHooks(Hooks):
    """Point actions: the type is one of the catalogue's."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """An unknown action type is a 400 naming the types endpoint."""
        if doc.get("type") and doc["type"] not in POINT_ACTION_TYPES:
            write.errors["type"] = [f"Unknown point action type '{doc['type']}'; see /api/points/actions/types."]


class TriggerHooks(Hooks):
    """Point triggers: the colour without its '#', the pass over existing contacts after a save."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """The colour is stored without a leading '#' (None when blank); a `stage.change` event names
        an existing stage the caller may view (400 naming `events[<n>][properties][stage]`; 403)."""
        doc["color"] = (doc.get("color") or "").lstrip("#") or None
        for index, event in enumerate(doc.get("events") or []):
            if event.get("type") == "stage.change":
                if contact_actions.named_stage((event.get("properties") or {}).get("stage"), write.ctx) is None:
                    write.errors[f"events[{index}][properties][stage]"] = ["Choose an existing stage (its id)."]

    def stored(self, doc: Doc | None, existing: Doc | None, ctx: Context) -> None:
        """Queue the pass over existing contacts when the save can make some due for its events."""
        if doc is not None and point_triggers.needed(doc, existing, ctx.now):
            point_triggers.enqueue(doc["id"])
