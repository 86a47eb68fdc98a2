"""The result of a landing page's A/B test, as Mautic's PageBundle `DetermineWinnerSubscriber`
computes it for the page's view (`PageController::viewAction`): per variant (its translations counted
with it) its weight, `variantHits`, and by the test's criteria either its bounces and bounce rate
(`page.bouncerate`: hits with no later hit of the visitor within the session, over `variantHits`; the
lowest rate wins) or its average time on page (`page.dwelltime`: seconds to the visitor's next hit,
0 for a hit never left; the highest average above 0 wins). By `asset.downloads` or
`form.submissions` the variants' downloads or submissions from the page are judged instead
(`page_ab_successes.py`), with Mautic's bar graph (`support`).

The hits are the page hits of all contacts since the parent's `variantStartDate` (all of them when it
is not set), read newest first from the all-contacts feed as the `page_hits` stats table is (with
`date_left`, `stats_event_tables.hits_with_date_left`), refused past MAX_EVENTS_READ events."""

from collections.abc import Iterable, Mapping

from chalicelib.domain.contacts import time_on_page
from chalicelib.domain.kernel import access, clock, counters, registry, service, variants
from chalicelib.domain.kernel.access import Action
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import ValidationError
from chalicelib.domain.kernel.listing import is_published
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import ab_tests, stats_tables
from chalicelib.domain.views import page_ab_successes, stats_event_tables
from chalicelib.domain.web import page_choice
from chalicelib.store import port as store
from chalicelib.store.port import EntityId

CRITERIA = ("page.bouncerate", "page.dwelltime")
SUCCESS = page_ab_successes.SUCCESS


def _criteria(children: Iterable[Doc]) -> str | None:
    """The children's `winnerCriteria` when they all name the same one (Mautic shows no result otherwise)."""
    named = {str((doc.get("variantSettings") or {}).get("winnerCriteria") or "") for doc in children}
    return named.pop() if len(named) == 1 and "" not in named else None


def _hits(owner: Mapping[str, int], since: str | None) -> dict[int, list[int | None]]:
    """{variant id: [seconds on the page or None per hit]} of the hits on the test's pages since `since`."""
    start = clock.parse(since) if since else None
    refusal = ValidationError({"variantStartDate": [f"More than {stats_tables.MAX_EVENTS_READ} events to read."]})
    rows = stats_event_tables.hits_with_date_left(stats_tables.table_rows("page_hits", True, refusal=refusal), True)
    found: dict[int, list[int | None]] = {variant: [] for variant in owner.values()}
    for row in rows:
        hit = time_on_page.moment(row["date_hit"])
        if start is not None and hit < start:
            break
        if row["page_id"] in owner:
            left = time_on_page.moment(row["date_left"]) if row["date_left"] else None
            found[owner[row["page_id"]]].append(time_on_page.seconds(hit, left))
    return found


def _row(doc: Doc, weight: float, hits: int, times: list[int | None], criteria: str | None, ctx: Context) -> Doc:
    shown = access.allowed(ctx, registry.resource("page"), Action.VIEW, doc)
    bounces = sum(1 for seconds in times if seconds is None)
    dwell = round(sum(seconds or 0 for seconds in times) / len(times), 2) if times else 0.0
    out: Doc = {"id": doc["id"], "title": doc.get("title") if shown else None, "weight": weight}
    out.update(variantHits=hits, bounces=bounces, averageDwellTime=dwell)
    if criteria == "page.bouncerate":
        out["rate"] = round(bounces / hits * 100, 2) if hits else 0.0
    return out


def _winners(rows: list[Doc], criteria: str | None) -> list[JSON]:
    """Mautic's winners: the lowest bounce rate (ties: all), or the highest average dwell time above 0."""
    if criteria == "page.bouncerate" and rows:
        low = min(row["rate"] for row in rows)
        return sorted(row["id"] for row in rows if row["rate"] == low)
    top = max((row["averageDwellTime"] for row in rows), default=0.0)
    return sorted(row["id"] for row in rows if row["averageDwellTime"] == top) if top > 0 else []


def results(page_id: EntityId, ctx: Context) -> Doc:
    """The A/B test the page belongs to (as parent or variant): its variants, criteria and winners."""
    resource = registry.resource("page")
    parent = ab_tests.ab_parent(service.load(resource, page_id), "page", ctx)  # the route checked the caller's view
    children = [doc for doc in store.batch_get("page", parent.get("variantChildren") or []).values()]
    children = sorted((doc for doc in children if is_published(doc, ctx.now)), key=lambda doc: doc["id"])
    criteria = _criteria(children)
    weights = dict(variants.weights(parent["id"], [(c["id"], page_choice.weight_of(c)) for c in children]))
    docs = [parent, *children]
    owner = {str(i): doc["id"] for doc in docs for i in [doc["id"], *(doc.get("translationChildren") or [])]}
    live = counters.live(resource, [int(i) for i in owner])
    hits = {doc["id"]: 0 for doc in docs}
    for member, variant in owner.items():
        hits[variant] += live[int(member)]["variantHits"]
    judged = criteria in CRITERIA and bool(children)
    times = _hits(owner, parent.get("variantStartDate")) if judged else {}
    rows = [_row(doc, weights[doc["id"]], hits[doc["id"]], times.get(doc["id"], []), criteria, ctx) for doc in docs]
    if criteria in SUCCESS and children:
        return _by_successes(parent, docs, rows, criteria, ctx)
    won = _winners(rows, criteria) if judged else []
    return variants.ab_answer(parent, is_published(parent, ctx.now), criteria, rows, won)


def _by_successes(parent: Doc, docs: list[Doc], rows: list[Doc], criteria: str, ctx: Context) -> Doc:
    """The answer of a test judged by downloads or submissions: rates, winners and the bar graph."""
    page_ab_successes.add_rates(rows, docs, criteria, parent.get("variantStartDate"))
    judged = page_ab_successes.judged(rows, criteria)
    won = ab_tests.winners({row["id"]: row["rate"] for row in rows}) if judged else []
    answer = variants.ab_answer(parent, is_published(parent, ctx.now), criteria, rows, won)
    return dict(answer, support=page_ab_successes.support(rows, criteria) if judged else {})
