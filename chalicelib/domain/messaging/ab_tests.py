"""The result of an email's A/B test: each version's counts and rate by the test's winner criteria,
and the winners, as Mautic's EmailBundle `DetermineWinnerSubscriber` computes them for the email's
page (`EmailController::viewAction`).

The test is the parent and its published variant children; its criteria is the children's
`variantSettings.winnerCriteria`, which must all agree (else Mautic shows no result). Rates are
percentages rounded to two places; the winners are the versions with the highest rate when it is
above zero. Counts are the variants' A/B test counters (`email_stats.variant_counter`): the sends
made while the email was split, their first reads and first clicks, the sends an asset was
downloaded or a form submitted from (`clickthrough.py`), a translation's counting for the variant it
translates. One GetItem of the email (and of its parent when it is a child), one
BatchGetItem of the children, one of the counters.
"""

from collections.abc import Sequence

from chalicelib.domain.kernel import access, registry, service, variants
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import email_stats, versions
from chalicelib.store import port as store
from chalicelib.store.port import EntityId

# criteria -> (counter of successes, their label, counter of trials, its label): Mautic's translations
CRITERIA = {
    "email.openrate": ("read", "Number read", "sent", "Number sent"),
    "email.clickthrough": ("click", "Number of clickthroughs", "sent", "Number sent"),
    "asset.downloads": ("download", "Number of downloads", "sent", "Number of sent emails"),
    "form.submissions": ("submission", "Number of submissions", "sent", "Number of sent emails"),
}
COLUMNS = {"read": "read", "click": "clicks", "sent": "sent", "download": "downloads", "submission": "submissions"}
# Mautic's AssetBundle and FormBundle subscribers answer nothing until a version has a success, and
# name each bar `<id>:<name>`
COUNTED_ONLY = ("asset.downloads", "form.submissions")


def criteria_of(children: Sequence[Doc]) -> str | None:
    """The test's criteria: the published children's `winnerCriteria` when they all name the same one."""
    named = {str((doc.get("variantSettings") or {}).get("winnerCriteria") or "") for doc in children}
    return named.pop() if len(named) == 1 and "" not in named else None


def rate(successes: int, trials: int) -> float:
    """A percentage rounded to two places, 0 without trials."""
    return round(successes / trials * 100, 2) if trials else 0.0


def winners(rates: dict[int, float]) -> list[int]:
    """The ids with the highest rate, none when the highest is 0 (Mautic's `$max > 0`)."""
    top = max(rates.values(), default=0.0)
    return sorted(i for i, r in rates.items() if r == top) if top > 0 else []


def ab_parent(doc: Doc, kind: str, ctx: Context) -> Doc:
    """An A/B test's parent (an email's or a page's): the document, or the parent it is a variant of
    (Forbidden unless the caller may view it too)."""
    parent_id = doc.get("variantParent")
    found = store.get(kind, int(parent_id)) if parent_id else None
    if found is None:
        return doc
    access.require(ctx, registry.resource(kind), Action.VIEW, found)
    return found


def _summary(doc: Doc, weight: float, counts: dict[str, int], criteria: str | None, ctx: Context) -> Doc:
    resource = registry.resource("email")
    shown = access.allowed(ctx, resource, Action.VIEW, doc)
    out: Doc = {"id": doc["id"], "name": doc.get("name") if shown else None, "weight": weight}
    out.update({column: counts[f"variant{event}"] for event, column in COLUMNS.items()})
    if criteria in CRITERIA:
        success, _, trials, _ = CRITERIA[criteria]
        out["rate"] = rate(counts[f"variant{success}"], counts[f"variant{trials}"])
    return out


def _support(rows: Sequence[Doc], criteria: str) -> Doc:
    success, success_label, trials, trials_label = CRITERIA[criteria]
    data: dict[str, JSON] = {
        success_label: [row[COLUMNS[success]] for row in rows],
        trials_label: [row[COLUMNS[trials]] for row in rows],
    }
    return {"labels": [_label(row, criteria) for row in rows], "data": data}


def _label(row: Doc, criteria: str) -> str:
    name = f"{row['id']}:{row['name'] or ''}" if criteria in COUNTED_ONLY else str(row["name"] or row["id"])
    return f"{name} ({row['rate']}%)"


def _judged(criteria: str | None, children: Sequence[Doc], rows: Sequence[Doc]) -> bool:
    """Whether the test has a result: a criteria judged here, children, and for the counted-only
    criteria a success somewhere (Mautic's `if ($counts)`)."""
    if criteria not in CRITERIA or not children:
        return False
    return criteria not in COUNTED_ONLY or any(row[COLUMNS[CRITERIA[criteria][0]]] for row in rows)


def results(email_id: EntityId, ctx: Context) -> Doc:
    """The A/B test the email belongs to (as parent or variant): its versions, criteria and winners."""
    email = service.load(registry.resource("email"), email_id)  # the route checked the caller's view
    parent = ab_parent(email, "email", ctx)
    tested = versions.load(parent, ctx)
    children = [doc for doc, _ in tested.variants]
    criteria = criteria_of(children)
    docs = [(parent, max(0.0, 100 - sum(w for _, w in tested.variants)))] + list(tested.variants)
    counts = email_stats.counts("email", [d["id"] for d, _ in docs], {d["id"] for d, _ in docs})
    rows = [_summary(doc, w, counts[doc["id"]], criteria, ctx) for doc, w in docs]
    judged = _judged(criteria, children, rows)
    won = winners({row["id"]: row["rate"] for row in rows}) if judged else []
    answer = variants.ab_answer(parent, is_published(parent, ctx.now), criteria, rows, won)
    return dict(answer, support=_support(rows, criteria) if judged and criteria else {})
