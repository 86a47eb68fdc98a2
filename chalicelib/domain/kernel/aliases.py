"""Aliases: cleaned from what the client sent, or generated from a name, unique per kind."""

import re

from chalicelib.domain.kernel.resources import Hooks, Resource, Write
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.store import port as store


def clean(text: str | None, separator: str = "-") -> str:
    """Lower-case letters and digits joined by `separator`."""
    words = re.findall(r"[a-z0-9]+", (text or "").lower())
    return separator.join(words)


def unique_alias(kind: str, field: str, wanted: str, own_id: JSON, separator: str = "-") -> str:
    """`wanted`, or `wanted<sep>2`, `<sep>3`... : the first not held by another entity of the kind."""
    candidate, number = wanted, 1
    while True:
        holder = store.lookup(kind, field, candidate)
        if holder is None or holder == own_id:
            return candidate
        number += 1
        candidate = f"{wanted}{separator}{number}"


def assign(resource: Resource, doc: Doc, source: str, field: str = "alias", separator: str = "-") -> None:
    """Fill doc[field] from itself or doc[source], unique among the resource's documents."""
    base = clean(doc.get(field) or doc.get(source), separator) or resource.kind
    doc[field] = unique_alias(resource.kind, field, base, doc.get("id"), separator)


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
