"""The files port: the files bucket (uploaded images, the files of assets, form uploads) by key.
AWS: S3 (`store/files.py`, the bucket versioned); in memory: `devstack/memory/files.py`."""

from collections.abc import Callable
from typing import Protocol, TypedDict

from chalicelib.ports.slot import Slot


class Head(TypedDict):
    """What `head` tells of an object."""

    size: int
    contentType: str | None


class Files(Protocol):
    """What the domain asks of the files bucket."""

    def put(self, key: str, data: bytes, content_type: str) -> None:
        """Store an object."""

    def get(self, key: str) -> tuple[bytes, str] | None:
        """(bytes, content type) of an object, or None."""

    def head(self, key: str) -> Head | None:
        """{size, contentType} of an object, or None."""

    def delete(self, key: str) -> None:
        """Delete an object (idempotent)."""

    def purge(self, key: str) -> None:
        """Delete an object with every version of it."""

    def listing(self, prefix: str) -> tuple[list[str], list[str]]:
        """(sub-folder names, file names) directly under `prefix` ("a/b/"), sorted."""

    def purge_under(self, prefix: str, wanted: Callable[[str], bool], seconds: float) -> bool:
        """Purge the objects under `prefix` whose key `wanted` takes, for up to `seconds`; True once
        none is left."""


slot: Slot[Files] = Slot("files")


def put(key: str, data: bytes, content_type: str) -> None:
    """Store an object."""
    slot.get().put(key, data, content_type)


def get(key: str) -> tuple[bytes, str] | None:
    """(bytes, content type) of an object, or None."""
    return slot.get().get(key)


def head(key: str) -> Head | None:
    """{size, contentType} of an object, or None."""
    return slot.get().head(key)


def delete(key: str) -> None:
    """Delete an object."""
    slot.get().delete(key)


def purge(key: str) -> None:
    """Delete an object with every version of it."""
    slot.get().purge(key)


def listing(prefix: str) -> tuple[list[str], list[str]]:
    """(sub-folder names, file names) directly under `prefix`."""
    return slot.get().listing(prefix)


def purge_under(prefix: str, wanted: Callable[[str], bool], seconds: float) -> bool:
    """Purge the wanted objects under `prefix` for up to `seconds`; True once none is left."""
    return slot.get().purge_under(prefix, wanted, seconds)
