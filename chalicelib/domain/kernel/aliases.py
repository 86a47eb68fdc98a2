"""Aliases: cleaned from what the client sent, or generated from a name, unique per kind."""

import re

from chalicelib.domain.kernel.resources import Hooks
from chalicelib.store import port as store


def clean(text, separator="-"):
    """Lower-case letters and digits joined by `separator`."""
    words = re.findall(r"[a-z0-9]+", (text or "").lower())
    return separator.join(words)


def unique_alias(kind, field, wanted, own_id, separator="-"):
    """`wanted`, or `wanted<sep>2`, `<sep>3`... : the first not held by another entity of the kind."""
    candidate, number = wanted, 1
    while True:
        holder = store.lookup(kind, field, candidate)
        if holder is None or holder == own_id:
            return candidate
        number += 1
        candidate = f"{wanted}{separator}{number}"


def assign(resource, doc, source, field="alias", separator="-"):
    """Fill doc[field] from itself or doc[source], unique among the resource's documents."""
    base = clean(doc.get(field) or doc.get(source), separator) or resource.kind
    doc[field] = unique_alias(resource.kind, field, base, doc.get("id"), separator)


class AliasHooks(Hooks):
    """Resources whose `alias` is generated from another attribute and unique per kind."""

    def __init__(self, source="name", separator="-"):
        self.source = source
        self.separator = separator

    def prepare(self, doc, write):
        if write.existing is not None and not doc.get("alias"):
            doc["alias"] = write.existing.get("alias")
        assign(self.resource, doc, self.source, separator=self.separator)

    def uniques(self, doc):
        return {"alias": doc.get("alias")}
