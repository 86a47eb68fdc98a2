"""Copying the documents of one kind (all but contacts): those missing or changed since their copy,
parents (translations, variants) before children, one create or edit each on the worker pool."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from chalicelib.movein import assets, links, source
from chalicelib.movein.client import ApiFailure
from chalicelib.movein.kinds import Kind
from chalicelib.movein.payloads import Doc, items
from chalicelib.movein.run import Run, Timer, created_id, idempotency_key


def copy(run: Run, kind: Kind) -> None:
    """Copy what `kind` holds at the source and is missing or stale here: as the pages come (memory
    flat), or, for a kind with parents of its own kind, in rounds, parents first."""
    with Timer(run, kind.name):
        existing = _existing(run, kind) if kind.match else {}
        todo = (doc for raw in listed(run, kind) for doc in _sort(run, kind, raw, existing))
        if not kind.parents():
            run.each(lambda d=doc: _write(run, kind, d) for doc in todo)  # type: ignore[misc]
            return
        _in_rounds(run, kind, list(todo))


def _in_rounds(run: Run, kind: Kind, pending: list[Doc]) -> None:
    """Write `pending` round by round: those whose parents are copied (or have none) first."""
    parents, mapping = kind.parents(), run.mapping(kind.name)
    while pending:
        ready = [d for d in pending if all(mapping.get(d[p]) or not d.get(p) for p in parents)]
        ready = ready or pending  # a parent that cannot be copied: its children go without it
        run.each([lambda d=doc: _write(run, kind, d) for doc in ready])  # type: ignore[misc]
        written = {int(d["id"]) for d in ready}
        pending = [d for d in pending if int(d["id"]) not in written]


def listed(run: Run, kind: Kind) -> Iterator[Doc]:
    """The documents of `kind` at the source, each once: its list, and the children the list leaves
    out (Mautic lists no variants, and no translations of pages), read one by one."""
    seen: set[int] = set()
    for page in source.pages(run.source, kind.source, kind.keys):
        for doc in page:
            yield from _family(run, kind, doc, seen)


def _family(run: Run, kind: Kind, doc: Doc, seen: set[int]) -> Iterator[Doc]:
    """`doc` (unless seen) and its unseen children, read from the source."""
    if int(doc["id"]) in seen:
        return
    seen.add(int(doc["id"]))
    yield doc
    for attribute in kind.children:
        for child in items(doc.get(attribute)):
            if int(child["id"]) not in seen:
                answer = run.source.call("GET", f"{kind.source}/{child['id']}")
                yield from _family(run, kind, answer[kind.singular], seen)


def _sort(run: Run, kind: Kind, doc: Doc, existing: dict[str, int]) -> list[Doc]:
    """`[doc]` when it is to be written; else counted as skipped (copied and unchanged, or matched
    by its natural key to a document here, or not copyable) and `[]`."""
    report = run.report
    report.count(kind.name, "found")
    mapping = run.mapping(kind.name)
    if mapping.current(doc):
        report.count(kind.name, "skipped")
        return []
    natural = str(doc.get(kind.match) or "").lower() if kind.match else ""
    if natural in existing:
        report.count(kind.name, "skipped", reason=f"matched by {kind.match} to a {kind.name} here")
        run.remember(kind.name, [(int(doc["id"]), existing[natural], doc.get("dateModified"))])
        return []
    reason = kind.skip(doc) if kind.skip else None
    if reason:
        report.count(kind.name, "skipped", reason=reason)
        return []
    if run.dry_run:
        report.count(kind.name, "updated" if mapping.get(doc["id"]) else "copied")
        return []
    return [doc]


def _existing(run: Run, kind: Kind) -> dict[str, int]:
    """The documents of `kind` here by natural key (lowercase)."""
    match = kind.match or "id"
    return {
        str(doc.get(match)).lower(): int(doc["id"])
        for page in source.pages(run.target, kind.target, kind.keys)
        for doc in page
        if doc.get(match)
    }


def _write(run: Run, kind: Kind, doc: Doc) -> None:
    """Create the copy of `doc` (or edit it when it changed since); its mapping entry stored."""
    mapping = run.mapping(kind.name)
    payload = kind.payload(doc, run.maps)
    new_id = mapping.get(doc["id"])
    outcome = "copied" if new_id is None else "updated"
    key = idempotency_key(kind.name, doc["id"], doc.get("dateModified"), payload)
    try:
        if kind.file:
            payload = assets.with_file(run, doc, payload)
        if new_id is None:
            answer: Any = run.target.call("POST", f"{kind.target}/new", payload, key=key)
            new_id = created_id(answer)
        else:
            run.target.call(kind.edit, f"{kind.target}/{new_id}/edit", payload, key=key)
        if kind.linked_fields:
            links.form_fields(run, doc, new_id)
    except (ApiFailure, assets.NoFile) as failure:
        run.report.count(kind.name, "failed", reason=str(failure))
        return
    run.remember(kind.name, [(int(doc["id"]), new_id, doc.get("dateModified"))])
    run.report.count(kind.name, outcome)
