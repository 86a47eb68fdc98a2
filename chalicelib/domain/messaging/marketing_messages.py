"""Marketing messages (Mautic's ChannelBundle `Message`): one message sent through the channel a
contact prefers, each channel entry naming the content of that channel (`channelId`: an email, a
text message, a web notification or a tweet) and whether it is enabled.

Clients write `channels` as an object keyed by channel (`{"email": {"channelId": 3, "isEnabled":
1}}`, the api-library's shape) or as a list of entries naming their `channel`. A create saves the
channels it names; a PUT also disables the stored ones it does not name (Mautic's
MessageApiController fills its configured channels so); a PATCH changes only the channels it names.
A `channelId` is any positive id, as Mautic's integer column takes it: content that does not exist
shows no `channelName` and is never sent. Entries keep their id across edits (ids from the
`messagechannel` counter, taken once the write is valid). The response shows `channels` as a list
of the saved entries, in channel order, with Mautic's list properties: `id`, `channel`, `channelId`,
`channelName` (the referenced item's name, None when the caller may not view it) and `isEnabled`;
`properties` are stored, not shown, as in Mautic (`MessageApiControllerTest`).
"""

from collections.abc import Iterable, Sequence

from chalicelib.domain.kernel import access, batching, references, registry
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.resources import Hooks, Write
from chalicelib.domain.kernel.types import JSON, Doc

CHANNELS = ("email", "sms", "notification", "tweet")  # channel name, also the kind of its content
ENTRY_KEYS = ("channelId", "isEnabled", "properties")


def _entry(channel: str, value: JSON) -> Doc:
    if not isinstance(value, dict):
        raise a.Invalid(f"The entry of channel '{channel}' should be an object.")
    named = a.as_string(value.get("channel") or channel)
    if named not in CHANNELS:
        raise a.Invalid(f"'{named}' is not one of: " + ", ".join(CHANNELS) + ".")
    entry: Doc = {"channel": named}
    if "channelId" in value:
        raw = value["channelId"]
        entry["channelId"] = None if raw in (None, "", 0, "0") else a.as_id(raw)
    if "isEnabled" in value:
        entry["isEnabled"] = a.as_bool(value["isEnabled"])
    if "properties" in value:
        entry["properties"] = a.as_object(value["properties"] if value["properties"] is not None else {})
    return entry


def as_channels(value: JSON) -> list[Doc]:
    """The channel entries a payload gives (only the keys it names), one per channel."""
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, list):
        pairs = [(item.get("channel") if isinstance(item, dict) else None, item) for item in value]
    else:
        raise a.Invalid("This value should be an object keyed by channel.")
    entries: dict[str, Doc] = {}
    for channel, item in pairs:
        entry = _entry(str(channel or ""), item)
        entries[entry["channel"]] = entry
    return [entries[c] for c in CHANNELS if c in entries]


def _merged(given: Iterable[Doc], existing: Iterable[Doc] | None, fill: bool) -> list[Doc]:
    """Entries after a write: the stored ones updated by those given; with `fill` (a PUT), the stored
    ones it does not name disabled."""
    stored = {e["channel"]: e for e in existing or []}
    named = {e["channel"]: e for e in given}
    out = []
    for channel in CHANNELS:
        if channel not in named and channel not in stored:
            continue
        base = dict(
            stored.get(channel)
            or {"id": None, "channel": channel, "channelId": None, "isEnabled": False, "properties": {}}
        )
        if fill and channel not in named:
            base.update(channelId=None, isEnabled=False, properties={})
        base.update(named.get(channel, {}))
        out.append(base)
    return out


class MarketingMessageHooks(Hooks):
    """Channel entries: merged, numbered, shown as a list with the names of the content they name."""

    def prepare(self, doc: Doc, write: Write) -> None:
        """Merge the given entries into the stored ones."""
        if "channels" in write.errors:
            return
        given = doc.get("channels") if "channels" in write.payload else []
        doc["channels"] = _merged(given or [], (write.existing or {}).get("channels"), write.mode == "put")

    def finalize(self, doc: Doc, write: Write) -> None:
        """Number the new entries (ids from the `messagechannel` counter), once the write is valid."""
        new = [entry for entry in doc["channels"] if entry.get("id") is None]
        for entry, entry_id in zip(new, batching.allocate_ids("messagechannel", len(new)) if new else [], strict=True):
            entry["id"] = entry_id

    def prefetch(self, docs: Sequence[Doc], ctx: Context) -> None:
        """The content the entries of a page name, read in one go for `present`."""
        wanted: dict[str, list[int]] = {}
        for doc in docs:
            for entry in doc.get("channels") or []:
                if entry.get("channelId") is not None:
                    wanted.setdefault(entry["channel"], []).append(entry["channelId"])
        if wanted:
            references.referenced_many(wanted, ctx)

    def present(self, doc: Doc, out: Doc, ctx: Context) -> None:
        """`channels` as a list, with the name of the content each names."""
        if "channels" not in out:
            return
        shown: list[Doc] = []
        for entry in doc.get("channels") or []:
            content = (
                references.referenced(entry["channel"], [entry["channelId"]], ctx).get(entry["channelId"])
                if entry.get("channelId") is not None
                else None
            )
            shown.append(
                {
                    "id": entry.get("id"),
                    "channel": entry["channel"],
                    "channelId": entry.get("channelId"),
                    "channelName": _name(entry["channel"], content, ctx),
                    "isEnabled": bool(entry.get("isEnabled")),
                }
            )
        out["channels"] = shown


def _name(channel: str, content: Doc | None, ctx: Context) -> str | None:
    """The content's name, shown only to a caller who may view it (as a reference summary)."""
    if content is None or not access.allowed(ctx, registry.resource(channel), Action.VIEW, content):
        return None
    return content.get("name")


def enabled_channels(message: Doc) -> list[tuple[str, int]]:
    """(channel, content id) of the message's enabled entries naming content, in channel order."""
    entries = {e["channel"]: e for e in message.get("channels") or []}
    return [
        (channel, entries[channel]["channelId"])
        for channel in CHANNELS
        if channel in entries and entries[channel].get("isEnabled") and entries[channel].get("channelId")
    ]
