"""SQS: the service's queues by short name (see `schema.QUEUES`), JSON messages. The AWS
implementation of the queues port (`ports/queues.py`)."""

import json
from collections.abc import Iterable, Mapping
from typing import Any

from chalicelib import aws
from chalicelib.ports.queues import BATCH, MAX_DELAY, QueueError
from chalicelib.store.schema import queue_name

MAX_VISIBILITY = 43200  # VisibilityTimeout maximum (12 hours)
_urls: dict[str, str] = {}
__all__ = [
    "BATCH",
    "MAX_DELAY",
    "QueueError",
    "change_visibility",
    "dead_letter",
    "delete",
    "receive",
    "redrive",
    "send",
    "url",
]


def url(queue: str, dead_letter: bool = False) -> str:
    """The queue's URL (one GetQueueUrl per process)."""
    name = queue_name(queue) + ("-dlq" if dead_letter else "")
    if name not in _urls:
        _urls[name] = aws.client("sqs").get_queue_url(QueueName=name)["QueueUrl"]
    return _urls[name]


def send(queue: str, bodies: Iterable[Any], delay: float = 0, dead_letter: bool = False) -> None:
    """Queue JSON messages (to the queue's DLQ with `dead_letter`), up to ten per SendMessageBatch
    call; `delay` seconds, at most MAX_DELAY. Raises QueueError if any is refused."""
    messages = list(bodies)
    for start in range(0, len(messages), BATCH):
        entries = [
            {"Id": str(i), "MessageBody": json.dumps(body), "DelaySeconds": int(delay)}
            for i, body in enumerate(messages[start : start + BATCH])
        ]
        failed = aws.client("sqs").send_message_batch(QueueUrl=url(queue, dead_letter), Entries=entries).get("Failed")
        if failed:
            raise QueueError(f"{queue}: {failed[0].get('Message') or failed[0].get('Code')}")


def receive(queue: str, dead_letter: bool = False, limit: int = BATCH) -> list[tuple[str, Any, int]]:
    """Up to `limit` visible messages as (receipt handle, body, receive count); no waiting."""
    messages = (
        aws.client("sqs")
        .receive_message(
            QueueUrl=url(queue, dead_letter), MaxNumberOfMessages=limit, AttributeNames=["ApproximateReceiveCount"]
        )
        .get("Messages", [])
    )
    return [
        (m["ReceiptHandle"], json.loads(m["Body"]), int(m["Attributes"]["ApproximateReceiveCount"])) for m in messages
    ]


def delete(queue: str, receipt: str, dead_letter: bool = False) -> None:
    """Acknowledge a received message."""
    aws.client("sqs").delete_message(QueueUrl=url(queue, dead_letter), ReceiptHandle=receipt)


def change_visibility(queue: str, seconds: Mapping[str, int]) -> list[str]:
    """Make received messages (receipt handle -> seconds, at most MAX_VISIBILITY) visible again
    after their seconds instead of the queue's visibility timeout: a failed message's backoff, or 0
    to give one back at once. Up to ten per ChangeMessageVisibilityBatch call; the receipt handles
    SQS refused (a message deleted or moved meanwhile)."""
    entries = [
        {"Id": str(i), "ReceiptHandle": receipt, "VisibilityTimeout": min(MAX_VISIBILITY, max(0, int(wait)))}
        for i, (receipt, wait) in enumerate(seconds.items())
    ]
    refused: list[str] = []
    for start in range(0, len(entries), BATCH):
        chunk = entries[start : start + BATCH]
        answer = aws.client("sqs").change_message_visibility_batch(QueueUrl=url(queue), Entries=chunk)
        failed = {entry["Id"] for entry in answer.get("Failed") or ()}
        refused += [str(entry["ReceiptHandle"]) for entry in chunk if entry["Id"] in failed]
    return refused


def dead_letter(queue: str, bodies: Iterable[str]) -> None:
    """Put messages, their bodies as received (JSON or not), on the queue's dead-letter queue: a
    worker's poison, moved there before SQS's maxReceiveCount would. Raises QueueError if refused."""
    texts = list(bodies)
    for start in range(0, len(texts), BATCH):
        entries = [{"Id": str(i), "MessageBody": text} for i, text in enumerate(texts[start : start + BATCH])]
        failed = aws.client("sqs").send_message_batch(QueueUrl=url(queue, True), Entries=entries).get("Failed")
        if failed:
            raise QueueError(f"{queue}-dlq: {failed[0].get('Message') or failed[0].get('Code')}")


def redrive(queue: str) -> int:
    """Move every message of the queue's dead-letter queue back to the queue (ReceiveMessage,
    SendMessageBatch, DeleteMessage: moto has no StartMessageMoveTask); how many moved. A message is
    deleted from the DLQ only after it was queued again, so a failure duplicates at worst, and every
    handler is idempotent (docs/reliability.md)."""
    moved = 0
    while True:
        messages = receive(queue, dead_letter=True)
        if not messages:
            return moved
        send(queue, [body for _receipt, body, _count in messages])
        for receipt, _body, _count in messages:
            delete(queue, receipt, dead_letter=True)
        moved += len(messages)
