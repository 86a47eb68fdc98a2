"""Webhook events: the triggers a stored change fires, the outbox that carries them to the
`webhooks` queue, and their payloads (compat 5.1 and 5.3).

Contacts and companies fire triggers by comparing the stored document with the new one; every
resource fires the triggers of its timeline events (TIMELINE: adding one is a line). When a
published hook subscribes to a trigger a change fires, one outbox item (the document as stored,
the raw events, the hook ids) is written in the change's own transaction and queued right after
it commits; `sweep` queues again the items a crash or an SQS failure left behind, so no committed
change is lost. The delivery worker (domain/webhooks/webhooks.py) renders the payloads and removes the item.
"""

import secrets
import time
from collections.abc import Callable, Iterable, Sequence

from chalicelib.domain.contacts import erasure
from chalicelib.domain.kernel import cache_keys, cached, clock, redaction, registry
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.present import present_one
from chalicelib.domain.kernel.resources import Resource
from chalicelib.domain.kernel.subscribers import Change
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import email_stats
from chalicelib.ports import queues
from chalicelib.store import port as store
from chalicelib.store.port import Derived

OUTBOX = "outbox"
QUEUE = "webhooks"
ID_SCALE = 10**6  # outbox ids: nanoseconds since the epoch, then six random digits
STALE_SECONDS = 120  # an outbox item older than this lost its message
SWEEP_MAX = 1000
TIMELINE = {
    "segment_membership": "mautic.lead_list_change",
    "form.submitted": "mautic.form_on_submit",
    "page.hit": "mautic.page_on_hit",
    "email.sent": "mautic.email_on_send",
    "email.read": "mautic.email_on_open",
    "sms.sent": "mautic.sms_on_send",
    "campaign_membership": "mautic.campaign_on_leadchange",
    "campaign.event": "mautic.campaign_on_event_executed",
}
DNC_STATUS = {1: "unsubscribed", 2: "bounced", 3: "manual"}
NOT_CHANGES = {
    "dateModified",
    "modifiedBy",
    "modifiedByUser",
    "segments",
    "automations",
}


def _changed(doc: Doc, before: Doc) -> bool:
    """True when a key clients see (not the stamp, memberships or internal `_` keys) changed."""
    return any(
        doc.get(key) != before.get(key)
        for key in set(doc) | set(before)
        if key not in NOT_CHANGES and not key.startswith("_")
    )


def _points(doc: Doc) -> int:
    return int((doc.get("values") or {}).get("points") or 0)


def _dnc(doc: Doc) -> dict[str, str]:
    return {e["channel"]: DNC_STATUS.get(e.get("reason"), "manual") for e in doc.get("doNotContact") or []}


def _company_ids(doc: Doc) -> list[int]:
    return [link["id"] for link in doc.get("companies") or []]


def _contact_events(doc: Doc | None, existing: Doc | None) -> list[Doc]:
    if doc is None:
        return [{"trigger": "mautic.lead_post_delete"}]
    before = existing or {}
    events: list[Doc] = []
    if doc.get("dateIdentified") and not before.get("dateIdentified"):
        events.append({"trigger": "mautic.lead_post_save_new"})
    elif doc.get("dateIdentified") and _changed(doc, before):
        events.append({"trigger": "mautic.lead_post_save_update"})
    if _points(doc) != _points(before):
        events.append(
            {
                "trigger": "mautic.lead_points_change",
                "points": {"old_points": _points(before), "new_points": _points(doc)},
            }
        )
    old, new = _dnc(before), _dnc(doc)
    for channel in dict.fromkeys(list(old) + list(new)):
        was, now = old.get(channel, "contactable"), new.get(channel, "contactable")
        if was != now:
            events.append(
                {
                    "trigger": "mautic.lead_channel_subscription_changed",
                    "channel": channel,
                    "old_status": was,
                    "new_status": now,
                }
            )
    old_links, new_links = _company_ids(before), _company_ids(doc)
    events += [
        {"trigger": "mautic.lead_company_change", "added": True, "companyId": c}
        for c in new_links
        if c not in old_links
    ]
    events += [
        {"trigger": "mautic.lead_company_change", "added": False, "companyId": c}
        for c in old_links
        if c not in new_links
    ]
    return events


def _company_events(doc: Doc | None, existing: Doc | None) -> list[Doc]:
    if doc is None:
        return [{"trigger": "mautic.company_post_delete"}]
    return [{"trigger": "mautic.company_post_save"}] if existing is None or _changed(doc, existing) else []


CHANGES: dict[str, Callable[[Doc | None, Doc | None], list[Doc]]] = {
    "contact": _contact_events,
    "company": _company_events,
}


def fired(kind: str, doc: Doc | None, existing: Doc | None, events: Iterable[Doc] = ()) -> list[Doc]:
    """The raw events ({"trigger", ...}) of a create (`existing` None), edit or delete (`doc` None)
    of a document of `kind` with its timeline events, in order."""
    found = CHANGES[kind](doc, existing) if kind in CHANGES else []
    return found + [
        {"trigger": TIMELINE[e["event"]], "details": e.get("details") or {}, "contactId": e.get("contactId")}
        for e in events
        if e.get("event") in TIMELINE
    ]


def _published_hooks(ctx: Context) -> list[Doc]:
    """The published hooks (a versioned cached kind: no read on most requests)."""
    return ctx.memo(cache_keys.WEBHOOKS, lambda: [h for h in cached.documents("hook", ctx) if h.get("isPublished")])


def _new_id() -> int:
    return time.time_ns() * ID_SCALE + secrets.randbelow(ID_SCALE)


def outbox(
    resource: Resource, doc: Doc | None, existing: Doc | None, events: Iterable[Doc], ctx: Context
) -> list[tuple[str, int, Doc]]:
    """The derived items ([(kind, id, document)]) a change writes in its transaction: one outbox
    item when a published hook subscribes to a trigger the change fires, else none."""
    raw = fired(resource.kind, doc, existing, events)
    if not raw:
        return []
    triggers = {e["trigger"] for e in raw}
    hooks = [h["id"] for h in _published_hooks(ctx) if triggers & set(h.get("triggers") or [])]
    if not hooks:
        return []
    stored = {k: v for k, v in (doc or existing or {}).items() if not k.startswith("_")}
    item: Doc = {
        "id": _new_id(),
        "queuedAt": ctx.now,
        "baseUrl": ctx.base_url,
        "kind": resource.kind,
        "doc": stored,
        "deleted": doc is None,
        "events": raw,
        "hooks": hooks,
    }
    return [(OUTBOX, item["id"], item)]


def announce(change: Change) -> list[tuple[str, int, Doc]]:
    """Subscriber to every write: its outbox item, if a published hook wants what it fires. A contact
    deleted for good is announced by the last step of its erasure instead (`announce_erased`)."""
    gone = change.existing if change.doc is None and change.resource.kind == "contact" else None
    if gone is not None and erasure.erasing(gone["id"], change.ctx):
        return []
    return outbox(change.resource, change.doc, change.existing, change.events, change.ctx)


def announce_erased(job: Doc) -> None:
    """Erasure step, the last: `lead_post_delete` with the deleted contact as Mautic sends it, once
    its data is gone. The outbox item's id comes from the job's time, so a repeated step writes the
    same item (and the sweep queues it again at once if this message is lost)."""
    ctx = Context(base_url=job.get("baseUrl") or "")
    items = outbox(registry.resource("contact"), None, job["contact"], [], ctx)
    for _, _, item in items:
        item["id"] = int(clock.parse(job["queuedAt"]).timestamp()) * 10**9 * ID_SCALE + int(job["id"]) % ID_SCALE
        store.put(OUTBOX, item)
    queue([(OUTBOX, item["id"], item) for _, _, item in items])


def _messages(ids: Iterable[int]) -> list[Doc]:
    return [{"type": "outbox", "id": item_id} for item_id in ids]


def queue(derived: Sequence[Derived]) -> None:
    """Queue the outbox items among a committed change's derived items. If SQS fails they stay
    stored: `sweep` sends them."""
    queues.send_stored(QUEUE, derived, OUTBOX, "outbox")


def sweep() -> None:
    """Queue again the outbox items older than STALE_SECONDS (oldest first, SWEEP_MAX a run)."""
    cutoff = (time.time_ns() - STALE_SECONDS * 10**9) * ID_SCALE
    ids = [item["id"] for item in store.iterate(OUTBOX, between=(0, cutoff), limit=SWEEP_MAX)]
    queues.send(QUEUE, _messages(ids))


def _ref(details: Doc, name: str) -> JSON:
    """The id of the `name` a timeline event refers to: `<name>Id`, `<name>.id` or `<name>`."""
    value = details.get(f"{name}Id", details.get(name))
    return value.get("id") if isinstance(value, dict) else value


class Payloads:
    """Presents the documents an outbox item's events refer to, each once (the API's serializer)."""

    def __init__(self, item: Doc, ctx: Context) -> None:
        self.item, self.ctx = item, ctx
        self.resources = {r.kind: r for r in registry.resources()}
        self.shown: Doc | None = None  # the changed document, presented
        self.memo: dict[tuple[str, int], Doc | None] = {}

    def subject(self) -> Doc:
        """The changed document (a deleted one with `id` null, as Mautic sends it)."""
        if self.shown is None:
            self.shown = self._present(self.item["kind"], self.item["doc"])
            if self.item["deleted"]:
                self.shown["id"] = None
        return self.shown

    def contact(self, event: Doc) -> Doc | None:
        """The contact of an event: the changed document itself when it is that contact, else the one it names."""
        wanted = event.get("contactId")
        if self.item["kind"] == "contact" and wanted in (None, self.item["doc"]["id"]):
            return self.subject()
        return self.entity("contact", wanted)

    def entity(self, kind: str, entity_id: JSON) -> Doc | None:
        """The presented document of another kind, or None when it is gone."""
        if entity_id is None:
            return None
        key = (kind, int(entity_id))
        if key not in self.memo:
            doc = store.get(kind, int(entity_id))
            self.memo[key] = self._present(kind, doc) if doc else None
        return self.memo[key]

    def _present(self, kind: str, doc: Doc) -> Doc:
        return present_one(self.resources[kind], doc, self.ctx)


STAT_KEYS = (
    "id",
    "emailAddress",
    "ipAddress",
    "dateSent",
    "isRead",
    "isFailed",
    "dateRead",
    "retryCount",
    "source",
    "openCount",
    "lastOpened",
    "sourceId",
    "viewedInBrowser",
)


def _email_stat(details: Doc) -> Doc:
    """The send record an email event names (its `statId`), or {}."""
    email_id, stat_id = _ref(details, "email"), details.get("statId")
    return (email_stats.get("email", email_id, stat_id) if email_id and stat_id else None) or {}


def _email_send(p: Payloads, e: Doc) -> Doc:
    details, stat = e["details"], _email_stat(e["details"])
    email = p.entity("email", _ref(details, "email"))
    return {
        "email": email,
        "contact": p.contact(e),
        "contentHash": stat.get("contentHash"),
        "idHash": None,  # the tracking hash: whoever holds it acts as the contact (docs/security.md)
        "subject": details.get("subject"),
        "source": details.get("source"),
        "headers": redaction.without(stat.get("headers"), _hash_of(stat, details)),
        "content": (email or {}).get("customHtml"),
        "tokens": redaction.without(stat.get("tokens"), _hash_of(stat, details)),
    }


def _hash_of(stat: Doc, details: Doc) -> str | None:
    """The tracking hash of a send: its record's, or the one its event stored before issue 39."""
    found = stat.get("trackingHash") or details.get("trackingHash")
    return found if isinstance(found, str) else None


def _email_open(p: Payloads, e: Doc) -> Doc:
    details, found = e["details"], _email_stat(e["details"])
    stat = {key: value for key, value in found.items() if key in STAT_KEYS} or {
        key: value for key, value in details.items() if key != "trackingHash"
    }
    stat = redaction.without(stat, _hash_of(found, details))
    return {"stat": dict(stat, lead=p.contact(e), email=p.entity("email", _ref(e["details"], "email")))}


def _hit(p: Payloads, e: Doc) -> Doc:
    details = e["details"]
    hit = dict(details, page=p.entity("page", _ref(details, "page")), lead=p.contact(e))
    if details.get("emailId"):
        hit["email"] = p.entity("email", details["emailId"])
    return {"hit": hit}


def _segment(p: Payloads, e: Doc) -> Doc:
    details = e["details"]
    found = p.entity("segment", details.get("segmentId"))
    segment = found or {"id": details.get("segmentId"), "name": details.get("segmentName")}
    return {"contact": p.contact(e), "segment": segment, "action": details.get("action")}


def _automation(p: Payloads, e: Doc) -> Doc:
    details = e["details"]
    found = p.entity("automation", details.get("automationId"))
    automation = {"id": details.get("automationId"), "name": (found or {}).get("name") or details.get("automationName")}
    return {"contact": p.contact(e), "automation": automation}


def _submission(p: Payloads, e: Doc) -> Doc:
    details = e["details"]
    form = p.entity("form", _ref(details, "form")) or details.get("form")
    return {"submission": dict(details.get("submission") or {}, form=form, lead=p.contact(e))}


RENDER: dict[str, Callable[[Payloads, Doc], Doc]] = {
    "mautic.lead_post_save_new": lambda p, e: {"contact": p.contact(e)},
    "mautic.lead_post_save_update": lambda p, e: {"contact": p.contact(e)},
    "mautic.lead_points_change": lambda p, e: {"contact": p.contact(e), "points": e["points"]},
    "mautic.lead_post_delete": lambda p, e: {"id": p.item["doc"]["id"], "contact": p.contact(e)},
    "mautic.lead_channel_subscription_changed": lambda p, e: {
        "contact": p.contact(e),
        "channel": e["channel"],
        "old_status": e["old_status"],
        "new_status": e["new_status"],
    },
    "mautic.lead_company_change": lambda p, e: {
        "added": e["added"],
        "contact": p.contact(e),
        "company": p.entity("company", e["companyId"]),
    },
    "mautic.company_post_save": lambda p, e: {"company": p.subject()},
    "mautic.company_post_delete": lambda p, e: {"id": p.item["doc"]["id"], "company": p.subject()},
    "mautic.lead_list_change": _segment,
    "mautic.email_on_send": _email_send,
    "mautic.email_on_open": _email_open,
    "mautic.form_on_submit": _submission,
    "mautic.campaign_on_leadchange": lambda p, e: dict(
        _automation(p, e), action=e["details"].get("action"), manual=e["details"].get("manual")
    ),
    "mautic.campaign_on_event_executed": lambda p, e: dict(
        _automation(p, e),
        event={k: e["details"].get(k) for k in ("eventId", "eventName", "type", "eventType", "status", "reason")},
    ),
    "mautic.page_on_hit": _hit,
    "mautic.sms_on_send": lambda p, e: {
        "smsId": _ref(e["details"], "sms"),
        "contact": p.contact(e),
        "content": e["details"].get("content"),
    },
}


def render(item: Doc, ctx: Context) -> list[tuple[str, Doc]]:
    """[(trigger, payload)] of an outbox item: compat 5.3 payloads stamped with the queue time."""
    payloads = Payloads(item, ctx)
    return [(e["trigger"], dict(RENDER[e["trigger"]](payloads, e), timestamp=item["queuedAt"])) for e in item["events"]]
