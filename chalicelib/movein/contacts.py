"""Copying contacts: a page of the source at a time, one `batch/new` (and one `batch/edit` for the
changed ones) of up to 200 per page on the worker pool, one mapping write per batch. Each payload
carries the contact's field values (points among them), tags, stage, do-not-contact entries with
their reasons and company links, so a contact is whole from its first write: do-not-contact holds
from the moment it exists here."""

from __future__ import annotations

from typing import Any

from chalicelib.movein import payloads, source
from chalicelib.movein.client import ApiFailure
from chalicelib.movein.payloads import Doc
from chalicelib.movein.run import Run, Timer, idempotency_key

KIND = "contact"


def copy(run: Run) -> None:
    """Copy the contacts missing here or changed since their copy."""
    with Timer(run, KIND):
        total = source.count(run.source, "/contacts")
        run.mapping(KIND)
        jobs = (
            lambda page=page: _page(run, page, total)
            for page in source.pages_at_once(run.source, "/contacts", ("contacts",), run.workers)
        )
        run.each(jobs)


def _page(run: Run, page: list[Doc], total: int) -> None:
    """One page: the new ones created, the changed ones edited, their mapping stored."""
    mapping = run.mapping(KIND)
    todo = [doc for doc in page if not mapping.current(doc)]
    run.report.count(KIND, "found", len(page))
    run.report.count(KIND, "skipped", len(page) - len(todo))
    fresh = [doc for doc in todo if mapping.get(doc["id"]) is None]
    changed = [doc for doc in todo if mapping.get(doc["id"]) is not None]
    if run.dry_run:
        run.report.count(KIND, "copied", len(fresh))
        run.report.count(KIND, "updated", len(changed))
        run.tick(KIND, total)
        return
    pairs = _write(run, "POST", "new", fresh, [_payload(run, doc, None) for doc in fresh])
    _utm_tags(run, fresh, pairs)
    edits = [_payload(run, doc, mapping.get(doc["id"])) for doc in changed]
    pairs += _write(run, "PATCH", "edit", changed, edits)
    _group_scores(run, pairs)
    run.remember(KIND, pairs)
    run.tick(KIND, total)


def _write(run: Run, method: str, action: str, docs: list[Doc], body: list[Doc]) -> list[tuple[int, int, str | None]]:
    """One batch write; the (source id, new id, dateModified) of the items it stored, the others failed."""
    if not docs:
        return []
    outcome = "copied" if action == "new" else "updated"
    key = idempotency_key(KIND, action, [(d["id"], d.get("dateModified")) for d in docs], body)
    try:
        answer = run.target.call(method, f"/contacts/batch/{action}", body, key=key)
    except ApiFailure as failure:
        run.report.count(KIND, "failed", len(docs), reason=str(failure))
        return []
    stored = _indexed(answer.get("contacts"))
    errors = _indexed(answer.get("errors"))
    pairs = []
    for index, doc in enumerate(docs):
        copy = stored.get(index)
        if copy is None:
            error = errors.get(index) or {}
            run.report.count(KIND, "failed", reason=f"{error.get('code')} {error.get('message')}")
            continue
        pairs.append((int(doc["id"]), int(copy["id"]), doc.get("dateModified")))
    run.report.count(KIND, outcome, len(pairs))
    return pairs


UTM_FIELDS = {
    "utmCampaign": "utm_campaign",
    "utmSource": "utm_source",
    "utmMedium": "utm_medium",
    "utmContent": "utm_content",
    "utmTerm": "utm_term",
    "userAgent": "useragent",
    "url": "url",
    "referer": "referer",
    "remoteHost": "remotehost",
    "query": "query",
}


def _utm_tags(run: Run, fresh: list[Doc], pairs: list[tuple[int, int, str | None]]) -> None:
    """The UTM tags of newly copied contacts, one `/contacts/<id>/utm/add` each (edits carry none:
    the source's tags have no identity to compare, so a rerun would add them twice)."""
    copies = {source_id: new_id for source_id, new_id, _ in pairs}
    for doc in fresh:
        for tag in doc.get("utmtags") or [] if int(doc["id"]) in copies else []:
            body = {name: tag[key] for key, name in UTM_FIELDS.items() if tag.get(key) not in (None, "", [], {})}
            key = idempotency_key("utm", doc["id"], tag.get("id"), body)
            try:
                run.target.call("POST", f"/contacts/{copies[int(doc['id'])]}/utm/add", body, key=key)
            except ApiFailure as failure:
                run.report.count("utmtag", "failed", reason=str(failure))
                continue
            run.report.count("utmtag", "copied")


def _group_scores(run: Run, pairs: list[tuple[int, int, str | None]]) -> None:
    """Each copied contact's point group scores, set to the source's (when point groups were copied):
    one read at the source and one `set` here per score (Mautic's contact does not show them)."""
    groups = run.maps.get("pointgroup")
    if not groups or not groups.entries:
        return
    for source_id, new_id, _ in pairs:
        answer = run.source.call("GET", f"/contacts/{source_id}/points/groups")
        for row in source.rows(answer, ("groupScores",)):
            group = groups.get(row.get("group"))
            if group is None:
                continue
            path = f"/contacts/{new_id}/points/groups/{group}/set/{int(row.get('score') or 0)}"
            try:
                run.target.call("POST", path, {"eventName": "Moved in", "actionName": "move-in"})
            except ApiFailure as failure:
                run.report.count("groupscore", "failed", reason=str(failure))
                continue
            run.report.count("groupscore", "copied")


def _indexed(value: Any) -> dict[int, Doc]:
    """A batch answer's map keyed by input index (an array, or an object keyed by the index)."""
    if isinstance(value, list):
        return dict(enumerate(value))
    return {int(k): v for k, v in (value or {}).items() if str(k).isdigit()}


def _payload(run: Run, doc: Doc, new_id: int | None) -> Doc:
    """A contact's payload: field values, tags, stage, do-not-contact, frequency rules, owner, company
    links (`id` for an edit)."""
    values = payloads.field_values(doc)
    out: Doc = {k: v for k, v in values.items() if v is not None or new_id is not None}
    out["tags"] = [t.get("tag") if isinstance(t, dict) else t for t in doc.get("tags") or []]
    stage = run.maps["stage"].get(doc["stage"]) if doc.get("stage") and "stage" in run.maps else None
    if stage is not None or new_id is not None:
        out["stage"] = stage
    out["doNotContact"] = [
        {"channel": d.get("channel"), "reason": d.get("reason"), "comments": d.get("comments")}
        for d in doc.get("doNotContact") or []
    ]
    rules = [{k: v for k, v in r.items() if k not in ("id", "dateAdded")} for r in doc.get("frequencyRules") or []]
    if rules:
        out["frequencyRules"] = rules  # the list a contact is answered with is taken back
    owner = run.maps["user"].get(doc["owner"]) if doc.get("owner") and "user" in run.maps else None
    if owner is not None:
        out["owner"] = owner
    if doc.get("lastActive"):
        out["lastActive"] = doc["lastActive"]
    companies = _companies(run, doc)
    if companies:
        out["companies"] = companies
    if new_id is not None:
        out["id"] = new_id
    return out


def _companies(run: Run, doc: Doc) -> list[int]:
    """The copies of the contact's companies (read only for a contact naming a primary company, when
    companies were copied: one call each)."""
    companies = run.maps.get("company")
    if not companies or not companies.entries or not payloads.field_values(doc).get("company"):
        return []
    answer = run.source.call("GET", f"/contacts/{doc['id']}/companies")
    linked = source.rows(answer, ("companies",))
    return [new for new in (companies.get(c.get("id")) for c in linked) if new is not None]
