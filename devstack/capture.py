"""The embedded AWS (moto) made safe for threads, and its committed writes captured.

moto is not thread-safe, so every call into it (botocore requests of the app and the workers,
requests of the loopback AWS endpoint) runs under one lock, held for that call only: a long
background job interleaves with API requests call by call, as on AWS. The lock is handed over
first come, first served, so a read waits behind the calls queued before it, never behind a
thread that keeps taking the lock back.

While a sink is set (the local stack's journal), the writes of each call are turned into
journal records before the lock is released: the after-image of every DynamoDB item and
bucket object the call touched, and every SQS message added or deleted.
"""

import base64
import collections
import contextlib
import json
import threading


class FairLock:
    """A lock handed to its waiters in the order they came (not reentrant)."""

    def __init__(self):
        self._mutex = threading.Lock()
        self._waiters = collections.deque()
        self._held = False

    def acquire(self):
        with self._mutex:
            if not self._held:
                self._held = True
                return
            turn = threading.Lock()
            turn.acquire()
            self._waiters.append(turn)
        turn.acquire()  # released by the holder that hands the lock over

    def release(self):
        with self._mutex:
            if self._waiters:
                self._waiters.popleft().release()
            else:
                self._held = False

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc_info):
        self.release()


LOCK = FairLock()
_local = threading.local()
_sink = []


def start(sink):
    """Send the records of every later write to `sink.append(records)`."""
    _sink[:] = [sink]


def stop():
    _sink.clear()


@contextlib.contextmanager
def serialized():
    """Hold the embedded AWS for one call (nested calls hold it already); the writes it made go
    to the sink at the end."""
    depth = getattr(_local, "depth", 0)
    if depth:
        _local.depth = depth + 1
        try:
            yield
        finally:
            _local.depth = depth
        return
    with LOCK:
        _local.depth, _local.touched, _local.records = 1, {}, []
        try:
            yield
        finally:
            _local.depth = 0
            if _sink:
                records = _local.records + [read() for read in _local.touched.values()]
                if records:
                    _sink[0].append(records)


def _capturing():
    return bool(_sink) and getattr(_local, "depth", 0) > 0


def _touch(identity, read):
    """Note that the current call wrote `identity`; `read()` gives its record at the end."""
    if _capturing():
        _local.touched.setdefault(identity, read)


def _item_record(backend, table_name, key):
    table = backend.tables.get(table_name)
    item = table.get_item(*backend.get_keys_value(table, key)) if table else None
    return {"d": table_name, "k": key, "i": item.to_json()["Attributes"] if item else None}


def key_of(table, attributes):
    """The primary key (DynamoDB JSON) of a moto table's item or key attributes; None if incomplete."""
    names = [name for name in (table.hash_key_attr, table.range_key_attr) if name]
    return {name: attributes[name] for name in names} if all(name in attributes for name in names) else None


def _touch_item(backend, table_name, attributes):
    table = backend.tables.get(table_name)
    key = key_of(table, attributes) if table is not None else None
    if key is None:
        return  # moto refuses the write
    _touch(("d", table_name, json.dumps(key, sort_keys=True)), lambda: _item_record(backend, table_name, key))


def _object_record(backend, bucket, key):
    found = backend.get_object(bucket, key)
    if found is None:
        return {"s": key, "b": None}
    return {
        "s": key,
        "b": base64.b64encode(found.value).decode(),
        "c": found.metadata.get("content-type", "application/octet-stream"),
    }


def _wrap(cls, name, before):
    original = getattr(cls, name)

    def wrapper(self, *args, **kwargs):
        after = before(self, *args, **kwargs)
        result = original(self, *args, **kwargs)
        if after:
            after()
        return result

    wrapper.captured = True
    setattr(cls, name, wrapper)


def _on_put_item(backend, table_name, item_attrs, *args, **kwargs):
    _touch_item(backend, table_name, item_attrs)


def _on_keyed(backend, table_name, key, *args, **kwargs):
    _touch_item(backend, table_name, key)


def _on_object(backend, bucket_name, key_name, *args, **kwargs):
    _touch(("s", bucket_name, key_name), lambda: _object_record(backend, bucket_name, key_name))


def _on_add_message(queue, message):
    if _capturing():
        return lambda: _local.records.append(
            {"q": queue.name, "m": message.id, "b": message.body, "t": message.delayed_until}
        )


def _on_delete_message(queue, receipt_handle):
    if _capturing():
        ids = [message.id for message in queue._messages if message.had_receipt_handle(receipt_handle)]
        return lambda: _local.records.extend({"q": queue.name, "m": i, "b": None} for i in ids)


def install():
    """Serialize calls into moto and capture their writes (idempotent)."""
    from moto.core.botocore_stubber import BotocoreStubber
    from moto.dynamodb.models import DynamoDBBackend
    from moto.s3.models import S3Backend
    from moto.sqs.models import Queue

    if getattr(BotocoreStubber.__call__, "captured", False):
        return
    for name, before in (("put_item", _on_put_item), ("update_item", _on_keyed), ("delete_item", _on_keyed)):
        _wrap(DynamoDBBackend, name, before)
    for name in ("put_object", "delete_object"):
        _wrap(S3Backend, name, _on_object)
    _wrap(Queue, "add_message", _on_add_message)
    _wrap(Queue, "delete_message", _on_delete_message)
    call = BotocoreStubber.__call__

    def serialized_call(self, event_name, request, **kwargs):
        with serialized():
            return call(self, event_name, request, **kwargs)

    serialized_call.captured = True
    BotocoreStubber.__call__ = serialized_call
