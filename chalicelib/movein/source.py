"""Reading Mautic's lists the way both Mautic 4 and 5 answer them: `start`/`limit` pages in id order,
`total` a string or a number, the collection an object keyed by id, an array, or `[]` when empty."""

from __future__ import annotations

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
    its pages are independent, and a page of contacts is slow to serialise. A source that gives a
    cursor (this service) is read page after page. Documents added at the source during the read may
    be missed or read twice: the next run copies them, and the mapping keeps one copy each."""
    params = {"limit": PAGE, "orderBy": "id", "orderByDir": "ASC", **(query or {})}
    first = api.call("GET", path, query=dict(params, start=0))
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
