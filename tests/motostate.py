"""The one place the tests reach into moto's in-memory backends (for the tests about AWS, which run
over moto: tests/conftest.py), and why each is needed:

- the DynamoDB tables are restored from a copy of the seeded ones for each test (re-writing the
  first-start documents through the API would cost seconds per test);
- the SQS queues are emptied by clearing moto's message lists, since PurgeQueue may run only
  once a minute per queue;
- the messages SES and SNS accepted are forgotten, since neither service has a call to do so;
- a test that searches everything stored for personal data or secrets reads every item with its
  document as text (`stored_items`): a compressed document (`z`, docs/storage.md) hides its words.

Everything else a test resets goes through the owning module's public function
(`cached.forget()`, `core.forget_verified()`...).
"""

from __future__ import annotations

import base64
import os
import zlib
from collections.abc import Iterator, Mapping
from typing import Any

from devstack import capture


def _region() -> str:
    return os.environ["AWS_DEFAULT_REGION"]


def tables() -> dict[str, Any]:
    """Moto's DynamoDB tables by name (a live dict: updating it replaces tables)."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    found: dict[str, Any] = dynamodb_backends[DEFAULT_ACCOUNT_ID][_region()].tables
    return found


def readable(item: Mapping[str, Any]) -> dict[str, Any]:
    """A raw item in DynamoDB's JSON (moto's base64 text or boto3's bytes for binary) with its document
    as plain text: a compressed `z` becomes the `doc` it holds."""
    plain = dict(item)
    packed = plain.pop("z", None)
    if packed is not None:
        body = packed["B"]
        text = zlib.decompress(body if isinstance(body, bytes) else base64.b64decode(body)).decode()
        plain["doc"] = {"S": text}
    return plain


def stored_items() -> Iterator[tuple[str, dict[str, Any]]]:
    """(table name, item) for every item of every table, in DynamoDB's JSON, documents as plain text
    whatever their storage (`readable`)."""
    for name, table in tables().items():
        for item in table.all_items():
            yield name, readable(capture.item_json(item))


def empty_queues() -> None:
    """Drop every message of every queue, visible or in flight."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.sqs.models import sqs_backends

    for queue in sqs_backends[DEFAULT_ACCOUNT_ID][_region()].queues.values():
        queue._messages.clear()  # PurgeQueue is limited to once a minute
        queue._pending_messages.clear()


def forget_sent() -> None:
    """Forget the messages SES and SNS accepted."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.ses.models import ses_backends
    from moto.sns.models import sns_backends

    ses_backends[DEFAULT_ACCOUNT_ID][_region()].sent_messages.clear()
    sns_backends[DEFAULT_ACCOUNT_ID][_region()].sms_messages.clear()
