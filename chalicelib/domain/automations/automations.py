"""Automations: the event graph stored with its parent links and validated, sources (segments,
forms) whose members enter in the background (domain/automations/automation_runs.py), clones."""

import copy
from collections.abc import Callable, Collection, Mapping

from chalicelib.domain.automations import automation_graph, automation_runs, journey_routing, restart_delay
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import access, clock, references, registry, service
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.aliases import AliasHooks
from chalicelib.domain.kernel.capability_hooks import Assembled
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import Unprocessable
from chalicelib.domain.kernel.resources import Write
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.ports import queues
from chalicelib.store import port as store
from chalicelib.store.port import EntityId

LINK_KEYS = ("id", "name", "type", "eventType", "order", "decisionPath")


def as_ref(value: JSON) -> JSON:
    """An event reference as sent: an id, a temporary id (`new1`) or an object with `id`."""
    if isinstance(value, dict):
        value = value.get("id")
    return None if value in (None, "") else str(value)


def as_refs(value: JSON) -> list[JSON]:
    """The event references of a value that holds one or a list of them (ids, temporary ids, objects)."""
    return [as_ref(v) for v in (value if isinstance(value, list) else [value]) if as_ref(v) is not None]


def _namer(sent: list[JSON]) -> Callable[[Doc], str]:
    """Error keys for events: `events[i]` by their index in the request, else by their id."""
    index_of = {str(raw.get("id")): i for i, raw in enumerate(sent) if isinstance(raw, dict) and raw.get("id")}
    return lambda event: f"events[{index_of.get(str(event.get('id')), event.get('id'))}]"


def _check_user_email(event: Doc, key: str, write: Write) -> None:
    """An `email.send.to.user` action names an existing email (400 naming `<event>[properties][useremail]
    [email]`) that the caller may view (403: its content goes to the addresses the action names)."""
    useremail = (event.get("properties") or {}).get("useremail")
    email_id = a.id_or_none(useremail.get("email")) if isinstance(useremail, dict) else None
    found = references.referenced("email", [email_id], write.ctx).get(email_id) if email_id is not None else None
    if found is None:
        write.errors[f"{key}[properties][useremail][email]"] = ["Choose an existing email (its id)."]
    else:
        access.require(write.ctx, registry.resource("email"), access.Action.VIEW, found)


def _check_events(events: list[Doc], sent: list[Doc], write: Write) -> None:
    """The graph's problems (400), the emails `email.send.to.user` actions name, then a restart
    without Mautic's minimum delay (422)."""
    named = _namer(sent)
    if not write.errors:
        write.errors.update(automation_graph.problems(events, named))
    for event in events:
        if event.get("type") == "email.send.to.user":
            _check_user_email(event, named(event), write)
    loops = restart_delay.problems(events, (write.existing or {}).get("id"), named)
    if loops and not write.errors:
        raise Unprocessable(loops)


class AutomationHooks(AliasHooks, Assembled):
    """Parents may name events by real or temporary id; `children` is derived from parents."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """Parents named by a parent's `children`, and checks: known parents, then the graph's problems."""
        super().prepare(doc, write)
        events = doc.get("events") or []
        by_ref = {str(e["id"]): e for e in events if e.get("id") is not None}
        for ref, event in by_ref.items():
            for child in event.get("children") or []:
                if child in by_ref and not by_ref[child].get("parent"):
                    by_ref[child]["parent"] = ref
        sent = write.payload.get("events")
        sent = sent if isinstance(sent, list) else []
        for index, raw in enumerate(sent):
            parent = as_ref(raw.get("parent")) if isinstance(raw, dict) else None
            if parent is not None and parent not in by_ref:
                write.errors[f"events[{index}][parent]"] = [f"No event '{parent}' in this automation."]
        for event in events:
            event.pop("children", None)
        _check_events(events, sent, write)

    def stamp_created(self, doc: Doc, ctx: Context) -> None:
        """The creator is also the modifier, at the same time: Mautic's CampaignApiController saves a new
        campaign twice (in preSaveEntity, so its events get ids, then in processForm), and the second
        save stamps `modifiedBy`/`dateModified`; its client then compares a PATCH answer with that."""
        doc.update(dateModified=doc["dateAdded"], modifiedBy=doc["createdBy"], modifiedByUser=doc["createdByUser"])

    def stored(self, doc: Doc | None, existing: Doc | None, ctx: Context) -> None:
        """Members of the source segments enter when the automation is published or gets new sources;
        a deleted automation's memberships are purged."""
        if doc is None:
            assert existing is not None  # a delete names the document it removes
            queues.send(automation_runs.QUEUE, [{"type": "purge", "automation": existing["id"]}])
        elif (
            doc.get("isPublished", True)
            and doc.get("lists")
            and (
                existing is None
                or not existing.get("isPublished", True)
                or set(doc["lists"]) - set(existing.get("lists") or [])
            )
        ):
            queues.send(automation_runs.QUEUE, [{"type": "enroll", "automation": doc["id"]}])

    def finalize(self, doc: Doc, write: Write) -> None:
        """Parents that name existing events by their real id (a PUT resends them as sent on read) become
        ids now: `link` runs only when the write adds events, and a parent kept as the string "7" links
        nothing (issue 34: a PUT of the graph as read lost every link)."""
        super().finalize(doc, write)
        self.link(doc, {})

    def link(self, doc: Doc, new_ids: Mapping[tuple[str, str], int]) -> None:
        """Temporary ids in parents, jump targets and the canvas (nodes, connections) become the real ids."""

        def real(ref: JSON) -> JSON:
            return new_ids.get(("events", str(ref)), int(ref) if a.digits(str(ref)) else ref)

        for event in doc.get("events") or []:
            if event.get("parent") is not None:
                event["parent"] = real(event["parent"])
            if (event.get("properties") or {}).get("jumpToEvent") is not None:
                event["properties"]["jumpToEvent"] = real(event["properties"]["jumpToEvent"])
        canvas = doc.get("canvasSettings") or {}
        for node in canvas.get("nodes") or []:
            if isinstance(node, dict) and ("events", str(node.get("id"))) in new_ids:
                node["id"] = str(real(node["id"]))
        for line in canvas.get("connections") or []:
            for end in ("sourceId", "targetId"):
                if isinstance(line, dict) and ("events", str(line.get(end))) in new_ids:
                    line[end] = str(real(line[end]))

    def present(self, doc: Doc, out: Doc, ctx: Context) -> None:
        """Each event's `parent` and `children` shown as Mautic's links (id, name, ...), not ids."""
        events = out["events"]
        by_id = {e["id"]: e for e in doc.get("events") or []}
        for event in events:
            parent = by_id.get(event.get("parent"))
            event["parent"] = {k: parent.get(k) for k in LINK_KEYS} if parent else None
            event["children"] = [
                {k: c.get(k) for k in LINK_KEYS} for c in doc.get("events") or [] if c.get("parent") == event["id"]
            ]


def clone(automation_id: EntityId, ctx: Context) -> Doc:
    """A copy of an automation with its whole event graph (new event ids, same links), unpublished."""
    original = service.load(registry.resource("automation"), automation_id)
    events = copy.deepcopy(original.get("events") or [])
    payload = {
        key: copy.deepcopy(original.get(key))
        for key in ("name", "description", "lists", "forms", "allowRestart", "category", "removeOnSegmentExit")
    }
    payload["canvasSettings"] = _canvas_refs(original.get("canvasSettings"), {str(e["id"]) for e in events})
    payload.update(isPublished=False, events=[_temporary(e) for e in events])
    return service.create(registry.resource("automation"), payload, ctx)[0]


def _temporary(event: Doc) -> Doc:
    """A copy of an event for a clone: its own id, its parent and its jump target as temporary ids."""
    copied = dict(event, id=f"new{event['id']}", parent=f"new{event['parent']}" if event.get("parent") else None)
    target = (event.get("properties") or {}).get("jumpToEvent")
    if target is not None:
        copied["properties"] = dict(event["properties"], jumpToEvent=f"new{target}")
    return copied


def _canvas_refs(canvas: JSON, event_ids: Collection[str]) -> JSON:
    """A copy of a canvas whose event references are temporary ids again (`new<old id>`); an empty one
    is copied as it is, `[]` or `{}`."""
    copied = copy.deepcopy(canvas) if canvas is not None else {}
    for node in a.object_in(copied).get("nodes") or []:
        if isinstance(node, dict) and str(node.get("id")) in event_ids:
            node["id"] = f"new{node['id']}"
    for line in a.object_in(copied).get("connections") or []:
        for end in ("sourceId", "targetId"):
            if isinstance(line, dict) and str(line.get(end)) in event_ids:
                line[end] = f"new{line[end]}"
    return copied


def change_member(automation_id: EntityId, contact_id: EntityId, added: bool, ctx: Context) -> None:
    """Add (or remove) one contact by hand: 404 for an unknown automation or contact."""
    automation = service.load(registry.resource("automation"), automation_id)

    def attempt() -> None:
        existing = service.load(CONTACT, contact_id)
        doc = copy.deepcopy(existing)
        changed = (
            journey_routing.enroll(doc, automation, "manual", ctx)
            if added
            else journey_routing.leave(doc, automation["id"], True, ctx)
        )
        if changed:
            service.save_change(CONTACT, existing, doc, ctx, stamp=False)

    service.retrying(attempt, ctx)


def _db_row(automation_id: int, row: Doc) -> dict[str, str | None]:
    """A row of Mautic's campaign_leads table as its statistics endpoint returns it: strings."""
    added = clock.parse(row["dateAdded"]).strftime("%Y-%m-%d %H:%M:%S")
    return {
        "campaign_id": str(automation_id),
        "lead_id": str(row["id"]),
        "date_added": added,
        "manually_removed": "0",
        "manually_added": "1" if row.get("manuallyAdded") else "0",
        "date_last_exited": None,
        "rotation": str(row.get("rotation") or 1),
    }


def members(automation_id: EntityId, start: int, limit: int, ctx: Context) -> Doc:
    """`{"total", "contacts": [...]}` of the automation's current members (compat 1.8), by contact id;
    a caller who may see only their own contacts gets those (their documents read to know whose)."""
    automation = service.load(registry.resource("automation"), automation_id)
    rows = list(store.iterate(journey_routing.enrolled_kind(automation["id"])))
    owner = access.visible_owner(ctx, CONTACT)
    if owner is not None:
        contacts = store.batch_get(CONTACT.kind, [row["id"] for row in rows])
        rows = [
            row for row in rows if row["id"] in contacts and access.owner_of(CONTACT, contacts[row["id"]], ctx) == owner
        ]
    return {"total": len(rows), "contacts": [_db_row(automation["id"], r) for r in rows[start : start + limit]]}
