"""Reading Mautic's lists the way both Mautic 4 and 5 answer them: `start`/`limit` pages in id order,
`total` a string or a number, the collection an object keyed by id, an array, or `[]` when empty."""

from __future__ import annotations

import base64
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from chalicelib.movein.client import Api

PAGE = 200  # Mautic's default `api_batch_max_limit`, also the largest batch a write takes here

Doc = dict[str, Any]


def rows(answer: Any, keys: Sequence[str]) -> list[Doc]:
    """The documents of a list answer under the first of `keys` present, in id order."""
    if not isinstance(answer, dict):
        return []
    for key in keys:
        value = answer.get(key)
        if isinstance(value, dict):
            return sorted((v for v in value.values() if isinstance(v, dict)), key=lambda d: int(d.get("id") or 0))
        if isinstance(value, list) and (value or key == keys[-1]):
            return [v for v in value if isinstance(v, dict)]
    return []


def total(answer: Any) -> int:
    """A list answer's `total`, a string in Mautic 4 and some 5 answers."""
    value = answer.get("total") if isinstance(answer, dict) else None
    return int(value) if isinstance(value, int | str) and str(value).isdigit() else 0


def pages(api: Api, path: str, keys: Sequence[str], query: dict[str, Any] | None = None) -> Iterator[list[Doc]]:
    """The documents at `path`, one page of up to `PAGE` at a time (memory flat whatever the size):
    by `start`, as Mautic pages, or by the `next` cursor when the source gives one (this service
    does: a page then costs the same however deep)."""
    start, cursor = 0, None
    while True:
        params = {"limit": PAGE, "orderBy": "id", "orderByDir": "ASC", **(query or {})}
        params.update({"after": cursor} if cursor else {"start": start})
        answer = api.call("GET", path, query=params)
        batch = rows(answer, keys)
        if not batch:
            return
        yield batch
        start += len(batch)
        following = answer.get("next") if isinstance(answer.get("next"), str) else None
        if cursor and not following:  # a cursor list's last page has no `next`
            return
        cursor = following


def pages_at_once(
    api: Api, path: str, keys: Sequence[str], workers: int, query: dict[str, Any] | None = None
) -> Iterator[list[Doc]]:
    """As `pages`, with up to `workers` pages read at once when the source pages by `start` (Mautic):
    its pages are independent, and a page of contacts is slow to serialise; a source that gives a
    cursor (this service) by ranges of ids (`_by_ranges`). Documents added at the source during the read may
    be missed or read twice: the next run copies them, and the mapping keeps one copy each."""
    params = {"limit": PAGE, "orderBy": "id", "orderByDir": "ASC", **(query or {})}
    first = api.call("GET", path, query=dict(params, start=0))
    if isinstance(first, dict) and isinstance(first.get("next"), str) and workers > 1:
        yield from _by_ranges(api, path, keys, workers, params, first)
        return
    if workers < 2 or (isinstance(first, dict) and isinstance(first.get("next"), str)):
        yield from pages(api, path, keys, query)
        return
    batch = rows(first, keys)
    if not batch:
        return
    yield batch
    end = max(total(first), len(batch))
    starts = range(len(batch), end, len(batch))  # the size the source answers with, were it capped
    with ThreadPoolExecutor(workers) as pool:
        waiting: list[Future[Any]] = []
        for at in starts:
            waiting.append(pool.submit(api.call, "GET", path, None, dict(params, start=at)))
            if len(waiting) >= workers:
                yield rows(waiting.pop(0).result(), keys)
        for future in waiting:
            yield rows(future.result(), keys)
    yield from _from(api, path, keys, params, max(end, len(batch)))  # what came after the total was read


def _by_ranges(
    api: Api, path: str, keys: Sequence[str], workers: int, params: dict[str, Any], first: Any
) -> Iterator[list[Doc]]:
    """A cursor source (this service) read `workers` pages at once: the ids up to the highest are cut
    in ranges of `PAGE`, and the page after a range's start holds every document of its range (a range
    of `PAGE` ids holds at most `PAGE`), those past it dropped. The cursor this service gives is its
    kind and an id (`base64("<kind>:<id>")`): one for each range's start is made the same way. A cursor
    of another shape, or ids too sparse (more than four per document): page after page by the cursor."""
    batch = rows(first, keys)
    yield batch
    kind = _cursor_kind(first["next"])
    top = rows(api.call("GET", path, query=dict(params, limit=1, orderByDir="DESC", start=0)), keys)
    last, highest = int(batch[-1]["id"]), int(top[0]["id"]) if top else 0
    if kind is None or highest - last > 4 * max(total(first), 1):
        yield from _after(api, path, keys, params, first["next"])
        return
    with ThreadPoolExecutor(workers) as pool:
        waiting: list[tuple[int, Future[Any]]] = []
        for at in range(last, highest, PAGE):
            cursor = _cursor(kind, at)
            waiting.append((at + PAGE, pool.submit(api.call, "GET", path, None, dict(params, after=cursor))))
            if len(waiting) >= workers:
                yield from _within(waiting.pop(0), keys)
        for item in waiting:
            yield from _within(item, keys)
    if highest > last:  # what came after the highest was read
        yield from _after(api, path, keys, params, _cursor(kind, highest))


def _cursor_kind(cursor: str) -> str | None:
    """The kind a cursor of this service names (`base64("<kind>:<id>")`), None for another shape."""
    try:
        kind, _, number = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode().partition(":")
    except (ValueError, UnicodeDecodeError):
        return None
    return kind if kind and number.isdigit() else None


def _cursor(kind: str, after: int) -> str:
    """The cursor this service gives for the position after id `after`."""
    return base64.urlsafe_b64encode(f"{kind}:{after}".encode()).decode().rstrip("=")


def _within(item: tuple[int, Future[Any]], keys: Sequence[str]) -> Iterator[list[Doc]]:
    """The documents of one range's page up to the range's end (none: no page)."""
    end, future = item
    batch = [doc for doc in rows(future.result(), keys) if int(doc["id"]) <= end]
    if batch:
        yield batch


def _after(api: Api, path: str, keys: Sequence[str], params: dict[str, Any], after: str) -> Iterator[list[Doc]]:
    """The pages from the cursor `after` on, until the end."""
    while True:
        answer = api.call("GET", path, query=dict(params, after=after))
        batch = rows(answer, keys)
        if not batch:
            return
        yield batch
        following = answer.get("next") if isinstance(answer, dict) else None
        if not isinstance(following, str):
            return
        after = following


def _from(api: Api, path: str, keys: Sequence[str], params: dict[str, Any], start: int) -> Iterator[list[Doc]]:
    """The pages from `start` on, one after another, until an empty one."""
    while True:
        batch = rows(api.call("GET", path, query=dict(params, start=start)), keys)
        if not batch:
            return
        yield batch
        start += len(batch)


def count(api: Api, path: str, query: dict[str, Any] | None = None) -> int:
    """How many documents `path` lists (one call of one row)."""
    return total(api.call("GET", path, query={"limit": 1, "minimal": "true", **(query or {})}))
