"""The kinds a move-in copies, in dependency order: each reads at the source's path and writes at
ours, with the attributes it leaves out and the references it remaps. Contacts are copied by
`contacts.py` (batches, company links, static segment memberships)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from chalicelib.movein import payloads
from chalicelib.movein.payloads import Doc, Maps, items

COUNTERS = ("readCount", "sentCount", "hits", "uniqueHits", "downloadCount", "uniqueDownloadCount", "revision")


@dataclass(frozen=True)
class Kind:
    """One kind: mapping name, paths (`source` at Mautic, `target` here), JSON keys, what is left out
    (`drop`), references (`refs`, attribute -> kind; one naming this kind is a parent, copied first),
    a natural key matching a document that already exists here (`match`), and a last touch."""

    name: str
    source: str
    target: str
    keys: tuple[str, ...]
    singular: str
    drop: tuple[str, ...] = ()
    refs: Mapping[str, str] = field(default_factory=dict)
    match: str | None = None
    unpublish: bool = False
    finish: Callable[[Doc, Doc, Maps], Doc] | None = None
    skip: Callable[[Doc], str | None] | None = None
    file: bool = False  # a file read from the source's downloadUrl (assets.py)
    children: tuple[str, ...] = ()  # attributes listing children the source's list leaves out (variants)
    edit: str = "PATCH"  # PUT for a kind whose nested items (form fields, events) a PATCH would add again
    linked_fields: bool = False  # fields shown under another, linked once written (links.form_fields)

    def payload(self, doc: Doc, maps: Maps) -> Doc:
        """The payload that creates (or updates) the copy of `doc`."""
        out = payloads.plain(doc, self.drop + COUNTERS, self.refs, maps)
        if self.finish is not None:
            out = self.finish(out, doc, maps)
        if self.unpublish:
            out["isPublished"] = False
        return out

    def parents(self) -> tuple[str, ...]:
        """The attributes that reference documents of this same kind (translations, variants)."""
        return tuple(attribute for attribute, kind in self.refs.items() if kind == self.name)


def _fixed(doc: Doc) -> str | None:
    """A fixed (core) field exists here already: matched by alias, never created."""
    return "a core field" if doc.get("isFixed") else None


def _company(out: Doc, doc: Doc, maps: Maps) -> Doc:
    """A company's payload: its field values at the top level, as Mautic's API takes them."""
    values = payloads.field_values(doc)
    out.pop("fields", None)
    out.pop("score", None)
    return {**values, **out}


def _segment(out: Doc, doc: Doc, maps: Maps) -> Doc:
    """A segment's filters remapped."""
    out["filters"] = payloads.filters(doc.get("filters"), maps)
    return out


def _email(out: Doc, doc: Doc, maps: Maps) -> Doc:
    """A segment email is copied unpublished (publishing may send it); template emails as they are."""
    if doc.get("emailType") == "list":
        out["isPublished"] = False
    return out


def _form(out: Doc, doc: Doc, maps: Maps) -> Doc:
    """A form's fields (new ids) and actions (properties remapped)."""
    left_out = ("id", "formId", "parent", "conditions")  # set once the fields have ids (links.form_fields)
    out["fields"] = [{k: v for k, v in f.items() if k not in left_out} for f in items(doc.get("fields"))]
    out["actions"] = [
        dict(
            {k: v for k, v in a.items() if k not in ("id", "formId")},
            properties=payloads.properties(a.get("properties"), maps),
        )
        for a in items(doc.get("actions"))
    ]
    return out


def _automation(out: Doc, doc: Doc, maps: Maps) -> Doc:
    """An automation's events with temporary ids (`new<source id>`), parents and canvas relinked, and
    properties remapped; copied unpublished (publishing enrolls)."""
    events = []
    for event in items(doc.get("events")):
        parent = event.get("parent")
        parent_id = parent.get("id") if isinstance(parent, dict) else parent
        copy = {k: v for k, v in event.items() if k not in ("campaign", "children", "parent", "contactLog", "changes")}
        copy["id"] = f"new{event['id']}"
        if "properties" in event:
            copy["properties"] = payloads.properties(event["properties"], maps)
        copy["parent"] = f"new{parent_id}" if parent_id else None
        events.append(copy)
    out["events"] = events
    out["canvasSettings"] = _canvas(doc.get("canvasSettings"))
    return out


def _canvas(canvas: Any) -> Any:
    """Canvas nodes and connections naming events by their temporary ids."""
    if not isinstance(canvas, dict):
        return canvas

    def relink(value: Any) -> Any:
        text = str(value)
        return f"new{text}" if text.isdigit() else value

    nodes = [dict(n, id=relink(n.get("id"))) for n in items(canvas.get("nodes"))]
    connections = [
        dict(c, sourceId=relink(c.get("sourceId")), targetId=relink(c.get("targetId")))
        for c in items(canvas.get("connections"))
    ]
    return dict(canvas, nodes=nodes, connections=connections)


def _user(out: Doc, doc: Doc, maps: Maps) -> Doc:
    """A user with a random password nobody knows (Mautic never gives one): invitations.py emails them
    a link to choose one (or an administrator sets it: `python -m chalicelib.cli users password`)."""
    secret = secrets.token_urlsafe(24)
    out["plainPassword"] = {"password": secret, "confirm": secret}
    return out


def _scoring(out: Doc, doc: Doc, maps: Maps) -> Doc:
    """A point action's properties remapped (the email, form, asset or page it scores)."""
    out["properties"] = payloads.properties(doc.get("properties"), maps)
    return out


def _trigger(out: Doc, doc: Doc, maps: Maps) -> Doc:
    """A point trigger's events (new ids, properties remapped); `triggerExistingLeads` off, so that
    publishing it does not fire it for every copied contact at once."""
    out["events"] = [
        dict(
            {k: v for k, v in e.items() if k not in ("id", "trigger")},
            properties=payloads.properties(e.get("properties"), maps),
        )
        for e in items(doc.get("events"))
    ]
    out["triggerExistingLeads"] = False
    return out


def _text_message(out: Doc, doc: Doc, maps: Maps) -> Doc:
    """A segment text message is copied unpublished, as a segment email."""
    if doc.get("smsType") == "list":
        out["isPublished"] = False
    return out


def _channels(out: Doc, doc: Doc, maps: Maps) -> Doc:
    """A marketing message's channels, each naming the copy of its email, text message, notification
    or tweet."""
    out["channels"] = [
        dict(
            {k: v for k, v in c.items() if k not in ("id", "message")},
            channelId=payloads.mapped(c.get("channelId"), maps.get(str(c.get("channel")))),
        )
        for c in items(doc.get("channels"))
    ]
    return out


def _report(out: Doc, doc: Doc, maps: Maps) -> Doc:
    """A report copied unscheduled: a schedule here would email it (set it again when the move is over)."""
    out["isScheduled"] = False
    return out


FIELD_DROP = ("isFixed", "object")
CHILDREN = ("translationChildren", "variantChildren")
KINDS: tuple[Kind, ...] = (
    Kind(
        "contactfield",
        "/fields/contact",
        "/fields/contact",
        ("fields",),
        "field",
        FIELD_DROP,
        match="alias",
        skip=_fixed,
    ),
    Kind(
        "companyfield",
        "/fields/company",
        "/fields/company",
        ("fields",),
        "field",
        FIELD_DROP,
        match="alias",
        skip=_fixed,
    ),
    Kind("category", "/categories", "/categories", ("categories",), "category", match="alias"),
    Kind("tag", "/tags", "/tags", ("tags",), "tag", match="tag"),
    Kind("stage", "/stages", "/stages", ("stages",), "stage", refs={"category": "category"}),
    Kind("pointgroup", "/points/groups", "/points/groups", ("pointGroups",), "pointGroup"),
    Kind("role", "/roles", "/roles", ("roles",), "role", match="name"),
    Kind(
        "user",
        "/users",
        "/users",
        ("users",),
        "user",
        ("lastLogin", "lastActive", "onlineStatus", "password", "preferences"),
        refs={"role": "role"},
        match="username",
        finish=_user,
    ),
    Kind("company", "/companies", "/companies", ("companies",), "company", refs={"owner": "user"}, finish=_company),
    # contacts: contacts.py
    Kind(
        "segment",
        "/segments",
        "/segments",
        ("lists", "segments"),
        "list",
        refs={"category": "category"},
        finish=_segment,
    ),
    Kind("note", "/notes", "/notes", ("notes",), "note", refs={"lead": "contact"}),
    Kind(
        "asset",
        "/assets",
        "/assets",
        ("assets",),
        "asset",
        ("downloadUrl", "size", "mime", "extension", "fileType", "iconClass"),
        refs={"category": "category"},
        file=True,
    ),
    Kind(
        "email",
        "/emails",
        "/emails",
        ("emails",),
        "email",
        ("translationChildren", "variantChildren", "unsubscribeForm", "preferenceCenter", "variantSentCount"),
        refs={
            "category": "category",
            "lists": "segment",
            "assetAttachments": "asset",
            "translationParent": "email",
            "variantParent": "email",
        },
        finish=_email,
        children=CHILDREN,
    ),
    Kind(
        "form",
        "/forms",
        "/forms",
        ("forms",),
        "form",
        ("cachedHtml", "submissionCount"),
        refs={"category": "category"},
        finish=_form,
        edit="PUT",
        linked_fields=True,
    ),
    Kind(
        "page",
        "/pages",
        "/pages",
        ("pages",),
        "page",
        ("translationChildren", "variantChildren", "variantHits"),
        refs={"category": "category", "translationParent": "page", "variantParent": "page"},
        children=CHILDREN,
    ),
    Kind(
        "automation",
        "/campaigns",
        "/automations",
        ("campaigns", "automations"),
        "automation",
        refs={"category": "category", "lists": "segment", "forms": "form"},
        unpublish=True,
        finish=_automation,
        edit="PUT",
    ),
    Kind(
        "sms",
        "/smses",
        "/smses",
        ("smses",),
        "sms",
        ("sentCount",),
        refs={"category": "category", "lists": "segment"},
        finish=_text_message,
    ),
    Kind("notification", "/notifications", "/notifications", ("notifications",), "notification", ("sentCount",)),
    Kind("tweet", "/tweets", "/tweets", ("tweets",), "tweet", ("sentCount",), refs={"category": "category"}),
    Kind(
        "dynamiccontent",
        "/dynamiccontents",
        "/dynamiccontents",
        ("dynamicContents",),
        "dynamicContent",
        ("translationChildren", "variantChildren", "sentCount"),
        refs={"category": "category", "translationParent": "dynamiccontent", "variantParent": "dynamiccontent"},
        children=CHILDREN,
    ),
    Kind("focus", "/focus", "/focus", ("focus",), "focus", ("cache",), refs={"category": "category", "form": "form"}),
    Kind(
        "message", "/messages", "/messages", ("messages",), "message", refs={"category": "category"}, finish=_channels
    ),
    Kind("report", "/reports", "/reports", ("reports",), "report", ("system",), match="name", finish=_report),
    Kind(
        "pointaction",
        "/points",
        "/points",
        ("points",),
        "point",
        refs={"category": "category", "group": "pointgroup"},
        finish=_scoring,
    ),
    # unpublished: a published trigger or webhook would fire for the delta runs that follow
    Kind(
        "pointtrigger",
        "/points/triggers",
        "/points/triggers",
        ("triggers",),
        "trigger",
        refs={"category": "category", "group": "pointgroup"},
        unpublish=True,
        finish=_trigger,
    ),
    Kind("webhook", "/hooks", "/hooks", ("hooks",), "hook", refs={"category": "category"}, unpublish=True),
)
