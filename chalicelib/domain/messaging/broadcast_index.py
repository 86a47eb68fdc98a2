"""Which messages the broadcast job looks at: `broadcasts#<channel>` / <message id>, one small item per
`list` email or text message that names segments, written in the message's own transaction (its
hooks' `consequences`), so the job reads one short partition per channel instead of every message
document (domain/messaging/broadcasts.py)."""

from chalicelib.domain.kernel.types import Doc
from chalicelib.store.port import Derived

TYPE_FIELD = {"email": "emailType", "sms": "smsType"}  # Mautic's `list` messages are the broadcasts
KEPT = ("lists", "isPublished", "publishUp", "publishDown")


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
