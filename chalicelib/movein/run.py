"""What every step of a move-in shares: both APIs, the mappings, the report, the worker pool."""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TextIO

from chalicelib.movein import mapping
from chalicelib.movein.client import Api
from chalicelib.movein.mapping import IdMap
from chalicelib.movein.report import Report


@dataclass
class Run:
    """One move-in: `source` and `target` APIs, dry run or not, `workers` calls at once."""

    source: Api
    target: Api
    dry_run: bool = False
    workers: int = 4
    progress: TextIO | None = sys.stderr
    report: Report = field(default_factory=Report)
    maps: dict[str, IdMap] = field(default_factory=dict)
    ticked: bool = False  # a progress line is open (ended when its kind is done)
    kind_started: float = 0.0  # when the kind being copied started (Timer)

    def mapping(self, kind: str) -> IdMap:
        """The mapping of `kind`, read from the destination once."""
        if kind not in self.maps:
            self.maps[kind] = mapping.load(self.target, kind)
        return self.maps[kind]

    def remember(self, kind: str, pairs: list[tuple[int, int, str | None]]) -> None:
        """Store new mapping entries of `kind` in the destination (none in a dry run)."""
        if pairs and not self.dry_run:
            mapping.save(self.target, self.mapping(kind), pairs)

    def each(self, jobs: Iterable[Callable[[], None]]) -> None:
        """Run `jobs` on the pool, at most twice `workers` waiting (memory flat); the first error raised."""
        with ThreadPoolExecutor(self.workers) as pool:
            waiting: list[Future[None]] = []
            for job in jobs:
                waiting.append(pool.submit(job))
                if len(waiting) >= 2 * self.workers:
                    waiting.pop(0).result()
            for future in waiting:
                future.result()

    def tick(self, kind: str, total: int) -> None:
        """A progress line for `kind`: done of total, rate and ETA."""
        if self.progress is None:
            return
        k = self.report.kind(kind)
        done = k.copied + k.updated + k.skipped + k.failed
        elapsed = time.monotonic() - self.kind_started
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (total - done) / rate if rate else 0.0
        self.progress.write(f"\r{kind}: {done}/{total} {rate:.0f}/s ETA {eta:.0f}s ")
        self.progress.flush()
        self.ticked = True


def idempotency_key(*parts: Any) -> str:
    """A key naming exactly this write: its replay after a lost answer or a crash returns the first answer."""
    return "movein-" + hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:48]


def created_id(answer: Any) -> int:
    """The id in a single create's or edit's answer (`{"<singular>": {"id": ...}}`)."""
    for value in answer.values() if isinstance(answer, dict) else ():
        if isinstance(value, dict) and "id" in value:
            return int(value["id"])
    raise ValueError(f"no id in the answer {str(answer)[:200]}")


@dataclass
class Timer:
    """Adds the seconds spent in a `with` block to a kind's report."""

    run: Run
    kind: str

    def __enter__(self) -> Timer:
        self.start = self.run.kind_started = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        self.run.report.kind(self.kind).seconds += time.monotonic() - self.start
        if self.run.progress is not None and self.run.ticked:
            self.run.progress.write("\n")
            self.run.ticked = False


def chunked(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """`items` in lists of `size`."""
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
