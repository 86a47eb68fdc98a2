"""A contact's data export (data portability, GDPR art. 15 and 20): everything the service holds about one
contact, as one JSON document. It reads the contact's own partitions (its document, its timeline, its
notes index) and fetches by key what their events name (send records, submissions, companies, notes),
never a whole table, so its cost grows with that contact's data only (docs/privacy.md, "Export")."""

from collections.abc import Iterable, Sequence

from chalicelib.domain.automations import journey_items
from chalicelib.domain.contacts import contact_categories, contact_timeline, devices, notes
from chalicelib.domain.contacts.declarations import COMPANY, CONTACT, NOTE
from chalicelib.domain.kernel import redaction, service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.present import present, present_one
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import email_stats
from chalicelib.domain.points import group_scores
from chalicelib.domain.segments import membership
from chalicelib.domain.web import form_uploads, submissions
from chalicelib.store import port as store

FORMAT = "mautic-contact-export/1"
AUTOMATION_EVENTS = ("campaign.event", "campaign.event.scheduled", "campaign_membership")
# Kept out of the export: keys that would let its reader act as the contact (open its web view,
# unsubscribe it, take its visitor token), as the stats API leaves them out.
SECRET_ENDINGS = ("hash", "Hash", "secret", "token", "password")


def export(contact_id: JSON, ctx: Context) -> Doc:
    """Everything held about the contact: its fields and the data of every capability about it."""
    doc: Doc = service.load(CONTACT, contact_id, ctx)
    events = contact_timeline.events_of(doc["id"])
    shown = present_one(CONTACT, doc, ctx)
    return {
        "format": FORMAT,
        "exportedAt": ctx.now,
        "contact": shown,
        "fields": _fields(doc),
        "companies": _companies(doc),
        "segments": list(membership.contact_segments(doc, ctx)["lists"].values()),
        "categories": list(contact_categories.view(doc, ctx)["categories"].values()),
        "automations": _automations(doc, events, ctx),
        "points": {"points": shown.get("points"), "groupScores": _group_scores(doc, ctx)},
        "stage": shown.get("stage"),
        "notes": _notes(doc["id"], ctx),
        "devices": [
            dict({key: entry.get(key) for key in devices.KEYS}, lead=doc["id"]) for entry in _list(doc, "devices")
        ],
        "doNotContact": _list(doc, "doNotContact"),
        "utmTags": _list(doc, "utmtags"),
        "ipAddresses": _list(doc, "ipAddresses"),
        "tags": shown.get("tags"),
        "emails": _emails(events),
        "pageHits": _of_type(events, "page.hit"),
        "assetDownloads": _of_type(events, "asset.download"),
        "formSubmissions": _submissions(events, ctx),
        "textMessages": _of_type(events, "sms.sent", "sms.failed", "sms_reply"),
        "timeline": [_clean(e) for e in events],
    }


def _list(doc: Doc, key: str) -> list[Doc]:
    """A list the contact document holds (empty when it has none)."""
    return list(doc.get(key) or [])


def _fields(doc: Doc) -> Doc:
    """Every field value of the contact, custom fields included, by alias."""
    return dict(doc.get("values") or {})


def _companies(doc: Doc) -> list[Doc]:
    """The contact's companies (their fields) with the link's primary flag and date: 1 BatchGetItem."""
    links = _list(doc, "companies")
    found = store.batch_get(COMPANY.kind, [link["id"] for link in links])
    return [
        dict(
            found[link["id"]].get("values") or {},
            id=link["id"],
            isPrimary=bool(link.get("isPrimary")),
            dateAssociated=link.get("dateAdded"),
        )
        for link in links
        if link["id"] in found
    ]


def _automations(doc: Doc, events: Sequence[Doc], ctx: Context) -> Doc:
    """Current memberships, every journey the contact document keeps (exited ones too, with their logs),
    and the automation events of its timeline."""
    return {
        "memberships": list(journey_items.contact_automations(doc, ctx)["automations"].values()),
        "journeys": dict(doc.get("automations") or {}),
        "events": _of_type(events, *AUTOMATION_EVENTS),
    }


def _group_scores(doc: Doc, ctx: Context) -> list[Doc]:
    """The contact's score in each point group it has one in."""
    rows = (group_scores.shown(doc, group) for _, group in sorted(group_scores.groups(ctx).items()))
    return [row for row in rows if row is not None]


def _notes(contact_id: int, ctx: Context) -> list[Doc]:
    """The contact's notes: 1 Query of its notes index + 1 BatchGetItem per 100 notes."""
    ids = [entry["id"] for entry in store.iterate(notes.index_kind(contact_id))]
    found = store.batch_get(NOTE.kind, ids)
    return [
        {k: v for k, v in note.items() if k != "lead"}
        for note in present(NOTE, [found[i] for i in ids if i in found], ctx)
    ]


def _of_type(events: Iterable[Doc], *types: str) -> list[Doc]:
    """The events of those types, as the timeline shows them."""
    return [_clean(e) for e in events if e["event"] in types]


def _clean(value: JSON) -> JSON:
    """`value` without the keys that would act as the contact (tracking hashes, tokens)."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if not str(k).endswith(SECRET_ENDINGS)}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _emails(events: Sequence[Doc]) -> list[Doc]:
    """Each email sent to the contact: its send record (1 BatchGetItem per 100 sends), its opens (count,
    first and last, the address of the last) and its clicks (the `page.hit` events naming the send)."""
    sent = [e for e in events if e["event"] == "email.sent"]
    keys = [(email_stats.kind("email", e["details"]["emailId"]), e["details"]["statId"]) for e in sent]
    records = store.batch_get_keys(keys)
    rows = []
    for key, event in zip(keys, sent, strict=True):
        stat_id = event["details"]["statId"]
        record = records.get((key[0], int(stat_id)), {})
        rows.append(
            {
                "emailId": event["details"]["emailId"],
                "statId": stat_id,
                "subject": event["details"].get("subject"),
                "dateSent": record.get("dateSent") or event["timestamp"],
                "record": _clean(_record(record)),
                "opens": _of_stat(events, "email.read", stat_id),
                "clicks": _of_stat(events, "page.hit", stat_id),
            }
        )
    return rows


def _record(record: Doc) -> Doc:
    """A send record without its tracking hash, nor any value holding it (the web view and unsubscribe
    links in `tokens`, the `X-Mautic-Tracking` and `List-Unsubscribe` headers)."""
    kept = redaction.without({k: v for k, v in record.items() if not k.startswith("_")}, record.get("trackingHash"))
    return kept if isinstance(kept, dict) else {}


def _of_stat(events: Iterable[Doc], event_type: str, stat_id: JSON) -> list[Doc]:
    """The events of a type that name one send record."""
    return [_clean(e) for e in events if e["event"] == event_type and e["details"].get("statId") == stat_id]


def _submissions(events: Sequence[Doc], ctx: Context) -> list[Doc]:
    """The contact's form submissions as stored (1 BatchGetItem per 100), else as their event recorded
    them; the files uploaded with each as links to their download (`files`: field, name, link)."""
    submitted = [e for e in events if e["event"] == "form.submitted"]
    keys = [(submissions.kind(e["details"]["form"]["id"]), e["details"]["submission"]["id"]) for e in submitted]
    found = store.batch_get_keys(keys)
    rows = []
    for (kind, sub_id), event in zip(keys, submitted, strict=True):
        stored = found.get((kind, int(sub_id)))
        row = {k: v for k, v in (stored or event["details"]["submission"]).items() if not k.startswith("_")}
        row["files"] = form_uploads.links(ctx.base_url, stored) if stored else []
        rows.append(dict(row, form=event["details"]["form"]))
    return rows
