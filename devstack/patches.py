"""Adjustments to the embedded AWS (moto) used by the local stack and the tests.

- moto backs up every table a transaction touches with a deep copy of the whole table (once per
  item of the transaction), so each write costs time and memory in proportion to the table.
  Here a transaction saves only the items it names, and a cancelled one puts exactly those
  back: the cost of a write no longer grows with the data. Rollback behaves as before.
- moto lexes every condition expression again on each call, about a third of the time of a
  write; the tokens of an expression text are kept and reused.
- Calls are serialized and their writes captured for the journal (`capture`).
- A Query reads ordered keys per partition instead of sorting the table (`localquery`).
"""
import collections
import copy
import threading

from devstack import capture, query

_state = threading.local()


def _key(table, key):
    from moto.dynamodb.models.dynamo_type import DynamoType
    hash_value = DynamoType(key[table.hash_key_attr])
    range_value = DynamoType(key[table.range_key_attr]) if table.range_key_attr else None
    return hash_value, range_value


def _saved(table, hash_value, range_value):
    """(table, keys, a copy of the stored item or None)."""
    partition = table.items.get(hash_value)
    if range_value is not None:
        partition = (partition or {}).get(range_value)
    return table, hash_value, range_value, copy.deepcopy(partition)


def _restore(table, hash_value, range_value, item):
    if range_value is None:
        if item is None:
            table.items.pop(hash_value, None)
        else:
            table.items[hash_value] = item
        return
    partition = table.items.setdefault(hash_value, {})
    if item is None:
        partition.pop(range_value, None)
        if not partition:
            table.items.pop(hash_value, None)
    else:
        partition[range_value] = item


def _table_deepcopy(table, memo):
    if getattr(_state, "in_transaction", False):
        return table  # the transaction saved its items itself
    clone = copy.copy(table)
    clone.__dict__ = copy.deepcopy(table.__dict__, memo)
    return clone


def _cache_condition_tokens():
    from moto.dynamodb.comparisons import ConditionExpressionParser
    lex = ConditionExpressionParser._lex_condition_expression
    tokens = {}

    def cached(self):
        text = self.condition_expression
        if text not in tokens:
            if len(tokens) >= 4096:
                tokens.clear()
            tokens[text] = tuple(lex(self))
        return collections.deque(tokens[text])

    ConditionExpressionParser._lex_condition_expression = cached


def install():
    """Make moto's DynamoDB transactions save only the items they touch, cache condition
    tokens, serialize calls and capture writes (idempotent)."""
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.table import Table
    if getattr(DynamoDBBackend.transact_write_items, "light_backup", False):
        return
    capture.install()
    _cache_condition_tokens()
    original = DynamoDBBackend.transact_write_items

    def transact_write_items(self, transact_items):
        saved = []
        for entry in transact_items:
            operation = next(iter(entry.values()))
            table = self.tables.get(operation.get("TableName"))
            if table is not None:
                saved.append(_saved(table, *_key(table, operation.get("Key") or operation.get("Item"))))
        _state.in_transaction = True
        try:
            return original(self, transact_items)
        except Exception:
            for item in reversed(saved):
                _restore(*item)
            raise
        finally:
            _state.in_transaction = False

    transact_write_items.light_backup = True
    DynamoDBBackend.transact_write_items = transact_write_items
    Table.__deepcopy__ = _table_deepcopy
    query.install()
