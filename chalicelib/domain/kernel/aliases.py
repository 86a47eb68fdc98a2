"""Aliases: cleaned from what the client sent, or generated from a name, unique per kind. A taken
alias is made unique, never refused: Mautic's models append 1, 2... (`alias`, `alias1`, `alias2`),
for the values a batch of creates gives its earlier items too (issue 34)."""

import re

from chalicelib.domain.kernel import batching
from chalicelib.domain.kernel.resources import Hooks, Resource, Write
from chalicelib.domain.kernel.types import JSON, Doc


def clean(text: str | None, separator: str = "-") -> str:
    """Lower-case letters and digits joined by `separator`."""
    words = re.findall(r"[a-z0-9]+", (text or "").lower())
    return separator.join(words)


def unique_alias(kind: str, field: str, wanted: str, own_id: JSON) -> str:
    """`wanted`, or `wanted1`, `wanted2`... (Mautic's `checkUniqueAlias` loop): the first not held by
    another entity of the kind. The look-up is the batch's (`batching.lookup`), which first stores
    the documents a batch of creates deferred holding that value, so a later item sees them."""
    candidate, number = wanted, 0
    while True:
        holder = batching.lookup(kind, field, candidate)
        if holder is None or holder == own_id:
            return candidate
        number += 1
        candidate = f"{wanted}{number}"


def assign(resource: Resource, doc: Doc, source: str, field: str = "alias", separator: str = "-") -> None:
    """Fill doc[field] from itself or doc[source], unique among the resource's documents."""
    base = clean(doc.get(field) or doc.get(source), separator) or resource.kind
    doc[field] = unique_alias(resource.kind, field, base, doc.get("id"))


class AliasHooks(Hooks):
    """Resources whose `alias` is generated from another attribute and unique per kind."""

    def __init__(self, source: str = "name", separator: str = "-") -> None:
        self.source = source
        self.separator = separator

    def prepare(self, doc: Doc, write: Write) -> None:
        """Keep the stored alias when the edit leaves it blank; make it unique."""
        if write.existing is not None and not doc.get("alias"):
            doc["alias"] = write.existing.get("alias")
        assign(self.resource, doc, self.source, separator=self.separator)

    def uniques(self, doc: Doc) -> dict[str, JSON]:
        """The alias is its unique value."""
        return {"alias": doc.get("alias")}
