"""The local stack's write-ahead journal: every committed write of the embedded AWS, on disk.

Files under DATA_DIR/journal: `journal-<n>.log` segments of records, one per line
(`<crc32 hex> <json>`), and `snapshot-<n>.jsonl`, the state folded from every segment up to n.
A record is the after-image of what one write touched:

    {"d": table, "k": key, "i": item or null}        a DynamoDB item (DynamoDB JSON)
    {"s": key, "b": base64 body or null, "c": type}  an object of the files bucket
    {"q": queue, "m": id, "b": body or null, "t": t} an SQS message (added, moved, deleted)

Appends are single write(2) calls made while the embedded AWS is locked, so a record survives a
kill -9 as soon as the call returns; `sync` (fsync) runs before each answer. Start-up folds the
newest snapshot and the later segments; a torn last record is skipped with a log line.
Compaction (`python -m devstack.journal compact DIR N`) folds files into a new
snapshot in another process at the lowest CPU priority, so the server never pauses for it; it
runs when the open segment outgrew COMPACT_BYTES and the newest snapshot (`Journal.due`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

Record = dict[str, Any]  # one journal record (above)
Identity = tuple[str, ...]  # what a record is about (`identity`)

COMPACT_BYTES = 32 * 1024 * 1024
_NAME = re.compile(r"^(journal|snapshot)-(\d+)\.(log|jsonl)$")
log = logging.getLogger(__name__)


def encode(record: Record) -> bytes:
    """One journal line: the CRC-32 of the JSON text, a space, the JSON text, a newline."""
    text = json.dumps(record, separators=(",", ":")).encode()
    return b"%08x %s\n" % (zlib.crc32(text), text)


def decode(line: bytes) -> Record | None:
    """The record of a journal line, or None if the line is torn or corrupt."""
    if not line.endswith(b"\n") or len(line) < 10 or line[8:9] != b" ":
        return None
    text = line[9:-1]
    try:
        if int(line[:8], 16) != zlib.crc32(text):
            return None
        return json.loads(text)
    except ValueError:
        return None


def identity(record: Record) -> Identity:
    """What a record is about: later records about the same thing replace earlier ones."""
    if "d" in record:
        return ("d", record["d"], json.dumps(record["k"], sort_keys=True))
    if "s" in record:
        return ("s", record["s"])
    return ("q", record["m"])  # a message lives in one queue: moving it to its DLQ re-adds it


def _deletes(record: Record) -> bool:
    """Whether the record says its item, object or message is gone."""
    return (record["i"] if "d" in record else record["b"]) is None


def files(directory: str | os.PathLike[str]) -> dict[tuple[str, int], Path]:
    """{("journal"|"snapshot", n): path} of the journal directory."""
    found: dict[tuple[str, int], Path] = {}
    for path in Path(directory).glob("*-*.*"):
        match = _NAME.match(path.name)
        if match:
            found[(match.group(1), int(match.group(2)))] = path
    return found


def _records(path: Path) -> Iterator[Record]:
    """The records of a journal segment, up to the first torn or corrupt line."""
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, 1):
            record = decode(line)
            if record is None:
                log.warning(
                    "journal %s: line %d is torn or corrupt; it and what follows are skipped", path.name, number
                )
                return
            yield record


def fold(directory: str | os.PathLike[str], upto: int | None = None) -> dict[Identity, Record]:
    """{identity: record} of the newest snapshot folded with the later segments (up to `upto`),
    deletions dropped."""
    found = files(directory)
    snapshots = sorted(n for kind, n in found if kind == "snapshot" and (upto is None or n <= upto))
    base = snapshots[-1] if snapshots else 0
    state: dict[Identity, Record] = {}
    if snapshots:
        with open(found[("snapshot", base)], "rb") as handle:
            for line in handle:
                record = json.loads(line)
                state[identity(record)] = record
    for number in sorted(n for kind, n in found if kind == "journal" and n > base and (upto is None or n <= upto)):
        for record in _records(found[("journal", number)]):
            if _deletes(record):
                state.pop(identity(record), None)
            else:
                state[identity(record)] = record
    return state


def _fsync_directory(directory: Path) -> None:
    """Make a rename in the directory durable."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write_snapshot(directory: str | os.PathLike[str], number: int, records: Iterable[Record]) -> None:
    """Write snapshot n (temporary file, fsync, rename), then remove the files it replaces."""
    folder = Path(directory)
    temporary = folder / f"snapshot-{number:06d}.jsonl.tmp"
    with open(temporary, "wb") as handle:
        for record in records:
            handle.write(json.dumps(record, separators=(",", ":")).encode() + b"\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, folder / f"snapshot-{number:06d}.jsonl")
    _fsync_directory(folder)
    for (kind, n), path in files(folder).items():
        if n < number or (kind == "journal" and n == number):
            path.unlink(missing_ok=True)


def compact(directory: str | os.PathLike[str], upto: int) -> int:
    """Fold the files up to segment `upto` into snapshot `upto`. Returns the number of records."""
    state = fold(directory, upto)
    write_snapshot(directory, upto, state.values())
    return len(state)


class Journal:
    """The open segment of a journal directory: appends, fsync before answers, rotation."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        for stale in self.directory.glob("*.tmp"):
            stale.unlink()
        self.number = max((n for _, n in files(self.directory)), default=0) + 1
        self._lock = threading.Lock()
        self._descriptor = self._open()
        self._written = self._synced = 0

    def _open(self) -> int:
        """The descriptor of the open segment, for appends."""
        path = self.directory / f"journal-{self.number:06d}.log"
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    def append(self, records: Iterable[Record]) -> None:
        """Write records in one write(2) call; they survive a crash of this process from now on."""
        data = b"".join(encode(record) for record in records)
        if data:
            with self._lock:
                os.write(self._descriptor, data)
                self._written += len(data)

    def sync(self) -> None:
        """Fsync what was appended (power-loss safety); cheap when nothing is new."""
        with self._lock:
            if self._synced != self._written:
                os.fsync(self._descriptor)
                self._synced = self._written

    def due(self) -> bool:
        """Whether the open segment is worth folding into a new snapshot: it outgrew COMPACT_BYTES
        and the newest snapshot (so rewriting the snapshot costs at most what was appended)."""
        sizes = [path.stat().st_size for (kind, _), path in files(self.directory).items() if kind == "snapshot"]
        return self._written > max([COMPACT_BYTES, *sizes])

    def rotate(self) -> int:
        """Close the open segment and open the next one; the closed segment's number."""
        with self._lock:
            os.fsync(self._descriptor)
            os.close(self._descriptor)
            closed, self.number = self.number, self.number + 1
            self._descriptor = self._open()
            self._written = self._synced = 0
            return closed

    def close(self) -> None:
        """Fsync and close the open segment (the server's stop)."""
        with self._lock:
            os.fsync(self._descriptor)
            os.close(self._descriptor)


def main(argv: Sequence[str]) -> int:
    """`compact DIR N`: fold the journal directory's files up to segment N into a snapshot."""
    if len(argv) != 3 or argv[0] != "compact":
        print("usage: python -m devstack.journal compact DIR N", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO)
    os.nice(19)  # background work: the server's requests come first on a busy machine
    count = compact(argv[1], int(argv[2]))
    log.info("journal %s compacted up to %s: %d records", argv[1], argv[2], count)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
