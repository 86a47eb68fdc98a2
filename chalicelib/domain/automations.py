"""Automations: the event graph stored with its parent links, sources (segments, forms)."""
from chalicelib.domain.aliases import AliasHooks
from chalicelib.domain.service import referenced

LINK_KEYS = ("id", "name", "type", "eventType", "order", "decisionPath")


def as_ref(value):
    """An event reference as sent: an id, a temporary id (`new1`) or an object with `id`."""
    if isinstance(value, dict):
        value = value.get("id")
    return None if value in (None, "") else str(value)


def as_refs(value):
    return [as_ref(v) for v in (value if isinstance(value, list) else [value]) if as_ref(v) is not None]


class AutomationHooks(AliasHooks):
    """Parents may name events by real or temporary id; `children` is derived from parents."""

    def prepare(self, resource, doc, write):
        super().prepare(resource, doc, write)
        events = doc.get("events") or []
        by_ref = {str(e["id"]): e for e in events if e.get("id") is not None}
        for ref, event in by_ref.items():
            for child in event.get("children") or []:
                if child in by_ref and not by_ref[child].get("parent"):
                    by_ref[child]["parent"] = ref
        sent = write.payload.get("events")
        for index, raw in enumerate(sent if isinstance(sent, list) else []):
            parent = as_ref(raw.get("parent")) if isinstance(raw, dict) else None
            if parent is not None and parent not in by_ref:
                write.errors[f"events[{index}][parent]"] = [f"No event '{parent}' in this automation."]
        for event in events:
            event.pop("children", None)

    def link(self, resource, doc, new_ids):
        for event in doc.get("events") or []:
            ref = event.get("parent")
            if ref is not None:
                event["parent"] = new_ids.get(("events", str(ref)), int(ref) if str(ref).isdigit() else ref)

    def present(self, resource, doc, out, ctx):
        events = out["events"]
        by_id = {e["id"]: e for e in doc.get("events") or []}
        for event in events:
            parent = by_id.get(event.get("parent"))
            event["parent"] = {k: parent.get(k) for k in LINK_KEYS} if parent else None
            event["children"] = [{k: c.get(k) for k in LINK_KEYS} for c in doc.get("events") or []
                                 if c.get("parent") == event["id"]]
        for source, kind in (("lists", "segment"), ("forms", "form")):
            found = referenced(kind, out.get(source) or [], ctx)
            out[source] = [{"id": i, "name": found[i].get("name")} for i in out.get(source) or [] if i in found]
