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

from __future__ import annotations

import base64
import collections
import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.table import Table
    from moto.s3.models import S3Backend
    from moto.sqs.models import Message, Queue

Record = dict[str, Any]  # a journal record (devstack/journal.py)
Read = Callable[[], Record]  # the record of what a call touched, read when the call ends
After = Callable[[], None] | None  # what a capture hook runs once the wrapped call returned
F = TypeVar("F", bound=Callable[..., Any])


class Sink(Protocol):
    """Where captured records go (the journal): each call's records in one `append`."""

    def append(self, records: list[Record]) -> None:
        """Keep one call's records."""


def marked(function: F, **marks: Any) -> F:
    """The function with attributes set on it: how an `install` sees it already ran (tests read them too)."""
    vars(function).update(marks)
    return function


def replace(owner: type, name: str, by: Callable[..., Any]) -> None:
    """Put `by` in place of `owner.name`: a patch `devstack/patches.py` lists."""
    setattr(owner, name, by)


class FairLock:
    """A lock handed to its waiters in the order they came (not reentrant)."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._waiters: collections.deque[threading.Lock] = collections.deque()
        self._held = False

    def acquire(self) -> None:
        """Take the lock, after everyone who asked before."""
        with self._mutex:
            if not self._held:
                self._held = True
                return
            turn = threading.Lock()
            turn.acquire()
            self._waiters.append(turn)
        turn.acquire()  # released by the holder that hands the lock over

    def release(self) -> None:
        """Hand the lock to the longest waiter, or free it."""
        with self._mutex:
            if self._waiters:
                self._waiters.popleft().release()
            else:
                self._held = False

    def __enter__(self) -> FairLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


LOCK = FairLock()
_local = threading.local()
_sink: list[Sink] = []


def start(sink: Sink) -> None:
    """Send the records of every later write to `sink.append(records)`."""
    _sink[:] = [sink]


def stop() -> None:
    """Capture no more writes."""
    _sink.clear()


@contextlib.contextmanager
def serialized() -> Iterator[None]:
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


def _capturing() -> bool:
    """Whether the current thread is inside a call whose writes are captured."""
    return bool(_sink) and getattr(_local, "depth", 0) > 0


def _touch(identity: tuple[str, ...], read: Read) -> None:
    """Note that the current call wrote `identity`; `read()` gives its record at the end."""
    if _capturing():
        _local.touched.setdefault(identity, read)


def json_value(value: Any) -> Any:
    """An attribute value in DynamoDB's JSON as moto holds it, made JSON text: binary (raw bytes in
    moto after a write, such as a compressed document's `z`) as base64, as DynamoDB's wire format has it."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {name: json_value(inner) for name, inner in value.items()}
    if isinstance(value, list):
        return [json_value(inner) for inner in value]
    return value


def item_json(item: Any) -> dict[str, Any]:
    """A moto item's attributes in DynamoDB's JSON, binary values as base64 (`json_value`): what the
    journal keeps, and what moto takes back on a restart (it reads base64 binary as a client sends it)."""
    attributes: dict[str, Any] = json_value(item.to_json()["Attributes"])
    return attributes


def _item_record(backend: DynamoDBBackend, table_name: str, key: dict[str, Any]) -> Record:
    """The record of an item as stored now (`i` None: gone)."""
    table = backend.tables.get(table_name)
    item = table.get_item(*backend.get_keys_value(table, key)) if table else None
    return {"d": table_name, "k": key, "i": item_json(item) if item else None}


def key_of(table: Table, attributes: dict[str, Any]) -> dict[str, Any] | None:
    """The primary key (DynamoDB JSON) of a moto table's item or key attributes; None if incomplete."""
    names = [name for name in (table.hash_key_attr, table.range_key_attr) if name]
    return {name: attributes[name] for name in names} if all(name in attributes for name in names) else None


def _touch_item(backend: DynamoDBBackend, table_name: str, attributes: dict[str, Any]) -> None:
    """Note that the current call writes the item these attributes name."""
    table = backend.tables.get(table_name)
    key = key_of(table, attributes) if table is not None else None
    if key is None:
        return  # moto refuses the write
    _touch(("d", table_name, json.dumps(key, sort_keys=True)), lambda: _item_record(backend, table_name, key))


def _object_record(backend: S3Backend, bucket: str, key: str) -> Record:
    """The record of a bucket object as stored now (`b` None: gone)."""
    found = backend.get_object(bucket, key)
    if found is None:
        return {"s": key, "b": None}
    return {
        "s": key,
        "b": base64.b64encode(found.value).decode(),
        "c": found.metadata.get("content-type", "application/octet-stream"),
    }


def _wrap(cls: type, name: str, before: Callable[..., After]) -> None:
    """Replace `cls.name` by a wrapper that calls `before` with the same arguments first and runs what it
    returns after the call."""
    original = getattr(cls, name)

    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        after = before(self, *args, **kwargs)
        result = original(self, *args, **kwargs)
        if after:
            after()
        return result

    replace(cls, name, marked(wrapper, captured=True))


def _on_put_item(
    backend: DynamoDBBackend, table_name: str, item_attrs: dict[str, Any], *args: Any, **kwargs: Any
) -> None:
    """Before PutItem: the item is touched."""
    _touch_item(backend, table_name, item_attrs)


def _on_keyed(backend: DynamoDBBackend, table_name: str, key: dict[str, Any], *args: Any, **kwargs: Any) -> None:
    """Before UpdateItem or DeleteItem: the item is touched."""
    _touch_item(backend, table_name, key)


def _on_object(backend: S3Backend, bucket_name: str, key_name: str, *args: Any, **kwargs: Any) -> None:
    """Before PutObject or DeleteObject: the object is touched."""
    _touch(("s", bucket_name, key_name), lambda: _object_record(backend, bucket_name, key_name))


def _on_add_message(queue: Queue, message: Message) -> After:
    """Before a message is queued: its record, once it is in."""
    if _capturing():
        return lambda: _local.records.append(
            {"q": queue.name, "m": message.id, "b": message.body, "t": message.delayed_until}
        )
    return None


def _on_delete_message(queue: Queue, receipt_handle: str) -> After:
    """Before a receipt is deleted: the records of the messages it consumes (body None)."""
    if _capturing():
        ids = [message.id for message in queue._messages if message.had_receipt_handle(receipt_handle)]
        return lambda: _local.records.extend({"q": queue.name, "m": i, "b": None} for i in ids)
    return None


def install() -> None:
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

    def serialized_call(self: BotocoreStubber, event_name: str, request: Any, **kwargs: Any) -> Any:
        with serialized():
            return call(self, event_name, request, **kwargs)

    replace(BotocoreStubber, "__call__", marked(serialized_call, captured=True))
