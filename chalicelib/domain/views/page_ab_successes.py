"""A landing page A/B test judged by downloads (`asset.downloads`) or form submissions
(`form.submissions`), as Mautic's AssetBundle and FormBundle `DetermineWinnerSubscriber` judge a page
test: per variant the successes from the page itself since the parent's `variantStartDate`
(`page_successes.py`; no start date, no result), over the page's own `hits` for downloads
(`DownloadRepository::getDownloadCountsByPage`) or its own `variantHits` for submissions
(`SubmissionRepository::getSubmissionCountsByPage`); the highest rate above 0 wins, ties all win.
Nothing is judged until some variant has a success (Mautic's `if ($counts)`)."""

import math
from collections.abc import Mapping, Sequence

from chalicelib.domain.kernel import counters, registry
from chalicelib.domain.kernel.types import JSON, Doc
from chalicelib.domain.messaging import ab_tests
from chalicelib.domain.web import page_successes

# criteria -> (event, row column, success label, trials column, trials label): Mautic's translations
SUCCESS = {
    "asset.downloads": ("download", "downloads", "Number of downloads", "hits", "Number of unique asset downloads"),
    "form.submissions": (
        "submission",
        "submissions",
        "Number of submissions",
        "variantHits",
        "Number of unique page hits",
    ),
}


def trials(docs: Sequence[Doc], criteria: str) -> dict[int, int]:
    """{page id: the page's own hits (downloads) or variant hits (submissions)}: stored plus counted."""
    name = SUCCESS[criteria][3]
    live = counters.live(registry.resource("page"), [doc["id"] for doc in docs])
    return {doc["id"]: int(doc.get(name) or 0) + live[int(doc["id"])][name] for doc in docs}


def add_rates(rows: Sequence[Doc], docs: Sequence[Doc], criteria: str, start: str | None) -> None:
    """Each row's successes, their trials and rate under the criteria (0 successes without a start)."""
    event, column, _, total, _ = SUCCESS[criteria]
    found = page_successes.counts([row["id"] for row in rows], start) if start else {}
    tried = trials(docs, criteria)
    for row in rows:
        row[column] = (found.get(row["id"]) or {}).get(event, 0)
        row[total] = tried[row["id"]]
        row["rate"] = ab_tests.rate(row[column], row[total])


def judged(rows: Sequence[Doc], criteria: str) -> bool:
    """Whether a variant has a success (Mautic answers nothing before)."""
    return any(row[SUCCESS[criteria][1]] for row in rows)


def support(rows: Sequence[Doc], criteria: str) -> Doc:
    """Mautic's bar graph: the variants with successes first (by id), then the others at 0, labelled
    `<id>:<title> (<rate>%)`; FormBundle labels a variant without submissions by its title alone."""
    _, column, success_label, total, trials_label = SUCCESS[criteria]
    counted = sorted((row for row in rows if row[column]), key=lambda row: row["id"])
    others = [row for row in rows if not row[column]]
    data: dict[str, list[JSON]] = {
        success_label: [row[column] for row in counted] + [0] * len(others),
        trials_label: [row[total] for row in counted] + [0] * len(others),
    }
    labels = [f"{row['id']}:{row['title'] or ''} ({row['rate']}%)" for row in counted]
    labels += [_zero_label(row, criteria) for row in others]
    top = max((value for values in data.values() for value in values), default=0)
    return {"labels": labels, "data": data, "step_width": math.ceil(int(str(top)) / 10) * 10}


def _zero_label(row: Mapping[str, JSON], criteria: str) -> str:
    name = str(row["title"] or "")
    return f"{name} (0%)" if criteria == "form.submissions" else f"{row['id']}:{name} (0%)"
