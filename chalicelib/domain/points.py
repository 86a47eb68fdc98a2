"""Point actions and point triggers: types from the catalogue, trigger colours without '#'."""
from chalicelib.domain.catalog import POINT_ACTION_TYPES, TRIGGER_EVENT_TYPES
from chalicelib.domain.resources import Hooks


class PointActionHooks(Hooks):
    def prepare(self, resource, doc, write):
        if doc.get("type") and doc["type"] not in POINT_ACTION_TYPES:
            write.errors["type"] = [f"Unknown point action type '{doc['type']}'; see /api/points/actions/types."]


class TriggerHooks(Hooks):
    def prepare(self, resource, doc, write):
        doc["color"] = (doc.get("color") or "").lstrip("#") or None
        for index, event in enumerate(doc.get("events") or []):
            if event.get("type") not in TRIGGER_EVENT_TYPES:
                write.errors[f"events[{index}][type]"] = [
                    f"Unknown trigger event type '{event.get('type')}'; see /api/points/triggers/events/types."]
