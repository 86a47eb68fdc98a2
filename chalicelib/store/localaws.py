"""Adjustments to the embedded AWS (moto) used by the local stack and the tests.

moto backs up every table a transaction touches with a deep copy of the whole table, so each
write costs time and memory in proportion to the table (seconds per write at 10k items).
Here the backup copies only the items the transaction names (and the item maps of their
partitions); every other partition is shared, since the transaction leaves it untouched.
Rollback behaves as before.
"""
import copy
import threading
from collections import defaultdict

_touched = threading.local()


def _key(table, key):
    from moto.dynamodb.models.dynamo_type import DynamoType
    hash_value = DynamoType(key[table.hash_key_attr])
    range_value = DynamoType(key[table.range_key_attr]) if table.range_key_attr else None
    return hash_value, range_value


def _light_copy(table, keys):
    clone = copy.copy(table)
    clone.items = defaultdict(dict, table.items)  # untouched partitions are shared
    for hash_value, range_value in keys:
        if hash_value not in table.items:
            continue
        if range_value is None:
            clone.items[hash_value] = copy.deepcopy(table.items[hash_value])
            continue
        if clone.items[hash_value] is table.items[hash_value]:
            clone.items[hash_value] = dict(table.items[hash_value])
        if range_value in table.items[hash_value]:
            clone.items[hash_value][range_value] = copy.deepcopy(table.items[hash_value][range_value])
    return clone


def _table_deepcopy(table, memo):
    keys = getattr(_touched, "keys", None)
    if keys is None or table.name not in keys:
        clone = copy.copy(table)
        clone.__dict__ = copy.deepcopy(table.__dict__, memo)
        return clone
    return _light_copy(table, keys[table.name])


def install():
    """Make moto's DynamoDB transactions back up only the items they touch (idempotent)."""
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.table import Table
    if getattr(DynamoDBBackend.transact_write_items, "light_backup", False):
        return
    original = DynamoDBBackend.transact_write_items

    def transact_write_items(self, transact_items):
        keys = defaultdict(set)
        for entry in transact_items:
            operation = next(iter(entry.values()))
            table = self.tables.get(operation.get("TableName"))
            if table is not None:
                keys[table.name].add(_key(table, operation.get("Key") or operation.get("Item")))
        _touched.keys = keys
        try:
            return original(self, transact_items)
        finally:
            _touched.keys = None

    transact_write_items.light_backup = True
    DynamoDBBackend.transact_write_items = transact_write_items
    Table.__deepcopy__ = _table_deepcopy
