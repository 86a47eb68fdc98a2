"""Point actions and point triggers: action types from the catalogue, trigger colours without '#',
existing contacts given a trigger's events (`triggerExistingLeads`, domain/points/point_triggers.py)."""

from chalicelib.domain.kernel.resources import Hooks
from chalicelib.domain.points import point_triggers
from chalicelib.domain.points.catalog import POINT_ACTION_TYPES


class PointActionHooks(Hooks):
    def prepare(self, doc, write):
        if doc.get("type") and doc["type"] not in POINT_ACTION_TYPES:
            write.errors["type"] = [f"Unknown point action type '{doc['type']}'; see /api/points/actions/types."]


class TriggerHooks(Hooks):
    def prepare(self, doc, write):
        doc["color"] = (doc.get("color") or "").lstrip("#") or None

    def stored(self, doc, existing, ctx):
        """Queue the pass over existing contacts when the save can make some due for its events."""
        if doc is not None and point_triggers.needed(doc, existing, ctx.now):
            point_triggers.enqueue(doc["id"])
