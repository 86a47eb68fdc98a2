"""Point actions and point triggers: action types from the catalogue, trigger colours without '#',
existing contacts given a trigger's events (`triggerExistingLeads`, domain/points/point_triggers.py)."""

from chalicelib.domain.contacts import contact_actions
from chalicelib.domain.kernel import access, references, registry
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Hooks, Write
from chalicelib.domain.kernel.types import Doc
from chalicelib.domain.points import point_triggers, url_hits
from chalicelib.domain.points.catalog import POINT_ACTION_TYPES
from chalicelib.store import port as store


def category_by_title(doc: Doc, write: Write) -> None:
    """A `category` sent as the category's title, as point actions and triggers show it (the spec:
    "category name"), names that category: a client that PUTs back what it read keeps it (issue 34).
    A title held by several categories picks the `point` bundle's; one no category the caller may view
    holds stays a 400 (Mautic's "Category <title> does not exist").
    Costs one read of the category kind, only for a write that sends a title."""
    sent = write.payload.get("category")
    if not isinstance(sent, str) or sent.strip().isdigit() or "category" not in write.errors:
        return
    categories = registry.resource("category")
    held = [
        c
        for c in store.iterate("category")
        if c.get("title") == sent and access.viewable(write.ctx, categories, c)  # no probing of unseen titles
    ]
    held.sort(key=lambda c: c.get("bundle") != "point")
    if held:
        doc["category"] = held[0]["id"]
        del write.errors["category"]
    else:
        write.errors["category"] = [f"Category {sent} does not exist"]


class PointActionHooks(Hooks):
    """Point actions: the type is one of the catalogue's."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """An unknown action type is a 400 naming the types endpoint; a category may be named by its title."""
        category_by_title(doc, write)
        if doc.get("type") and doc["type"] not in POINT_ACTION_TYPES:
            write.errors["type"] = [f"Unknown point action type '{doc['type']}'; see /api/points/actions/types."]
        if doc.get("type") == "url.hit":
            write.errors.update(url_hits.problems(doc.get("properties") or {}))


def _check_user_email(event: Doc, index: int, write: Write) -> None:
    """An `email.send_to_user` event names an existing email (`properties.useremail.email`, 400 naming
    it) that the caller may view (403: its content would go to the addresses the event names)."""
    useremail = (event.get("properties") or {}).get("useremail")
    email_id = a.id_or_none(useremail.get("email")) if isinstance(useremail, dict) else None
    found = references.referenced("email", [email_id], write.ctx).get(email_id) if email_id is not None else None
    if found is None:
        write.errors[f"events[{index}][properties][useremail][email]"] = ["Choose an existing email (its id)."]
    else:
        access.require(write.ctx, registry.resource("email"), Action.VIEW, found)


class TriggerHooks(Hooks):
    """Point triggers: the colour without its '#', the pass over existing contacts after a save."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """The colour is stored without a leading '#' (None when blank); a `stage.change` event names
        an existing stage the caller may view (400 naming `events[<n>][properties][stage]`; 403); a
        category may be named by its title."""
        category_by_title(doc, write)
        doc["color"] = (doc.get("color") or "").lstrip("#") or None
        for index, event in enumerate(doc.get("events") or []):
            if event.get("type") == "email.send_to_user":
                _check_user_email(event, index, write)
            if event.get("type") == "stage.change":
                if contact_actions.named_stage((event.get("properties") or {}).get("stage"), write.ctx) is None:
                    write.errors[f"events[{index}][properties][stage]"] = ["Choose an existing stage (its id)."]

    def stored(self, doc: Doc | None, existing: Doc | None, ctx: Context) -> None:
        """Queue the pass over existing contacts when the save can make some due for its events."""
        if doc is not None and point_triggers.needed(doc, existing, ctx.now):
            point_triggers.enqueue(doc["id"])
