"""The names of the values every capability passes around, defined once.

Stored documents and request payloads are JSON: their keys are the resource's attributes, chosen by
its declaration at run time, so a document is a `Doc` (a dict of JSON values) and a value read from
a payload is `JSON` (`Any`: anything `json.loads` gives, checked by the attribute that takes it).
Where one shape crosses modules (the store's derived items, a timeline event), it has a name here.
"""

from collections.abc import Callable
from typing import Any, TypeAlias

from chalicelib.store.port import Derived, EntityId

__all__ = ["JSON", "Derived", "Doc", "EntityId", "Event", "Events", "Items", "Build"]

JSON: TypeAlias = Any  # a value decoded from JSON (payload or stored attribute): arbitrary by nature
Doc: TypeAlias = dict[str, Any]  # a stored document or a JSON object: {attribute: JSON value}
Event: TypeAlias = Doc  # a timeline event: {"event", "eventLabel", "details", ...} (kernel/timeline.py)
Events: TypeAlias = list[Event]  # the timeline events of one change
Items: TypeAlias = list[Derived]  # (kind, id, document, Tally or None) written in a change's transaction
Build: TypeAlias = Callable[[Doc], Events]  # given the document about to be stored: may change it, returns its events
