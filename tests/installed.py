"""What a test reads or resets of the adapters installed: the in-memory ones (`tests/conftest.py`,
`fresh`) or, for a test about AWS, moto's (through `tests/motostate.py` and boto3)."""

from __future__ import annotations

from typing import Any


def _memory(part: str) -> Any:
    """The installed in-memory adapter of `part` ("queues", "files"...), or None over AWS."""
    from chalicelib.ports import adapters
    from devstack.memory.adapters import MemoryAdapters

    installed = adapters.active()
    return getattr(installed, part) if isinstance(installed, MemoryAdapters) else None


def empty_queues() -> None:
    """Drop every queued message, visible or in flight."""
    queues = _memory("queues")
    if queues is not None:
        queues.empty()
        return
    from tests import motostate

    motostate.empty_queues()


def bucket_keys(prefix: str = "") -> list[str]:
    """The keys of the files bucket under `prefix`, sorted."""
    files = _memory("files")
    if files is not None:
        return sorted(key for key in files.objects if key.startswith(prefix))
    import boto3

    from chalicelib import config

    bucket = boto3.resource("s3", region_name=config.active().AWS_REGION).Bucket(config.active().FILES_BUCKET)
    return sorted(o.key for o in bucket.objects.filter(Prefix=prefix))


def bucket_bytes(key: str) -> bytes:
    """The bytes of an object of the files bucket."""
    files = _memory("files")
    if files is not None:
        return bytes(files.objects[key][0])
    import boto3

    from chalicelib import config

    return (
        boto3.client("s3", region_name=config.active().AWS_REGION)
        .get_object(Bucket=config.active().FILES_BUCKET, Key=key)["Body"]
        .read()
    )
