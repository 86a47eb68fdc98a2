"""Choosing an A/B variant for a reader by weight, the same one every time for the same reader: the
children's `variantSettings.weight` (percent) and the parent's remainder, a bucket drawn from a hash
of the reader and the parent, so a contact keeps its variant with nothing written."""

import hashlib
from collections.abc import Sequence

from chalicelib.domain.kernel.types import JSON, Doc


def _weight(doc: Doc) -> int:
    settings = doc.get("variantSettings")
    value: JSON = settings.get("weight") if isinstance(settings, dict) else None
    try:
        return max(0, int(float(str(value))))
    except (ValueError, OverflowError):
        return 0


def weights(parent: Doc, children: Sequence[Doc]) -> list[tuple[Doc, int]]:
    """[(member, weight)]: each child's weight, the parent's what is left of 100 (equal shares when
    nothing is weighted)."""
    shares = [(child, _weight(child)) for child in children]
    rest = max(0, 100 - sum(w for _, w in shares))
    found = [(parent, rest), *shares]
    return found if any(w for _, w in found) else [(member, 1) for member, _ in found]


def pick(parent: Doc, children: Sequence[Doc], reader: str) -> Doc:
    """The variant `reader` (a contact id, a visitor) gets of `parent` and its `children`."""
    found = weights(parent, children)
    total = sum(w for _, w in found)
    bucket = int.from_bytes(hashlib.sha256(f"{reader}:{parent.get('id')}".encode()).digest()[:8], "big") % total
    for member, weight in found:
        if bucket < weight:
            return member
        bucket -= weight
    return parent
