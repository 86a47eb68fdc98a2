"""Which messages the broadcast job looks at: `broadcasts#<channel>` / <message id>, one small item per
`list` email or text message that names segments, written in the message's own transaction (its
hooks' `consequences`), so the job reads one short partition per channel instead of every message
document (domain/messaging/broadcasts.py)."""

from chalicelib.domain.kernel.types import Doc
from chalicelib.store import port as store
from chalicelib.store.port import Derived

TYPE_FIELD = {"email": "emailType", "sms": "smsType"}  # Mautic's `list` messages are the broadcasts
KEPT = ("lists", "isPublished", "publishUp", "publishDown")
BACKFILLED = "broadcastindex#1"  # the marker of the one-time index of messages saved before it existed


def kind(channel: str) -> str:
    """The index of a channel's broadcast messages."""
    return f"broadcasts#{channel}"


def state_kind(channel: str) -> str:
    """The cursors of a channel's broadcasts (domain/messaging/broadcasts.py): `broadcast#<channel>` / message id."""
    return f"broadcast#{channel}"


def is_broadcast(channel: str, doc: Doc | None) -> bool:
    """A `list` message with segments: what Mautic's broadcast command sends."""
    return bool(doc and doc.get(TYPE_FIELD[channel]) == "list" and doc.get("lists"))


def entry(channel: str, doc: Doc | None, existing: Doc | None) -> list[Derived]:
    """The index item a write of a message puts (a list message with segments) or deletes (any
    other, a delete): none when neither the old nor the new document is a broadcast."""
    if is_broadcast(channel, doc):
        assert doc is not None  # is_broadcast says so
        return [(kind(channel), doc["id"], {"id": doc["id"], **{k: doc.get(k) for k in KEPT}})]
    if is_broadcast(channel, existing):
        assert existing is not None
        return [(kind(channel), existing["id"], None)]
    return []


def backfill() -> None:
    """Hourly, until done once (its marker: 1 GetItem an hour after that): index the `list` messages
    saved before the index existed (1 Query of each message kind, 1 PutItem per broadcast)."""
    if store.marked(BACKFILLED):
        return
    for channel in TYPE_FIELD:
        for doc in list(store.iterate(channel)):  # the kinds are named as the channels: `email`, `sms`
            for kind_, entity_id, item in entry(channel, doc, None):
                if isinstance(item, dict) and store.get(kind_, entity_id) is None:
                    store.put(kind_, item)
    store.claim(BACKFILLED)
