"""Idempotency records: the first answer to an `Idempotency-Key`, kept in the tokens table.

One item per (scope, key) under `idem#<sha256>`: the request's fingerprint, its state and, once
done, the answer (status, a few headers, the body zlib-compressed). A running record holds a short
lease (`expires` a little past the longest request), so a key whose first request died is free
again soon; a finished one lives 24 h. DynamoDB's TTL removes them; reads ignore expired items.
The AWS implementation of the idempotency port (`ports/idempotency.py`).
"""

import base64
import hashlib
import json
import time
import zlib
from datetime import datetime, timezone

from pynamodb.exceptions import DoesNotExist, PutError

from chalicelib.ports.idempotency import MAX_STORED, Record
from chalicelib.store.models import Token

__all__ = ["DONE", "MAX_STORED", "RUNNING", "Record", "claim", "finish", "release"]

RUNNING, DONE = 0, 1


def _key(scope: str, key: str) -> str:
    """The item key of (scope, key), hashed: keys are the caller's and may be long."""
    return "idem#" + hashlib.sha256(f"{scope}\n{key}".encode()).hexdigest()


def _at(seconds: float) -> datetime:
    """The time `seconds` from now (an item's expiry)."""
    return datetime.fromtimestamp(time.time() + seconds, tz=timezone.utc)


def claim(scope: str, key: str, fingerprint: str, lease: float) -> Record | None:
    """Take the key for a first request (one conditional PutItem): None when taken, else the
    Record already there (one more GetItem)."""
    item = Token(_key(scope, key), data=json.dumps({"fingerprint": fingerprint}), used=RUNNING, expires=_at(lease))
    now = datetime.now(tz=timezone.utc)
    try:
        item.save(condition=Token.key.does_not_exist() | (Token.expires < now))
        return None
    except PutError:
        pass
    try:
        found = Token.get(item.key, consistent_read=True)
    except DoesNotExist:  # expired and removed between the two calls: the next attempt takes it
        return Record(fingerprint, None)
    data = json.loads(found.data)
    if found.used != DONE:
        return Record(data["fingerprint"], None)
    body = zlib.decompress(base64.b64decode(data["body"]))
    return Record(data["fingerprint"], (data["status"], data["headers"], body))


def finish(
    scope: str, key: str, fingerprint: str, status: int, headers: dict[str, str | list[str]], body: bytes, keep: float
) -> bool:
    """Store the answer for `keep` seconds (one PutItem); an answer too large to store releases
    the key instead (a retry then runs again). True when stored."""
    packed = base64.b64encode(zlib.compress(body)).decode("ascii")
    if len(packed) > MAX_STORED:
        release(scope, key)
        return False
    data = {"fingerprint": fingerprint, "status": status, "headers": headers, "body": packed}
    Token(_key(scope, key), data=json.dumps(data), used=DONE, expires=_at(keep)).save()
    return True


def release(scope: str, key: str) -> None:
    """Forget the key (one DeleteItem): its request failed in a way a retry may fix."""
    Token(_key(scope, key)).delete()
