"""Reading Mautic's lists the way both Mautic 4 and 5 answer them: `start`/`limit` pages in id order,
`total` a string or a number, the collection an object keyed by id, an array, or `[]` when empty."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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


def count(api: Api, path: str, query: dict[str, Any] | None = None) -> int:
    """How many documents `path` lists (one call of one row)."""
    return total(api.call("GET", path, query={"limit": 1, "minimal": "true", **(query or {})}))
