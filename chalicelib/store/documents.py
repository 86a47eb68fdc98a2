"""The document of an entities item, as stored (docs/storage.md "Compressed documents"): its JSON in
`doc`, or zlib-compressed in `z` when that is longer than COMPRESS_ABOVE and compressing makes it
smaller; the revision (`rev`) and feed (`feed`) attributes read back into `_rev` and `_feed`.

A document is bounded (docs/security.md "Sizes are bounded"): its JSON at `DOCUMENT_JSON_MAX_BYTES`, and what
its item stores at `DOCUMENT_STORED_MAX_BYTES`, below DynamoDB's 400 KB item with room for the keys and the
other attributes. A larger one is `TooLarge` before any call, so nothing of its write is made.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from chalicelib import config
from chalicelib.store.common import FEED, INTERNAL, Document, TooLarge
from chalicelib.store.keys import logical

if TYPE_CHECKING:  # the in-memory store checks sizes here too, without loading PynamoDB
    from chalicelib.store.models import Entity

# Documents whose JSON is longer are stored compressed (docs/storage.md "Compressed documents"): below
# it zlib saves a third at most and never a unit (the item stays under 1 KB), the text stays greppable.
COMPRESS_ABOVE = 400
COMPRESS_LEVEL = 6  # zlib's default: level 9 saves ~1 % more for twice the CPU


class Stored(NamedTuple):
    """An entities item as a raw read answers it (DynamoDB JSON, `stored`): what a document needs of it."""

    id: int
    doc: str | None
    z: bytes | None
    rev: int | None
    feed: str | None


def stored_item(raw: Mapping[str, Any]) -> Stored:
    """The item of a raw answer's DynamoDB JSON (binary values as bytes, as botocore gives them)."""
    return Stored(
        int(raw["id"]["N"]),
        raw["doc"]["S"] if "doc" in raw else None,
        raw["z"]["B"] if "z" in raw else None,
        int(raw["rev"]["N"]) if "rev" in raw else None,
        raw["feed"]["S"] if "feed" in raw else None,
    )


def text(item: Entity | Stored) -> str:
    """The JSON of an item's document, whichever way it is stored: `z` (compressed) or `doc` (plain,
    and every item written before documents were compressed)."""
    return zlib.decompress(item.z).decode() if item.z is not None else str(item.doc)


def document(item: Entity | Stored) -> Document:
    """The document of an item, with its revision and feed (kept when it is written back)."""
    doc: Document = json.loads(text(item))
    if item.rev is not None:
        doc["_rev"] = int(item.rev)
    if item.feed:
        doc[FEED] = logical(item.feed)
    return doc


def stored(doc: Mapping[str, Any]) -> str:
    """A document's JSON without its internal keys (`_rev`, `_feed`: the item's own attributes)."""
    return json.dumps({k: v for k, v in doc.items() if k not in INTERNAL})


def packed(doc: Mapping[str, Any]) -> str | bytes:
    """A document as its item stores it: its JSON over COMPRESS_ABOVE bytes compressed (`z`, when that
    is smaller), else its JSON (`doc`). Write units are per 1 KB of item and a typical contact's 1,045
    bytes compress to ~465: one unit instead of two (four in a transaction)."""
    json_text = stored(doc)
    plain = json_text.encode()
    if len(plain) > config.active().DOCUMENT_JSON_MAX_BYTES:
        raise TooLarge(len(plain), config.active().DOCUMENT_JSON_MAX_BYTES, "as JSON")
    if len(plain) <= COMPRESS_ABOVE:
        return json_text
    compressed = zlib.compress(plain, COMPRESS_LEVEL)
    packed_doc = compressed if len(compressed) < len(plain) else json_text
    if len(packed_doc) > config.active().DOCUMENT_STORED_MAX_BYTES:
        raise TooLarge(len(packed_doc), config.active().DOCUMENT_STORED_MAX_BYTES, "compressed")
    return packed_doc
