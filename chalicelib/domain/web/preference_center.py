"""The unsubscribe page of an email (`/email/unsubscribe/<hash>`, EmailBundle's PublicController::
unsubscribeAction) and the preference centre it may show.

An email naming a published `preferenceCenter` page (a page with `isPreferenceCenter`) shows that page to
the recipient, its Mautic tokens replaced by the parts of Mautic's contact-preferences form
(`lead_contact_frequency_rules`): `{segmentlist}` the public segments (`isPreferenceCenter` on the
segment, published), `{categorylist}` the `global` categories, `{preferredchannel}`,
`{channelfrequency}` (each channel subscribed or not, and how often), `{saveprefsbutton}`,
`{successmessage}` (after a save), `{leadidentifier}` (the contact's name, else company, email or
address); `{langbar}` and `{sharebuttons}` go. The whole page is the form,
posted back to the same address: the choice is stored on the contact (segment memberships by hand,
category subscriptions, do-not-contact per channel, frequency rules and preferred channel). Without a
preference centre the visit unsubscribes the recipient from email, as before, and the page shows
the email's published `unsubscribeForm` under the message.
"""

import copy
import re
from collections.abc import Mapping
from html import escape

from chalicelib.domain.contacts import contact_actions, contact_categories, frequency_rules
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.contacts.declarations import CONTACT
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import service, timeline
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound, invalid
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc, Events
from chalicelib.domain.messaging import email_messages, tracking
from chalicelib.domain.messaging.records import SendRecord
from chalicelib.domain.segments import membership
from chalicelib.domain.web import form_html, pages
from chalicelib.store import port as store

FORM = "lead_contact_frequency_rules"  # Mautic's form name, so its field names carry over
UNSUBSCRIBED = 1  # do-not-contact reason: the contact unsubscribed
BOUNCED = 2  # kept when the contact ticks the channel again: the address does not take mail
SAVED = "Your preferences have been saved."
SAVE_BUTTON = (
    f'<button type="submit" name="{FORM}[buttons][save]" value="1" class="pref-saveprefs">Save preferences</button>'
)


def _centre(email: Doc | None, now: str) -> Doc | None:
    """The email's preference centre page, when it names a published one."""
    page_id = (email or {}).get("preferenceCenter")
    page = store.get("page", page_id) if page_id else None
    return page if page and page.get("isPreferenceCenter") and is_published(page, now) else None


def _recipient(stat: SendRecord) -> tuple[Doc | None, Doc | None]:
    """(email, contact) of a send record, each None when gone."""
    email = store.get("email", stat["email"]["id"])
    lead = (stat.get("lead") or {}).get("id")
    return email, (store.get(CONTACT.kind, lead) if lead else None)


def visit(tracking_hash: str, ctx: Context) -> str:
    """The unsubscribe link (GET): the preference centre, else the unsubscription and its page."""
    stat = tracking.stat_of(tracking_hash)
    email, contact = _recipient(stat)
    page = _centre(email, ctx.now)
    if page is not None and contact is not None:
        return _render(page, contact, tracking_hash, False, ctx)
    tracking.unsubscribe(tracking_hash, ctx)
    return _unsubscribed_page(stat.get("emailAddress"), email, ctx)


def save(tracking_hash: str, form: JSON, ctx: Context) -> str:
    """The preference centre posted back: store the choice and show the page again, saved."""
    stat = tracking.stat_of(tracking_hash)
    email, contact = _recipient(stat)
    page = _centre(email, ctx.now)
    if page is None or contact is None or not isinstance(form, Mapping):
        raise NotFound("This email has no preference centre.")
    choice = _choice(form)

    def write() -> Doc:
        existing = service.load(CONTACT, contact["id"])
        doc = copy.deepcopy(existing)
        return service.save_change(CONTACT, existing, doc, ctx, _apply(doc, choice, ctx), stamp=False)

    return _render(page, service.retrying(write, ctx), tracking_hash, True, ctx)


def _unsubscribed_page(address: str | None, email: Doc | None, ctx: Context) -> str:
    """Mautic's message page, with the email's published unsubscribe form under the message."""
    form_id = (email or {}).get("unsubscribeForm")
    form = store.get("form", form_id) if form_id else None
    content = ""
    if form is not None and is_published(form, ctx.now):
        content = f'<div class="mautic-unsubscribeform">{form_html.render(form, email_messages.base_url(ctx))}</div>'
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Unsubscribed</title></head><body>'
        f"<p>{escape(address or 'You')} will no longer receive these emails.</p>{content}</body></html>"
    )


# --- the choice posted ------------------------------------------------------------------------------


def _ids(value: JSON, name: str) -> set[int]:
    try:
        return set(a.id_list(value or []))
    except a.Invalid:
        raise invalid(f"{FORM}[{name}]", "This value should be a list of ids.") from None


def _choice(form: Mapping[str, JSON]) -> Doc:
    """The posted form as {shown, segments, categories, channels, preferred, numbers}: `shown` the
    parts the page rendered (their hidden `shown[]` markers: an unticked box posts nothing, so only a
    part shown may be read as all unticked); 400 naming a bad field."""
    channels = form.get("lead_channels") or {}
    if not isinstance(channels, Mapping):
        raise invalid(f"{FORM}[lead_channels]", "This value should be an object.")
    preferred = channels.get("preferred_channel") or frequency_rules.CHANNELS[0]
    if preferred not in frequency_rules.CHANNELS:
        raise invalid(f"{FORM}[lead_channels]", f"The preferred channel should be one of {frequency_rules.CHANNELS}.")
    numbers = {
        channel: (channels.get(f"frequency_number_{channel}"), channels.get(f"frequency_time_{channel}") or None)
        for channel in frequency_rules.CHANNELS
    }
    return {
        "shown": {str(part) for part in a.as_list(form.get("shown") or [])},
        "segments": _ids(form.get("lead_lists"), "lead_lists"),
        "categories": _ids(form.get("global_categories"), "global_categories"),
        "channels": {str(c) for c in a.as_list(channels.get("subscribed_channels") or [])},
        "preferred": preferred,
        "numbers": numbers,
    }


def _apply(doc: Contact, choice: Doc, ctx: Context) -> Events:
    """Put the choice of each part the page showed on the contact document: its events."""
    shown, events = choice["shown"], []
    if "segmentlist" in shown:
        events += _segments(doc, choice["segments"], ctx)
    if "categorylist" in shown:
        events += contact_categories.apply(doc, choice["categories"], _categories(ctx), ctx.now)
    if "channelfrequency" in shown:
        for channel in frequency_rules.CHANNELS:
            events += _channel(doc, channel, channel in choice["channels"], ctx)
    if shown & {"channelfrequency", "preferredchannel"}:
        doc["frequencyRules"] = frequency_rules.rules(doc.get("frequencyRules") or [], _rules(doc, choice), ctx.now)
        frequency_rules.give_ids(doc)
    return events


def _segments(doc: Contact, chosen: set[int], ctx: Context) -> Events:
    """Join or leave the public segments by hand, as ticked."""
    events: Events = []
    for segment in _public_segments(ctx):
        key, wanted = str(segment["id"]), segment["id"] in chosen
        if membership.is_member((doc.get("segments") or {}).get(key)) != wanted:
            membership.mark(doc, segment["id"], wanted, ctx.now)
            verb = "Added to" if wanted else "Removed from"
            details = {"segmentId": segment["id"], "preferenceCenter": True}
            events.append(timeline.event("lead.preferences", f"{verb} segment {segment.get('name')}", details))
    return events


def _rules(doc: Contact, choice: Doc) -> dict[str, Doc]:
    """The frequency rules wanted: the numbers posted (else kept), the preferred channel posted (else
    kept), the pause dates kept; 400 naming a bad number or period."""
    stored = {rule.get("channel"): rule for rule in doc.get("frequencyRules") or []}
    preferred = choice["preferred"] if "preferredchannel" in choice["shown"] else _preferred(doc)
    wanted = {}
    for channel in frequency_rules.CHANNELS:
        rule = stored.get(channel) or {}
        number, time = (rule.get("frequencyNumber"), rule.get("frequencyTime"))
        if "channelfrequency" in choice["shown"]:
            number, time = choice["numbers"][channel]
        wanted[channel] = {
            "frequency_number": number,
            "frequency_time": time,
            "pause_from_date": rule.get("pauseFromDate"),
            "pause_to_date": rule.get("pauseToDate"),
            "preferred_channel": channel == preferred,
        }
    try:
        return frequency_rules.requested(wanted)
    except a.Invalid as error:
        raise invalid(f"{FORM}[lead_channels]", str(error)) from None


def _channel(doc: Contact, channel: str, subscribed: bool, ctx: Context) -> Events:
    """A channel ticked (contactable again, unless its address bounced) or not (unsubscribed)."""
    entry = next((e for e in doc.get("doNotContact") or [] if e.get("channel") == channel), None)
    if subscribed and entry is not None and entry.get("reason") != BOUNCED:
        event = contact_actions.clear_dnc(doc, channel)
        return [event] if event else []
    if not subscribed and entry is None:
        return [contact_actions.set_dnc(doc, channel, UNSUBSCRIBED, "User unsubscribed.", None, ctx)]
    return []


# --- the page -------------------------------------------------------------------------------------


def _public_segments(ctx: Context) -> list[Doc]:
    """The segments a contact may choose: published, `isPreferenceCenter` (Mautic's public segments)."""
    found = membership.segments_by_id(ctx).values()
    return sorted((s for s in found if s.get("isPreferenceCenter") and is_published(s, ctx.now)), key=_by_id)


def _categories(ctx: Context) -> list[Doc]:
    """The categories a contact may choose: the published `global` ones (Mautic's `global_categories`)."""
    found = store.iterate("category")
    return sorted((c for c in found if c.get("bundle") == "global" and is_published(c, ctx.now)), key=_by_id)


def _by_id(doc: Doc) -> int:
    return int(doc["id"])


def _shown(part: str) -> str:
    """The hidden marker of a part of the form the page shows (its choice is read on save)."""
    return f'<input type="hidden" name="{FORM}[shown][]" value="{part}">'


def _box(name: str, value: JSON, checked: bool, label: JSON) -> str:
    mark = " checked" if checked else ""
    return (
        f'<label><input type="checkbox" name="{FORM}[{name}][]" value="{escape(str(value))}"{mark}> '
        f"{escape(str(label or ''))}</label>"
    )


def _segment_list(contact: Contact, ctx: Context) -> str:
    entries = contact.get("segments") or {}
    boxes = [
        _box(
            "lead_lists", s["id"], membership.is_member(entries.get(str(s["id"]))), s.get("publicName") or s.get("name")
        )
        for s in _public_segments(ctx)
    ]
    return f'<div class="pref-segmentlist">{_shown("segmentlist")}{"".join(boxes)}</div>'


def _category_list(contact: Contact, ctx: Context) -> str:
    boxes = [
        _box("global_categories", c["id"], not contact_categories.unsubscribed(contact, c["id"]), c.get("title"))
        for c in _categories(ctx)
    ]
    return f'<div class="pref-categorylist">{_shown("categorylist")}{"".join(boxes)}</div>'


def _preferred(contact: Contact) -> str:
    rules = contact.get("frequencyRules") or []
    flagged = [r["channel"] for r in rules if r.get("preferredChannel")]
    return flagged[0] if flagged else frequency_rules.CHANNELS[0]


def _preferred_channel(contact: Contact) -> str:
    chosen = _preferred(contact)
    options = "".join(
        f'<option value="{c}"{" selected" if c == chosen else ""}>{c}</option>' for c in frequency_rules.CHANNELS
    )
    select = f'<select name="{FORM}[lead_channels][preferred_channel]" class="pref-preferredchannel">{options}</select>'
    return _shown("preferredchannel") + select


def _frequency(contact: Contact, channel: str) -> str:
    rule = next((r for r in contact.get("frequencyRules") or [] if r.get("channel") == channel), {})
    blocked = any(e.get("channel") == channel for e in contact.get("doNotContact") or [])
    times = "".join(
        f'<option value="{t}"{" selected" if rule.get("frequencyTime") == t else ""}>{t.lower()}</option>'
        for t in frequency_rules.TIMES
    )
    number = "" if rule.get("frequencyNumber") is None else rule["frequencyNumber"]
    return (
        f'<div class="pref-channel">{_box("lead_channels][subscribed_channels", channel, not blocked, channel)} '
        f'<input type="number" min="1" name="{FORM}[lead_channels][frequency_number_{channel}]" value="{number}"> '
        f'times each <select name="{FORM}[lead_channels][frequency_time_{channel}]"><option value=""></option>'
        f"{times}</select></div>"
    )


def _identifier(contact: Contact) -> str:
    """Mautic's `Lead::getPrimaryIdentifier`: the name, else the company, else the email, else an address."""
    values = contact.get("values") or {}
    name = " ".join(str(values[k]) for k in ("firstname", "lastname") if values.get(k))
    addresses = [entry.get("ipAddress") for entry in contact.get("ipAddresses") or []]
    return name or str(values.get("company") or values.get("email") or next(iter(addresses), None) or "Anonymous")


def _render(page: Doc, contact: Doc, tracking_hash: str, saved: bool, ctx: Context) -> str:
    """The preference centre page for the contact, its tokens replaced, the page the form."""
    parts = {
        "segmentlist": lambda: _segment_list(contact, ctx),
        "categorylist": lambda: _category_list(contact, ctx),
        "preferredchannel": lambda: _preferred_channel(contact),
        "channelfrequency": lambda: (
            _shown("channelfrequency") + "".join(_frequency(contact, c) for c in frequency_rules.CHANNELS)
        ),
        "saveprefsbutton": lambda: SAVE_BUTTON,
        "successmessage": lambda: f'<div class="pref-successmessage">{SAVED}</div>' if saved else "",
        "leadidentifier": lambda: escape(_identifier(contact)),
        "langbar": lambda: "",
        "sharebuttons": lambda: "",
    }
    html = pages.render(page, contact, ctx)
    html = re.sub(r"{(\w+)}", lambda m: parts[m.group(1)]() if m.group(1) in parts else m.group(0), html)
    action = f"{email_messages.base_url(ctx)}/email/unsubscribe/{escape(tracking_hash)}"
    start, end = f'<form method="post" action="{action}" class="pref-form">', "</form>"
    opened = re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + start, html, count=1, flags=re.IGNORECASE)
    if opened == html:
        return start + html + end
    return re.sub(r"(</body>)", lambda m: end + m.group(1), opened, count=1, flags=re.IGNORECASE)
