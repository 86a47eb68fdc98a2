"""Token store: secrets kept by the hash of their key, with an expiry and a single-use flag.

Keys are hashed (SHA-256) before they reach the table, so a table dump holds no usable code,
refresh token or nonce. Expired items are ignored on read and removed by DynamoDB's TTL.
"""

import hashlib
import json
import time
from datetime import datetime, timezone
from typing import Any

from pynamodb.exceptions import DoesNotExist, PutError, UpdateError

from chalicelib.store.models import Token


def _key(kind: str, secret: str) -> str:
    """The item key of a secret: its kind and SHA-256, never the secret itself."""
    return f"{kind}#{hashlib.sha256(secret.encode()).hexdigest()}"


def _expiry(seconds: float | None) -> datetime | None:
    """When an item stored now for `seconds` expires (None: never)."""
    return datetime.fromtimestamp(time.time() + seconds, tz=timezone.utc) if seconds else None


def put(kind: str, secret: str, data: Any, seconds: float | None = None, only_new: bool = False) -> bool:
    """Store data under (kind, secret). With only_new, False when the key already exists."""
    item = Token(_key(kind, secret), data=json.dumps(data), expires=_expiry(seconds))
    try:
        item.save(condition=Token.key.does_not_exist() if only_new else None)
        return True
    except PutError:
        if only_new:
            return False
        raise


def get(kind: str, secret: str) -> tuple[Any, bool]:
    """(data, used) for a live key, or (None, False)."""
    try:
        item = Token.get(_key(kind, secret), consistent_read=True)
    except DoesNotExist:
        return None, False
    if item.expires and item.expires.timestamp() < time.time():
        return None, False
    return json.loads(item.data), bool(item.used)


def use(kind: str, secret: str) -> bool:
    """Mark a key used; True only for the first call (an atomic conditional update)."""
    try:
        Token(_key(kind, secret)).update(
            actions=[Token.used.set(1)], condition=Token.key.exists() & Token.used.does_not_exist()
        )
        return True
    except UpdateError:
        return False


def delete(kind: str, secret: str) -> None:
    """Forget a secret (one DeleteItem), used or not."""
    Token(_key(kind, secret)).delete()
