"""The points engine: point actions score what a contact does, point triggers act at thresholds.

Everything works on a contact document about to be stored (`service.save_change`), so the
points, the trigger effects and their timeline events are written in one transaction.
A non-repeatable action, and a trigger event, happens once per contact: the contact's
`point.gained` events record which ones did (read only when one is about to happen again).
Every contact write whose timeline events record a points change runs the triggers it crosses
(`on_contact_write`, a subscriber to contact writes), points written by an API payload included.
Trigger events of other capabilities (send an email, change automations) run through the
subscriber table's `actions`. A point action naming a point group scores in that group instead of
the points, and a trigger naming one fires on that group's score (domain/points/group_scores.py).
"""

from collections.abc import Iterable, Sequence
from typing import cast

from chalicelib.domain.contacts import contact_actions, contacts
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import cache_keys, cached, clock, subscribers, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.subscribers import Change
from chalicelib.domain.kernel.types import JSON, Doc, Event, Events
from chalicelib.domain.points import group_scores, url_hits
from chalicelib.domain.segments import membership
from chalicelib.store import fanout
from chalicelib.store import port as store
from chalicelib.store.port import Derived

SUBJECT_PROPERTIES = {
    "form.submit": "forms",
    "page.hit": "pages",
    "asset.download": "assets",
    "email.open": "emails",
    "email.send": "emails",
}


def matches(action: Doc, event_type: str, subject: JSON) -> bool:
    """Whether a point action of `event_type` scores `subject` (an entity id, or a URL for url.hit)."""
    if action.get("type") != event_type:
        return False
    props = action.get("properties") or {}
    if event_type == "url.hit":
        return url_hits.url_matches(props.get("page_url"), subject)
    wanted = a.ids_in(props.get(SUBJECT_PROPERTIES[event_type]))
    return not wanted or int(subject) in wanted


def point_actions(ctx: Context) -> list[Doc]:
    """The published point actions (a versioned cached kind: no read on most requests)."""
    return ctx.memo(
        cache_keys.POINT_ACTIONS, lambda: [p for p in cached.documents("point", ctx) if is_published(p, ctx.now)]
    )


def _stored_events(doc: Contact, ctx: Context) -> list[Doc]:
    """The contact's stored timeline events (one Query a MB, once per request; none for a new contact)."""
    return ctx.memo(cache_keys.points_timeline(doc["id"]), lambda: list(store.iterate(timeline.kind(doc["id"]))))


def read_histories(docs: Sequence[Contact], ctx: Context) -> None:
    """Read the stored timeline events of several contacts at once (their Queries sent together, one
    round trip), for `_stored_events` to find in the context: a pass over many contacts waits on one
    read per batch instead of one per contact."""
    keys = [cache_keys.points_timeline(doc["id"]) for doc in docs]
    unread = [(key, doc) for key, doc in zip(keys, docs, strict=True) if key not in ctx.cache]
    started = fanout.started(store.iterate(timeline.kind(doc["id"])) for _, doc in unread)
    for (key, _), events in zip(unread, started, strict=True):
        ctx.cache[key] = list(events)


def _earlier_hits(doc: Contact, ctx: Context) -> list[url_hits.Hit]:
    """The contact's stored page hits with a URL, oldest first."""
    found = [
        url_hits.Hit(str(e["details"]["url"]), clock.parse(e["timestamp"]))
        for e in _stored_events(doc, ctx)
        if e.get("event") == "page.hit" and (e.get("details") or {}).get("url") and e.get("timestamp")
    ]
    return sorted(found, key=lambda hit: hit.at)


def _history(doc: Contact, ctx: Context) -> tuple[set[JSON], set[JSON]]:
    """(point action ids, trigger event ids) that already happened to the contact."""

    def read() -> tuple[set[JSON], set[JSON]]:
        actions: set[JSON] = set()
        events: set[JSON] = set()
        for event in _stored_events(doc, ctx):
            if event.get("event") == "point.gained":
                details = event.get("details") or {}
                actions.add(details.get("pointActionId"))
                events.update(details.get("triggerEvents") or [])
        return actions, events

    return ctx.memo(cache_keys.points_history(doc["id"]), read)


def award(doc: Contact, event_type: str, subject: JSON, ctx: Context) -> Events:
    """Apply the point actions that `event_type` on `subject` earns; returns their timeline events."""
    events = []
    for action in point_actions(ctx):
        if not matches(action, event_type, subject) or not _counts_hold(doc, action, event_type, subject, ctx):
            continue
        if not action.get("repeatable") and action["id"] in _history(doc, ctx)[0]:
            continue
        event = _score(doc, action, event_type, ctx)
        if event:
            _history(doc, ctx)[0].add(action["id"])
            events.append(event)
    return events


def _counts_hold(doc: Contact, action: Doc, event_type: str, subject: JSON, ctx: Context) -> bool:
    """A `url.hit` action's options on the contact's hits (url_hits.py); other actions have none."""
    props = action.get("properties") or {}
    if event_type != "url.hit" or not url_hits.counted(props):
        return True
    return url_hits.holds(props, str(subject), _earlier_hits(doc, ctx), clock.parse(ctx.now))


def url_hit_points(doc: Contact, events: Sequence[Event], ctx: Context) -> Events:
    """The `url.hit` point actions that the change's page hits of no landing page (the tracking
    pixel, a tracked email link) earn, as Mautic's PageBundle PointSubscriber::onPageHit."""
    return [
        gained
        for e in events
        if e.get("event") == "page.hit" and not (e.get("details") or {}).get("page") and e["details"].get("url")
        for gained in award(doc, "url.hit", e["details"]["url"], ctx)
    ]


def _score(doc: Contact, action: Doc, event_type: str, ctx: Context) -> Event | None:
    """Add the action's delta to the contact's points, or to its score in the action's group; the
    `point.gained` event, or None (no change, or the group is gone)."""
    delta, details = (
        int(action.get("delta") or 0),
        {"action": action.get("name"), "type": event_type, "pointActionId": action["id"]},
    )
    if action.get("group") is None:
        return contact_actions.adjust_points(doc, "plus", delta, action.get("name"), details)
    found = group_scores.groups(ctx).get(action["group"])
    return group_scores.adjust(doc, found, "plus", delta, action.get("name"), details, ctx) if found else None


def crossed(old: int, new: int, ctx: Context, group: int | None = None) -> list[Doc]:
    """Published triggers on `group` (None: on the points) whose threshold the score just reached."""
    return [
        t
        for t in cached.documents("trigger", ctx)
        if is_published(t, ctx.now) and t.get("group") == group and old < int(t.get("points") or 0) <= new
    ]


def run_triggers(
    doc: Contact, old_points: int, events: Sequence[Event], ctx: Context, out: Events | None = None
) -> list[JSON]:
    """Fire the events of the triggers crossed since `old_points`, once per contact; the trigger
    events fired are noted on the last `point.gained` event of `events`, and the timeline events
    they cause (a stage change) added to `out`. The triggers on a group whose score `events` change
    fire as its score crosses them. Running it again on the same change fires nothing more."""
    gained = [e for e in events if e["event"] == "point.gained"]
    triggers = crossed(old_points, contacts.points(doc), ctx) if gained else []
    for group_id, old in group_scores.previous(gained).items():
        triggers += crossed(old, group_scores.score(doc, group_id), ctx, group_id)
    fired = fire_events(doc, triggers, ctx, out) if triggers else []
    if fired:
        details = gained[-1]["details"]
        details["triggerEvents"] = (details.get("triggerEvents") or []) + fired
    return fired


def fire_events(doc: Contact, triggers: Iterable[Doc], ctx: Context, out: Events | None = None) -> list[JSON]:
    """Apply the events of `triggers` the contact has not had yet, in order; their ids. The timeline
    events they cause go to `out`."""
    done, fired = _history(doc, ctx)[1], []
    caused: Events = [] if out is None else out
    for trigger in triggers:
        for item in sorted(trigger.get("events") or [], key=lambda e: e.get("order") or 0):
            if item["id"] not in done and _fire(doc, trigger, item, ctx, caused):
                fired.append(item["id"])
    done.update(fired)
    return fired


def on_contact_write(change: Change) -> tuple[list[Derived], Events]:
    """Subscriber to contact writes: score the `url.hit` point actions its page hits earn, then run
    the triggers crossed by the points change its `point.gained` events record (a no-op for a change
    whose caller ran them already)."""
    if change.doc is None:
        return [], []
    caused = url_hit_points(change.doc, change.events, change.ctx)
    run_triggers(change.doc, contacts.points(change.existing), [*change.events, *caused], change.ctx, caused)
    return [], caused


def existing_contact(doc: Contact, trigger: Doc, ctx: Context) -> Events:
    """Give a contact already at or above a trigger's threshold the trigger's events it has not had
    (`triggerExistingLeads`): the `point.gained` event (delta 0) noting them and the events they
    caused, or none."""
    caused: Events = []
    fired = fire_events(doc, [trigger], ctx, caused)
    if not fired:
        return []
    points = group_scores.score(doc, trigger.get("group"))
    group_id = trigger.get("group")
    found = group_scores.groups(ctx).get(group_id) if group_id is not None else None
    group = {"group": {"id": found["id"], "name": found.get("name")}} if found else {}
    noted = timeline.event(
        "point.gained",
        trigger.get("name"),
        dict(
            group,
            **{
                "action": "Trigger",
                "pointTriggerId": trigger["id"],
                "delta": 0,
                "oldPoints": points,
                "newPoints": points,
                "triggerEvents": fired,
            },
        ),
    )
    return [noted, *caused]


def _fire(doc: Contact, trigger: Doc, item: Doc, ctx: Context, caused: Events) -> bool:
    """Apply one trigger event to the contact document (its timeline events go to `caused`); False
    for types this service cannot run, and for a `stage.change` to a stage that is gone."""
    props = item.get("properties") or {}
    if item["type"] == "lead.changetags":
        contacts.change_tags(doc, tag_names(props.get("add_tags")), tag_names(props.get("remove_tags")), ctx)
        return True
    if item["type"] == "lead.changelists":
        return change_segments(doc, props.get("addToLists"), props.get("removeFromLists"), ctx)
    if item["type"] == "stage.change":
        return _change_stage(doc, trigger, props, ctx, caused)
    handler = subscribers.action(item["type"])
    return bool(handler and handler(cast(Doc, doc), item, ctx))  # the handlers take any document


def _change_stage(doc: Contact, trigger: Doc, props: Doc, ctx: Context, caused: Events) -> bool:
    """The trigger event `stage.change`: the contact enters the stage `stage` as the stage's add
    endpoint puts it (docs/stages.md)."""
    try:
        event = contact_actions.enter_stage(doc, props.get("stage"), f"Point trigger {trigger.get('name')}", ctx)
    except NotFound:
        return False
    caused += [event] if event else []
    return True


def tag_names(value: JSON) -> list[str]:
    """Tag names of a trigger or action property: a comma-separated string or a list."""
    if isinstance(value, str):
        return [n for n in value.split(",") if n.strip()]
    return [str(n) for n in a.as_list(value or [])] if isinstance(value, (list, dict)) else []


def change_segments(doc: Contact, add: JSON, remove: JSON, ctx: Context) -> bool:
    """Manually add the contact to / remove it from segments (ids), as recorded by the membership module."""
    for segment_id in sorted(a.ids_in(add or [])):
        membership.mark(doc, segment_id, True, ctx.now)
    for segment_id in sorted(a.ids_in(remove or [])):
        membership.mark(doc, segment_id, False, ctx.now)
    return True
