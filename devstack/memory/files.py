"""The files port in memory: objects by key with their content type. The bucket on AWS is
versioned; here a delete or a purge forgets the object at once, which is what a reader of either
sees."""

from __future__ import annotations

from collections.abc import Callable

from chalicelib.ports.files import Head


class MemoryFiles:
    """The files bucket as a dict."""

    def __init__(self) -> None:
        self.objects: dict[str, tuple[bytes, str]] = {}

    def put(self, key: str, data: bytes, content_type: str) -> None:
        """Store an object."""
        self.objects[key] = (bytes(data), content_type or "application/octet-stream")

    def get(self, key: str) -> tuple[bytes, str] | None:
        """(bytes, content type) of an object, or None."""
        return self.objects.get(key)

    def head(self, key: str) -> Head | None:
        """{size, contentType} of an object, or None."""
        found = self.objects.get(key)
        return {"size": len(found[0]), "contentType": found[1]} if found else None

    def delete(self, key: str) -> None:
        """Delete an object (idempotent)."""
        self.objects.pop(key, None)

    def purge(self, key: str) -> None:
        """Delete an object for good."""
        self.objects.pop(key, None)

    def listing(self, prefix: str) -> tuple[list[str], list[str]]:
        """(sub-folder names, file names) directly under `prefix`, as S3's `/` delimiter groups them."""
        rests = [key[len(prefix) :] for key in self.objects if key.startswith(prefix) and key != prefix]
        folders = {rest.split("/", 1)[0] for rest in rests if "/" in rest}
        return sorted(folders), sorted(rest for rest in rests if "/" not in rest)

    def purge_under(self, prefix: str, wanted: Callable[[str], bool], seconds: float) -> bool:
        """Delete the objects under `prefix` that `wanted` takes; all at once, so True."""
        for key in [k for k in self.objects if k.startswith(prefix) and wanted(k)]:
            del self.objects[key]
        return True
