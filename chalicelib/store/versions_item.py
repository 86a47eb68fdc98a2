"""The write versions of the cached kinds over DynamoDB: ONE item, `versions` in the counters table,
with one number attribute per kind (docs/storage.md, "Versioned kinds").

A versioned write adds 1 to its kind's attribute (`ADD <kind> 1`) inside its own transaction, so
the version moves exactly when the write commits; readers get every kind in one GetItem (0.5 read
unit, eventually consistent, while the item stays under 4 KB). Before, each kind had its own
`version#<kind>` counter and a reader made a BatchGetItem of 12 items (6 read units).
"""

from collections.abc import Mapping, Sequence

from pynamodb.attributes import NumberAttribute
from pynamodb.expressions.update import Action
from pynamodb.transactions import TransactWrite

from chalicelib.store.models import Counter

NAME = "versions"  # the item's key in the counters table


def bump(tx: TransactWrite, kinds: Mapping[str, int]) -> None:
    """Add to the versions of `kinds` ({kind: n}) in the transaction: one update of the one item
    (a transaction may name an item once)."""
    actions: list[Action] = [NumberAttribute(attr_name=kind).add(n) for kind, n in kinds.items() if n]
    if actions:
        tx.update(Counter(NAME), actions=actions)


def read(kinds: Sequence[str]) -> dict[str, int]:
    """The versions of `kinds` (0 for a kind never written). One GetItem."""
    item = Counter._get_connection().get_item(NAME).get("Item") or {}
    return {kind: int(item[kind]["N"]) if kind in item else 0 for kind in kinds}
